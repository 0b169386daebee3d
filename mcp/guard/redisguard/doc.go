// Package redisguard is the Redis backend of the guards: a
// [guard.Limiter] whose counters live in Redis, so that a rate limit or a
// concurrency limit means the same with one replica of a server or twenty.
// It is opt-in: it is the only package of the module that links go-redis,
// and the in-process [guard.NewLimiter] needs nothing but this process.
//
// Every replica makes the same [Limiter] with [New] on the same Redis, and
// admits each call with [Limiter.Acquire]:
//
//	opt := &redis.Options{Addr: "localhost:6379",
//		ContextTimeoutEnabled: true} // required: go-redis stops at the deadline
//	opt.Dialer = redisguard.Dialer(redis.NewDialer(opt)) // back with Redis
//	limiter, err := redisguard.New(redis.NewClient(opt),
//		guard.Limits{MaxActive: 8, Rate: 20, Burst: 40})
//	// ...
//	release, te := limiter.Acquire(ctx, "tools/search")
//
// The MCP proxy takes one with proxy.WithLimiter, and "selfheal proxy
// --redis URL" makes one. [Limiter] says how the limits are enforced and
// how they differ from the in-process guard's (calls are never queued);
// [Limiter.Acquire] lists the refusals, which are the in-process guard's,
// word for word; [WithFailClosed], [WithTimeout] and [Dialer] say what
// happens when Redis fails.
package redisguard
