package redisguard

import (
	"sync"
	"time"
)

// WithSlotTTL lets the tests shorten the slots' TTL (see withSlotTTL).
var WithSlotTTL = withSlotTTL

// Refreshes stands in for the timers of a Limiter's held slots: a refresh
// runs when the test calls Run, never by itself, so that a test of slot
// renewal waits for no clock.
type Refreshes struct {
	mu     sync.Mutex
	timers []*manualTimer
}

// WithRefreshes makes the Limiter's held slots schedule their refreshes on
// r.
func WithRefreshes(r *Refreshes) Option {
	return func(c *config) { c.afterFunc = r.afterFunc }
}

func (r *Refreshes) afterFunc(d time.Duration, f func()) timer {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := &manualTimer{r: r, f: f, every: d, armed: true}
	r.timers = append(r.timers, t)
	return t
}

// Run runs, one after another, the refresh of every held slot whose timer
// is armed, as if its period had passed, and returns the periods they
// were armed with (a refresh that reschedules itself is armed again, for
// the next Run).
func (r *Refreshes) Run() []time.Duration {
	r.mu.Lock()
	var due []*manualTimer
	var periods []time.Duration
	for _, t := range r.timers {
		if t.armed {
			t.armed = false
			due = append(due, t)
			periods = append(periods, t.every)
		}
	}
	r.mu.Unlock()
	for _, t := range due {
		t.f()
	}
	return periods
}

// manualTimer is one slot's timer on Refreshes.
type manualTimer struct {
	r     *Refreshes
	f     func()
	every time.Duration
	armed bool
}

func (t *manualTimer) Reset(d time.Duration) bool {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	was := t.armed
	t.armed, t.every = true, d
	return was
}

func (t *manualTimer) Stop() bool {
	t.r.mu.Lock()
	defer t.r.mu.Unlock()
	was := t.armed
	t.armed = false
	return was
}
