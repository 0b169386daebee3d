package guard

import (
	"container/list"
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/guard/internal/refuse"
)

// NoQueue, as Limits.MaxQueued, makes a guard shed a call at once when every
// slot is taken instead of queueing it.
const NoQueue = -1

// Limits are the bounds one guard enforces, usually for one tool. A zero
// field means no limit in that dimension, so the zero Limits admits every
// call at once.
type Limits struct {
	// MaxActive is how many calls may run at the same time; 0 means any
	// number.
	MaxActive int
	// MaxQueued is how many calls may wait, in arrival order, for a slot
	// when MaxActive are running; a call beyond it is shed with SERVER_BUSY.
	// 0 means the queue is unbounded (a waiting call gives up only when its
	// context ends); NoQueue means calls are never queued. It has no effect
	// when MaxActive is 0.
	MaxQueued int
	// Rate is how many calls per second are admitted on average (a token
	// bucket); a call above it is answered RATE_LIMITED with a retry_after.
	// 0 (or +Inf) means no rate limit.
	Rate float64
	// Burst is how many calls may be admitted at once above Rate, the size
	// of the token bucket. 0 means 1. It has no effect when Rate is 0.
	Burst int
}

// Validate reports the first limit that is out of range: a negative
// MaxActive or Burst, a MaxQueued below NoQueue, a negative or NaN Rate.
func (l Limits) Validate() error {
	switch {
	case l.MaxActive < 0:
		return fmt.Errorf("guard: MaxActive is %d; want 0 (no limit) or more", l.MaxActive)
	case l.MaxQueued < NoQueue:
		return fmt.Errorf("guard: MaxQueued is %d; want 0 (unbounded), a positive bound or NoQueue (-1)", l.MaxQueued)
	case l.Rate < 0 || math.IsNaN(l.Rate):
		return fmt.Errorf("guard: Rate is %v; want 0 (no limit) or a positive number of calls per second", l.Rate)
	case l.Burst < 0:
		return fmt.Errorf("guard: Burst is %d; want 0 (meaning 1) or more", l.Burst)
	}
	return nil
}

// Guard admits calls within its Limits. It is safe for concurrent use; share
// one Guard among all the calls it bounds (one per tool, or one for a group
// of tools). A nil *Guard admits every call.
type Guard struct {
	l       Limits
	limiter *rate.Limiter // nil: no rate limit
	now     func() time.Time

	mu     sync.Mutex
	active int         // calls holding a slot
	queue  list.List   // of *waiter, oldest first
	hook   func(Stats) // tests: called after a waiter is queued, before it waits
}

// waiter is one call waiting for a slot.
type waiter struct {
	ready   chan struct{} // closed when the slot is handed over
	granted bool          // under Guard.mu: the slot is this waiter's
	elem    *list.Element // its place in the queue while not granted
}

// Stats is a snapshot of a guard's load.
type Stats struct {
	Active int // calls holding a slot
	Queued int // calls waiting for one
}

// New returns a guard enforcing l. It panics with a message naming the bad
// field when l is out of range: limits are set up by the developer, at
// startup. Check limits read from configuration with [Limits.Validate]
// first.
func New(l Limits) *Guard {
	if err := l.Validate(); err != nil {
		panic(err)
	}
	g := &Guard{l: l, now: time.Now}
	if l.Rate > 0 && !math.IsInf(l.Rate, 1) {
		g.limiter = rate.NewLimiter(rate.Limit(l.Rate), max(l.Burst, 1))
	}
	return g
}

