package redisguard

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/guard/internal/refuse"
)

// Defaults of the options.
const (
	defaultPrefix  = "selfheal"
	defaultTimeout = 500 * time.Millisecond
	defaultSlotTTL = 30 * time.Second
)

// maxInterval caps the time between two calls of a rate limit (about 31
// years), so that the microseconds of a tiny Rate stay exact in Redis.
const maxInterval = 1e15 // µs

// maxRate is the Rate from which a Limiter does not limit the rate: a
// million calls a second of one key is more than one Redis runs scripts,
// so such a limit never binds, and the script's clock counts whole
// microseconds (an interval under one would be lost in rounding).
const maxRate = 1e6

// logEvery is how often, at most, a Limiter logs that Redis failed: an
// outage fails every call, and one line a minute says so without flooding
// the log.
const logEvery = time.Minute

// errLate is an acquire script that ran past its deadline although its
// reply came in time: the Limiter's idea of Redis's clock was off by more
// than lateMargin. Nothing was taken; the call is a failure like any other.
var errLate = errors.New("redisguard: the acquire script ran past its deadline")

// lateMargin is how far past its caller's deadline, as a fraction of the
// timeout, an acquire script still takes a slot: the Limiter knows
// Redis's clock only to within half a round trip, and a script that
// arrives this late stalled anyway.
const lateMargin = 10 // a tenth of the timeout

// errReply is a script reply of an unexpected shape (another script under
// the same SHA, a proxy in between): a Redis failure like any other.
var errReply = errors.New("redisguard: unexpected reply from the acquire script")

// Limiter is a [guard.Limiter] whose counters live in Redis, so that every
// replica of a server enforces one limit per key. It is safe for
// concurrent use; make one per set of Limits and share it.
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
//     replicas. A slot expires after a TTL (30s) and is refreshed while
//     held, so a replica that crashes, or loses Redis, without releasing
//     its slots gives them back after the TTL.
//
// Unlike the in-process guard, a Limiter has no queue: a call beyond
// MaxActive is shed at once with SERVER_BUSY. A distributed fair queue
// would need a waiting list in Redis and a wake-up for every release, more
// machinery than a limit that protects a server is worth; the model is
// told to wait and send its calls one at a time, which is what a queue
// would do for it. And Redis can fail: a call whose Redis call fails or
// times out ([WithTimeout]) is admitted unchecked or refused
// ([WithFailClosed]). Recovery after Redis stalls or drops out for a
// moment is immediate, not a slot TTL later: a script that reaches Redis
// after its caller gave up takes nothing (it carries its deadline on
// Redis's clock), and a release that did not reach Redis is sent again
// every 250ms until it does (or the slot's TTL ends).
type Limiter struct {
	c   redis.UniversalClient
	l   guard.Limits
	cfg config

	// rated: l has a rate limit.
	rated bool
	// The script's arguments that do not change, converted once.
	args [4]any // interval µs, tolerance µs, MaxActive, slot TTL µs
	// ttlArg is the slot TTL in µs, for refreshScript.
	ttlArg any

	// epoch is when the Limiter was made: local times are read on the
	// monotonic clock, as durations since it.
	epoch time.Time
	// offset is Redis's clock minus the local one (µs since epoch), as
	// the last reply of the acquire script showed it; offsetKnown is
	// false until one came.
	offset      atomic.Int64
	offsetKnown atomic.Bool

	nextLog atomic.Int64 // unix ns before which failures are not logged

	unreleased unreleased // slots whose release did not reach Redis
}

// Option configures a Limiter.
type Option func(*config)

type config struct {
	prefix     string
	failClosed bool
	timeout    time.Duration
	log        *slog.Logger
	slotTTL    time.Duration
	// afterFunc starts the timer of a held slot's next refresh:
	// time.AfterFunc, or a test's own, which runs the refreshes when the
	// test says rather than when a clock does.
	afterFunc func(time.Duration, func()) timer
}

// timer is what a held slot uses of a *time.Timer.
type timer interface {
	Reset(time.Duration) bool
	Stop() bool
}

// afterFunc is time.AfterFunc as a timer.
func afterFunc(d time.Duration, f func()) timer { return time.AfterFunc(d, f) }

// WithPrefix sets the prefix of the Limiter's keys in Redis, "selfheal" by
// default. Limiters with different Limits on one Redis need different
// prefixes (or different keys), or they share counters.
//
// Keys are stored hashed, prefix:{sha256(key)}:rate and
// prefix:{sha256(key)}:active: no key, token or tool name appears in clear
// in Redis, and the hash tag in braces puts both keys of a key in one hash
// slot for Redis Cluster.
func WithPrefix(prefix string) Option { return func(c *config) { c.prefix = prefix } }

// WithFailClosed says what Acquire does when Redis cannot be reached or
// fails: false (the default) admits the call unchecked, so that an outage
// of Redis does not become an outage of the tools (fail open); true refuses
// it with a SERVER_BUSY saying the limits are unavailable, for limits that
// protect something that must not be overrun (fail closed).
func WithFailClosed(closed bool) Option { return func(c *config) { c.failClosed = closed } }

