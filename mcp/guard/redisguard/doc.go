// Package redisguard is the Redis backend of the guards: a
// [guard.Limiter] whose counters live in Redis, so that a rate limit or a
// concurrency limit means the same with one replica of a server or twenty.
// It is opt-in: it is the only package of the module that links go-redis,
// and the in-process [guard.NewLimiter] needs nothing but this process.
//
// Both limits of [guard.Limits] are enforced per key, atomically, in one
// Lua script and one round trip, on Redis's own clock (so replicas whose
// clocks disagree still agree on the limit):
//
//   - rate: a GCRA (a token bucket kept as one timestamp) of Rate calls per
//     second and Burst at once. A call above the rate is answered
//     RATE_LIMITED with the exact time until a call is admitted. A Rate of
//     a million calls a second or more is no limit: no Redis runs that
//     many scripts for one key, and the clock counts microseconds;
//   - concurrency: at most MaxActive calls of a key hold a slot, across
//     replicas. A slot expires after a TTL (30s) and is refreshed
//     while held, so a replica that crashes, or loses Redis, without
//     releasing its slots gives them back after the TTL.
//
// What differs from the in-process guard, and why:
//
//   - there is no queue: a call beyond MaxActive is shed at once with
//     SERVER_BUSY. A distributed fair queue would need a waiting list in
//     Redis and a wake-up for every release, more machinery than a limit
//     that protects a server is worth; the model is told to wait and send
//     its calls one at a time, which is what a queue would do for it. New
//     refuses Limits with MaxQueued > 0; 0 and [guard.NoQueue] both mean
//     shed;
//   - Redis can fail. Every Redis call has a deadline (WithTimeout, 100ms
//     by default), and a call whose Redis call fails or times out is
//     admitted unchecked (fail open, the default) or refused with
//     SERVER_BUSY saying the limits are unavailable (WithFailClosed). A
//     failure is logged at most once a minute. A slot admitted just as
//     its Redis call timed out stays taken until its TTL.
//
// The refusals are the in-process guard's, word for word, so the model
// reads the same whatever backend refused. Keys are stored hashed,
// prefix:{sha256(key)}:rate and prefix:{sha256(key)}:active: no key, token
// or tool name appears in clear in Redis, and the hash tag in braces puts
// both keys of a key in one hash slot for Redis Cluster.
//
// Build the client with ContextTimeoutEnabled: true, so that go-redis
// itself stops at the deadline; without it the Limiter still never waits
// past the deadline, at the cost of a goroutine per Redis call.
package redisguard