// Stats returns how many calls hold a slot and how many wait for one now.
func (g *Guard) Stats() Stats {
	if g == nil {
		return Stats{}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return Stats{Active: g.active, Queued: g.queue.Len()}
}

// noop is the release of a call that holds no slot.
func noop() {}

// Acquire admits one call, waiting in first-in first-out order for a slot
// when MaxActive calls are running. On success it returns a release function
// that the caller must call once the call is done (typically deferred);
// calling it again does nothing. On failure release is nil and te says why,
// worded for the model:
//
//   - SERVER_BUSY when the queue is full (or the guard never queues): the
//     recovery tells the model to wait and send its calls one at a time;
//   - RATE_LIMITED when the call is above the rate, with retry_after the
//     time until the token bucket admits one call ("0.1 seconds" at ten
//     calls a second: rounded up to the millisecond below 10 seconds, to
//     the second from there);
//   - when ctx ends before a slot frees up: TIMEOUT for a deadline,
//     SERVER_BUSY saying the call did not run for a cancellation. A
//     cancelled waiter leaves the queue and never holds a slot.
//
// A call that is shed or rate-limited neither waits nor uses up a token of
// the rate limit; a call that is queued has used one. The envelopes hold no
// value of the call, the caller or the guard's configuration.
func (g *Guard) Acquire(ctx context.Context) (release func(), te *envelope.ToolError) {
	if g == nil {
		return noop, nil
	}
	if g.l.MaxActive == 0 {
		if g.limiter != nil {
			if te := g.takeToken(); te != nil {
				return nil, te
			}
		}
		return noop, nil
	}
	if ctx.Err() != nil {
		return nil, refuse.Cancelled(ctx)
	}

	g.mu.Lock()
	if g.active < g.l.MaxActive && g.queue.Len() == 0 {
		if te := g.takeToken(); te != nil {
			g.mu.Unlock()
			return nil, te
		}
		g.active++
		g.mu.Unlock()
		return g.releaser(), nil
	}
	if g.l.MaxQueued == NoQueue || (g.l.MaxQueued > 0 && g.queue.Len() >= g.l.MaxQueued) {
		g.mu.Unlock()
		return nil, refuse.Busy()
	}
	if te := g.takeToken(); te != nil {
		g.mu.Unlock()
		return nil, te
	}
	w := &waiter{ready: make(chan struct{})}
	w.elem = g.queue.PushBack(w)
	st := Stats{Active: g.active, Queued: g.queue.Len()}
	g.mu.Unlock()
	if g.hook != nil {
		g.hook(st)
	}

	select {
	case <-w.ready:
		return g.releaser(), nil
	case <-ctx.Done():
	}
	g.mu.Lock()
	if !w.granted {
		g.queue.Remove(w.elem)
		g.mu.Unlock()
		return nil, refuse.Cancelled(ctx)
	}
	g.mu.Unlock()
	// The slot was handed over as the context ended: pass it on, so that
	// a call that gave up never holds one.
	g.release()
	return nil, refuse.Cancelled(ctx)
}

// takeToken takes one token from the rate limiter, or says how long to wait
// for one. It does not block.
func (g *Guard) takeToken() *envelope.ToolError {
	if g.limiter == nil {
		return nil
	}
	now := g.now()
	if g.limiter.AllowN(now, 1) {
		return nil
	}
	// Reserve to learn the exact wait, then give the token back: the call
	// is answered now, not delayed.
	r := g.limiter.ReserveN(now, 1)
	d := r.DelayFrom(now)
	r.CancelAt(now)
	if d <= 0 { // the bucket refilled in between
		if g.limiter.AllowN(now, 1) {
			return nil
		}
		// Other calls took and gave back tokens meanwhile: one token's
		// time is the wait's scale, where a second would be a guess.
		d = time.Duration(float64(time.Second) / g.l.Rate)
	}
	return refuse.RateLimited(d)
}

// releaser returns an idempotent release of one slot.
func (g *Guard) releaser() func() {
	var done atomic.Bool
	return func() {
		if done.CompareAndSwap(false, true) {
			g.release()
		}
	}
}

// release frees one slot: it goes to the oldest waiter, if any.
func (g *Guard) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if e := g.queue.Front(); e != nil {
		w := g.queue.Remove(e).(*waiter)
		w.granted = true
		close(w.ready)
		return // the slot changes hands; active is unchanged
	}
	g.active--
}