// WithTimeout sets the deadline of every Redis call, 500ms by default, so
// that a slow or hung Redis delays a call by at most that much, then counts
// as a failure (see [WithFailClosed]). Too short a deadline fails calls
// that Redis answers: on a busy machine a round trip, and the handshake of
// a new connection, can take well over 100ms, and each call that times out
// is admitted unchecked when failing open. The client stops at the
// deadline itself (New requires ContextTimeoutEnabled), so nothing of a
// call outlives it; only a dial go-redis makes on its own, apart from the
// call, lasts up to the client's DialTimeout.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithLogger sets where Redis failures are logged, slog.Default() by
// default. A failure is logged at most once a minute per Limiter, saying
// whether calls are admitted (fail open) or refused (fail closed).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.log = l } }

// withSlotTTL sets how long a concurrency slot lasts in Redis, 30s by
// default (tests shorten it). A held slot is refreshed every third of it,
// so a long call keeps its slot; the slots of a replica that crashed, or
// lost Redis, without releasing them come back after at most this long.
func withSlotTTL(d time.Duration) Option { return func(c *config) { c.slotTTL = d } }

// New returns a limiter enforcing l for each key, with its counters in
// Redis. It returns an error when l is out of range (see
// [guard.Limits.Validate]), when l.MaxQueued asks for a queue (above 0:
// calls beyond MaxActive are shed, never queued, see [Limiter]; 0 and
// [guard.NoQueue] both mean shed), or when an option is out of range.
//
// client must stop a command at its context's deadline: a *redis.Client,
// *redis.ClusterClient or *redis.Ring made with ContextTimeoutEnabled in
// its options. Without it go-redis waits for a hung Redis until the
// client's ReadTimeout (forever when it is -1), and a Limiter could only
// stop waiting, leaving a goroutine per call behind; New returns an error
// for such a client, and for any other implementation of
// redis.UniversalClient, of which it cannot tell.
//
// New does not contact Redis: a Redis that is down at startup is a failure
// of the first calls, not of New.
func New(client redis.UniversalClient, l guard.Limits, opts ...Option) (*Limiter, error) {
	if client == nil {
		return nil, errors.New("redisguard: the Redis client is nil")
	}
	if err := honoursDeadlines(client); err != nil {
		return nil, err
	}
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("redisguard: %w", err)
	}
	if l.MaxQueued > 0 {
		return nil, errors.New("redisguard: calls beyond MaxActive are not queued; MaxQueued must be 0 or NoQueue")
	}
	cfg := config{prefix: defaultPrefix, timeout: defaultTimeout, slotTTL: defaultSlotTTL, afterFunc: afterFunc}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.timeout <= 0 {
		return nil, fmt.Errorf("redisguard: WithTimeout(%v); want a positive duration", cfg.timeout)
	}
	if cfg.slotTTL < time.Millisecond {
		return nil, fmt.Errorf("redisguard: slot TTL %v; want 1ms or more (Redis expires keys in milliseconds)", cfg.slotTTL)
	}
	if cfg.log == nil {
		cfg.log = slog.Default()
	}
	var interval, tolerance float64 // 0: no rate limit
	if l.Rate > 0 && l.Rate < maxRate {
		interval = min(1e6/l.Rate, maxInterval)
		tolerance = interval * float64(max(l.Burst, 1))
	}
	ttl := strconv.FormatInt(cfg.slotTTL.Microseconds(), 10)
	return &Limiter{
		epoch: time.Now(),
		c:     client,
		l:     l,
		cfg:   cfg,
		rated: interval > 0,
		args: [4]any{
			strconv.FormatFloat(interval, 'g', -1, 64),
			strconv.FormatFloat(tolerance, 'g', -1, 64),
			strconv.Itoa(l.MaxActive),
			ttl,
		},
		ttlArg: ttl,
	}, nil
}

// honoursDeadlines returns an error unless client stops a command at its
// context's deadline. go-redis does only with ContextTimeoutEnabled;
// without it a hung Redis holds a command for ReadTimeout (forever when it
// is -1).
func honoursDeadlines(client redis.UniversalClient) error {
	var on bool
	switch c := client.(type) {
	case *redis.Client:
		on = c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		on = c.Options().ContextTimeoutEnabled
	case *redis.Ring:
		on = c.Options().ContextTimeoutEnabled
	default:
		return fmt.Errorf("redisguard: the Redis client is a %T; want a *redis.Client, *redis.ClusterClient or *redis.Ring with ContextTimeoutEnabled, which stop at a call's deadline", client)
	}
	if !on {
		return errors.New("redisguard: the Redis client does not stop at a call's deadline; set ContextTimeoutEnabled in its options")
	}
	return nil
}

// noop is the release of a call that holds no slot in Redis.
func noop() {}

