package guard

import (
	"context"
	"math"
	"sync"

	"github.com/selfheal/selfheal/envelope"
)

// Limiter admits calls under keys, each key with its own limits: the calls
// of one tool, of one tool by one session, of one tool for one API key.
// Where its counters live is the implementation's business: [NewLimiter]'s
// keeps them in this process, mcp/guard/redisguard in Redis, shared by every
// replica of a server. Acquire is [Guard.Acquire] for the calls of key;
// implementations must be safe for concurrent use, and their refusals are
// the same fixed tool_errors as a Guard's.
//
// Keys are chosen by the caller and may be anything; an implementation
// that stores them outside the process must not store them in clear.
type Limiter interface {
	Acquire(ctx context.Context, key string) (release func(), te *envelope.ToolError)
}

// maxIdleGuards is how many keys a local limiter keeps before it drops the guards
// of the idle ones.
const maxIdleGuards = 4096

// local is the [Limiter] of NewLimiter.
type local struct {
	l  Limits
	mu sync.Mutex
	m  map[string]*Guard
	// sweepAt is the number of keys at which idle guards are dropped next.
	sweepAt int
}

// NewLimiter returns a [Limiter] that keeps its counters in this process,
// enforcing l for each key, or the error of [Limits.Validate]: one [Guard]
// with limits l per key, made on the key's first call. A guard whose key is
// idle (no call holding a slot or waiting, its rate bucket full) is dropped
// once there are many keys, so that keys made of session ids or callers do
// not grow memory without bound.
func NewLimiter(l Limits) (Limiter, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	return &local{l: l, m: map[string]*Guard{}, sweepAt: maxIdleGuards}, nil
}

// Acquire admits one call of key, as [Guard.Acquire] does.
func (lo *local) Acquire(ctx context.Context, key string) (release func(), te *envelope.ToolError) {
	return lo.guard(key).Acquire(ctx)
}

// guard returns the guard of key, made on its first call.
func (lo *local) guard(key string) *Guard {
	lo.mu.Lock()
	defer lo.mu.Unlock()
	g := lo.m[key]
	if g != nil {
		return g
	}
	if len(lo.m) >= lo.sweepAt {
		lo.sweep()
	}
	g = New(lo.l) // the limits were checked by NewLimiter
	lo.m[key] = g
	return g
}

// sweep drops the guards of idle keys; lo.mu is held. The next sweep comes
// when the keys left have doubled, so that sweeping stays linear overall.
func (lo *local) sweep() {
	for k, g := range lo.m {
		if g.idle() {
			delete(lo.m, k)
		}
	}
	lo.sweepAt = max(2*len(lo.m), maxIdleGuards)
}

// idle reports whether dropping g would change nothing a later call sees:
// no call holds a slot or waits, and its rate bucket is full.
func (g *Guard) idle() bool {
	g.mu.Lock()
	busy := g.active > 0 || g.queue.Len() > 0
	g.mu.Unlock()
	if busy {
		return false
	}
	if g.limiter == nil {
		return true
	}
	return g.limiter.TokensAt(g.now()) >= float64(g.limiter.Burst())-1e-9 || math.IsInf(float64(g.limiter.Limit()), 1)
}