// Acquire admits one call of key, as [guard.Guard.Acquire] does, with one
// Redis round trip (none when l limits nothing). On success it returns a
// release function to call once the call is done; calling it again does
// nothing. On failure release is nil and te says why, in the same words as
// the in-process guard, so the model reads the same whatever backend
// refused:
//
//   - SERVER_BUSY when MaxActive calls of key run (on any replica): calls
//     are never queued;
//   - RATE_LIMITED above the rate, with retry_after the exact time until
//     the bucket admits one call;
//   - TIMEOUT or SERVER_BUSY when ctx ended before or during the call to
//     Redis;
//   - when Redis fails or does not answer within the timeout: admitted
//     (fail open, the default; release does nothing) or SERVER_BUSY saying
//     the limits are unavailable (fail closed).
//
// A call shed for concurrency takes no token of the rate limit; a call
// refused for the rate takes no slot.
func (l *Limiter) Acquire(ctx context.Context, key string) (release func(), te *envelope.ToolError) {
	if l.l.MaxActive == 0 && !l.rated {
		return noop, nil // no limit: nothing to ask Redis
	}
	if ctx.Err() != nil {
		return nil, refuse.Cancelled(ctx)
	}
	keys := l.keys(key)
	var holder string
	if l.l.MaxActive > 0 {
		holder = rand.Text() // 128 random bits: no two holders collide
	}
	var reply []int64
	sent := time.Now()
	err := l.call(ctx, func(ctx context.Context) (err error) {
		reply, err = acquireScript.Run(ctx, l.c, keys[:], l.args[0], l.args[1], l.args[2], l.args[3], holder, l.deadline(ctx)).Int64Slice()
		return err
	})
	if err == nil && len(reply) != 3 {
		err = errReply
	}
	if err == nil {
		l.learnClock(sent, time.Now(), reply[2])
		if reply[0] == 3 {
			err = errLate
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, refuse.Cancelled(ctx)
		}
		return l.failed(err)
	}
	switch reply[0] {
	case 0:
		if l.l.MaxActive == 0 {
			return noop, nil
		}
		return l.hold(keys[1], holder), nil
	case 1:
		return nil, refuse.Busy()
	case 2:
		return nil, refuse.RateLimited(time.Duration(max(reply[1], 1)) * time.Microsecond)
	}
	return l.failed(errReply)
}

// deadline returns the acquire script's deadline for a call whose Redis
// context is ctx: when its caller stops waiting, plus a margin, on Redis's
// clock; "0" (none) until the Limiter has seen that clock.
func (l *Limiter) deadline(ctx context.Context) string {
	d, ok := ctx.Deadline() // l.call always sets one
	if !ok || !l.offsetKnown.Load() {
		return "0"
	}
	local := d.Sub(l.epoch) + l.cfg.timeout/lateMargin
	return strconv.FormatInt(local.Microseconds()+l.offset.Load(), 10)
}

// learnClock records how far Redis's clock (redisNow, µs) is from the
// local one, taking the reply's time as the middle of the round trip from
// sent to received: off by at most half of it.
func (l *Limiter) learnClock(sent, received time.Time, redisNow int64) {
	mid := sent.Sub(l.epoch) + received.Sub(sent)/2
	l.offset.Store(redisNow - mid.Microseconds())
	l.offsetKnown.Store(true)
}

// keys returns the rate and active keys of key: prefix:{sha256(key)}:kind.
// The hash keeps keys, tokens and tool names out of Redis; the braces make
// the two keys one hash slot, so that the script may touch both on Redis
// Cluster.
func (l *Limiter) keys(key string) [2]string {
	sum := sha256.Sum256([]byte(key))
	base := l.cfg.prefix + ":{" + hex.EncodeToString(sum[:]) + "}:"
	return [2]string{base + "rate", base + "active"}
}

// failed answers a call whose Redis call failed, as configured, and logs
// the failure at most once a minute.
func (l *Limiter) failed(err error) (func(), *envelope.ToolError) {
	if l.cfg.failClosed {
		l.logf(slog.LevelError, "redisguard: Redis is unavailable; refusing calls until it answers (fail closed)", err)
		return nil, refuse.Unavailable()
	}
	l.logf(slog.LevelWarn, "redisguard: Redis is unavailable; admitting calls without limits until it answers (fail open)", err)
	return noop, nil
}

// logf logs msg and err (if any) unless a failure was logged less than a minute ago.
func (l *Limiter) logf(level slog.Level, msg string, err error) {
	now := time.Now().UnixNano()
	next := l.nextLog.Load()
	if now < next || !l.nextLog.CompareAndSwap(next, now+int64(logEvery)) {
		return
	}
	if err == nil {
		l.cfg.log.Log(context.Background(), level, msg)
		return
	}
	l.cfg.log.Log(context.Background(), level, msg, "err", err)
}

// call runs f with the Limiter's timeout, at which the client stops (see
// New): a hung Redis never hangs a tool call, nor leaves anything running.
func (l *Limiter) call(ctx context.Context, f func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, l.cfg.timeout)
	defer cancel()
	return f(ctx)
}
