package guard

import (
	"context"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/selfheal/selfheal/envelope"
)

// The exact envelopes the model reads.
const (
	busyXML = `<tool_error code="SERVER_BUSY" severity="error">
  <message>The server is busy: too many calls of this tool are running or waiting.</message>
  <recovery>Wait a few seconds, then call again. Send calls one at a time: wait for each result before the next call.</recovery>
</tool_error>`
	rate2sXML = `<tool_error code="RATE_LIMITED" severity="error">
  <message>Too many calls of this tool: the rate limit is reached.</message>
  <recovery>Wait for the time in retry_after, then call again. Do not retry before then, and send calls one at a time.</recovery>
  <retry_after>2 seconds</retry_after>
</tool_error>`
	timeoutXML = `<tool_error code="TIMEOUT" severity="error">
  <message>The call timed out while waiting for the server: too many calls of this tool were running.</message>
  <recovery>Wait a few seconds, then call again once. Send calls one at a time: wait for each result before the next call.</recovery>
</tool_error>`
	cancelXML = `<tool_error code="SERVER_BUSY" severity="error">
  <message>The call was cancelled while waiting for the server; it did not run.</message>
  <recovery>If the call is still needed, send it again, one call at a time.</recovery>
</tool_error>`
)

// queued returns a guard whose every queued waiter is announced on the
// returned channel, so tests step through waits without sleeping.
func queued(t *testing.T, l Limits) (*Guard, <-chan Stats) {
	t.Helper()
	g := New(l)
	ch := make(chan Stats, 64)
	g.hook = func(s Stats) { ch <- s }
	return g, ch
}

type result struct {
	id      int
	release func()
	te      *envelope.ToolError
}

// acquireAsync runs Acquire in a goroutine and delivers its result on out.
func acquireAsync(ctx context.Context, g *Guard, id int, out chan<- result) {
	go func() {
		rel, te := g.Acquire(ctx)
		out <- result{id, rel, te}
	}()
}

func mustAcquire(t *testing.T, g *Guard) func() {
	t.Helper()
	rel, te := g.Acquire(context.Background())
	if te != nil {
		t.Fatalf("Acquire: %s", te)
	}
	if rel == nil {
		t.Fatal("Acquire: nil release with nil error")
	}
	return rel
}

func wantXML(t *testing.T, te *envelope.ToolError, want string) {
	t.Helper()
	if te == nil {
		t.Fatal("Acquire succeeded; want an envelope")
	}
	if got := te.String(); got != want {
		t.Errorf("envelope:\n%s\nwant:\n%s", got, want)
	}
}

func wantStats(t *testing.T, g *Guard, want Stats) {
	t.Helper()
	if got := g.Stats(); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
}

func TestZeroLimitsAdmitAll(t *testing.T) {
	for _, g := range []*Guard{nil, New(Limits{})} {
		for range 1000 {
			mustAcquire(t, g) // never released: nothing is counted
		}
		wantStats(t, g, Stats{})
	}
}

func TestNoQueueSheds(t *testing.T) {
	g := New(Limits{MaxActive: 2, MaxQueued: NoQueue})
	r1 := mustAcquire(t, g)
	r2 := mustAcquire(t, g)
	rel, te := g.Acquire(context.Background())
	if rel != nil {
		t.Error("shed call got a release")
	}
	wantXML(t, te, busyXML)
	if !te.IsError() {
		t.Error("SERVER_BUSY is not an error")
	}
	wantStats(t, g, Stats{Active: 2})
	r1()
	r3 := mustAcquire(t, g)
	r2()
	r3()
	wantStats(t, g, Stats{})
}

func TestFIFO(t *testing.T) {
	const n = 16
	g, q := queued(t, Limits{MaxActive: 1})
	hold := mustAcquire(t, g)
	out := make(chan result)
	for i := range n {
		acquireAsync(context.Background(), g, i, out)
		if s := <-q; s != (Stats{Active: 1, Queued: i + 1}) {
			t.Fatalf("after queueing %d: %+v", i, s)
		}
	}
	hold()
	for i := range n {
		r := <-out
		if r.te != nil {
			t.Fatalf("waiter %d: %s", r.id, r.te)
		}
		if r.id != i {
			t.Fatalf("slot %d went to waiter %d; want arrival order", i, r.id)
		}
		wantStats(t, g, Stats{Active: 1, Queued: n - 1 - i})
		r.release()
	}
	wantStats(t, g, Stats{})
}

func TestShedAtMaxQueued(t *testing.T) {
	g, q := queued(t, Limits{MaxActive: 1, MaxQueued: 2})
	hold := mustAcquire(t, g)
	out := make(chan result, 2)
	acquireAsync(context.Background(), g, 1, out)
	<-q
	acquireAsync(context.Background(), g, 2, out)
	<-q
	_, te := g.Acquire(context.Background())
	wantXML(t, te, busyXML)
	wantStats(t, g, Stats{Active: 1, Queued: 2})

	// A freed queue place admits a waiter again.
	hold()
	r := <-out
	acquireAsync(context.Background(), g, 3, out)
	<-q
	wantStats(t, g, Stats{Active: 1, Queued: 2})
	r.release()
	(<-out).release()
	(<-out).release()
	wantStats(t, g, Stats{})
}

// ctlCtx is a context whose end the test controls, with the error it chooses.
type ctlCtx struct {
	context.Context
	done chan struct{}
	err  atomic.Value
}

func newCtl() *ctlCtx {
	return &ctlCtx{Context: context.Background(), done: make(chan struct{})}
}

func (c *ctlCtx) Done() <-chan struct{} { return c.done }

func (c *ctlCtx) Err() error {
	if v := c.err.Load(); v != nil {
		return v.(error)
	}
	return nil
}

func (c *ctlCtx) end(err error) { c.err.Store(err); close(c.done) }

func TestCancelledWaiterLeavesQueue(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{context.Canceled, cancelXML},
		{context.DeadlineExceeded, timeoutXML},
	} {
		t.Run(tc.err.Error(), func(t *testing.T) {
			g, q := queued(t, Limits{MaxActive: 1})
			hold := mustAcquire(t, g)
			ctx := newCtl()
			gone := make(chan result, 1)
			acquireAsync(ctx, g, 1, gone)
			<-q
			out := make(chan result, 1)
			acquireAsync(context.Background(), g, 2, out)
			<-q

			ctx.end(tc.err)
			r := <-gone
			if r.release != nil {
				t.Error("cancelled waiter got a release")
			}
			wantXML(t, r.te, tc.want)
			wantStats(t, g, Stats{Active: 1, Queued: 1})

			hold()
			r = <-out
			if r.te != nil || r.id != 2 {
				t.Fatalf("slot went to %d (%v); want the waiter still queued", r.id, r.te)
			}
			r.release()
			wantStats(t, g, Stats{})
		})
	}
}

func TestEndedContextDoesNotWait(t *testing.T) {
	g := New(Limits{MaxActive: 1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, te := g.Acquire(ctx)
	wantXML(t, te, cancelXML)
	ctx, cancel = context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	_, te = g.Acquire(ctx)
	wantXML(t, te, timeoutXML)
	wantStats(t, g, Stats{})
}

// TestGrantedAsCancelled hands a waiter its slot and ends its context before
// it looks at either. Whichever it picks, it must not keep a slot it reports
// failing for: afterwards nothing is active.
func TestGrantedAsCancelled(t *testing.T) {
	var won, lost int
	for range 200 {
		g := New(Limits{MaxActive: 1})
		hold := mustAcquire(t, g)
		ctx := newCtl()
		proceed := make(chan struct{})
		inQueue := make(chan struct{})
		g.hook = func(Stats) { close(inQueue); <-proceed }
		out := make(chan result, 1)
		acquireAsync(ctx, g, 1, out)
		<-inQueue
		ctx.end(context.Canceled)
		hold() // hands the slot to the waiter
		wantStats(t, g, Stats{Active: 1})
		close(proceed)
		r := <-out
		if r.te == nil {
			won++
			r.release()
		} else {
			lost++
		}
		wantStats(t, g, Stats{})
	}
	t.Logf("granted %d, cancelled %d", won, lost)
}

func TestReleaseIdempotent(t *testing.T) {
	g := New(Limits{MaxActive: 1, MaxQueued: NoQueue})
	rel := mustAcquire(t, g)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(rel)
	}
	wg.Wait()
	rel()
	wantStats(t, g, Stats{})
	r := mustAcquire(t, g)
	if _, te := g.Acquire(context.Background()); te == nil {
		t.Fatal("repeated releases freed more than one slot")
	}
	r()
	r()
	wantStats(t, g, Stats{})
}

// clock is a settable time for the rate limiter.
type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func withClock(g *Guard) *clock      { c := &clock{time.Unix(1_700_000_000, 0)}; g.now = c.now; return c }
func rateLimitedFor(te *envelope.ToolError) time.Duration {
	if te == nil || te.Code != envelope.RateLimited {
		return -1
	}
	return te.RetryAfter
}

func TestRate(t *testing.T) {
	g := New(Limits{Rate: 0.5}) // one call every 2 s, burst 1
	c := withClock(g)
	mustAcquire(t, g)
	rel, te := g.Acquire(context.Background())
	if rel != nil {
		t.Error("rate-limited call got a release")
	}
	wantXML(t, te, rate2sXML)
	if d := rateLimitedFor(te); d != 2*time.Second {
		t.Errorf("RetryAfter = %v, want 2s", d)
	}
	c.add(500 * time.Millisecond)
	_, te = g.Acquire(context.Background())
	if d := rateLimitedFor(te); d != 1500*time.Millisecond {
		t.Errorf("RetryAfter = %v, want 1.5s", d)
	}
	if !strings.Contains(te.String(), "<retry_after>1.5 seconds</retry_after>") {
		t.Errorf("1.5 s is not written as it is:\n%s", te)
	}
	// Refused calls took no token: the wait is what the first call left.
	c.add(1500 * time.Millisecond)
	mustAcquire(t, g)
}

// retry_after is the real time until the bucket admits a call, never a
// second when it is less.
func TestRetryAfterText(t *testing.T) {
	for _, tc := range []struct {
		rate    float64
		elapsed time.Duration // after the bucket was emptied
		want    string
	}{
		{10, 0, "<retry_after>0.1 seconds</retry_after>"},
		{10, 37 * time.Millisecond, "<retry_after>0.063 seconds</retry_after>"},
		{10, 99*time.Millisecond + 999*time.Microsecond, "<retry_after>0.001 seconds</retry_after>"},
		{1000, 0, "<retry_after>0.001 seconds</retry_after>"},
		{3, 0, "<retry_after>0.334 seconds</retry_after>"}, // 333.33 ms, rounded up
		{0.5, 0, "<retry_after>2 seconds</retry_after>"},
		{0.5, 600 * time.Millisecond, "<retry_after>1.4 seconds</retry_after>"},
		{1.0 / 30, 0, "<retry_after>30 seconds</retry_after>"},
		{1.0 / 30, 100 * time.Millisecond, "<retry_after>30 seconds</retry_after>"}, // whole seconds from 10 on
	} {
		g := New(Limits{Rate: tc.rate, Burst: 1})
		c := withClock(g)
		mustAcquire(t, g)
		c.add(tc.elapsed)
		_, te := g.Acquire(context.Background())
		if te == nil || !strings.Contains(te.String(), tc.want) {
			t.Errorf("rate %v, %v after the last call: %v; want %s", tc.rate, tc.elapsed, te, tc.want)
		}
	}
}

func TestRateBurst(t *testing.T) {
	g := New(Limits{Rate: 4, Burst: 3})
	c := withClock(g)
	for range 3 {
		mustAcquire(t, g)
	}
	_, te := g.Acquire(context.Background())
	if d := rateLimitedFor(te); d != 250*time.Millisecond {
		t.Fatalf("RetryAfter = %v, want 250ms", d)
	}
	if !strings.Contains(te.String(), "<retry_after>0.25 seconds</retry_after>") {
		t.Errorf("250 ms is not written as 0.25 seconds:\n%s", te)
	}
	c.add(time.Second)
	for range 3 { // the bucket refills to Burst, no further
		mustAcquire(t, g)
	}
	if _, te := g.Acquire(context.Background()); te == nil {
		t.Error("bucket held more than Burst")
	}
}

// A call shed for concurrency takes no token, and a rate-limited call takes
// no slot.
func TestRateAndConcurrency(t *testing.T) {
	g := New(Limits{MaxActive: 1, MaxQueued: NoQueue, Rate: 1, Burst: 2})
	withClock(g)
	r1 := mustAcquire(t, g) // token 1
	_, te := g.Acquire(context.Background())
	wantXML(t, te, busyXML)
	r1()
	r2 := mustAcquire(t, g) // token 2, still available
	r2()
	_, te = g.Acquire(context.Background())
	if d := rateLimitedFor(te); d != time.Second {
		t.Fatalf("got %v; want RATE_LIMITED after 1s", te)
	}
	wantStats(t, g, Stats{})
}

func TestInfiniteRateIsNoLimit(t *testing.T) {
	g := New(Limits{Rate: math.Inf(1)})
	for range 100 {
		mustAcquire(t, g)
	}
}

func TestLimitsValidate(t *testing.T) {
	for _, tc := range []struct {
		l    Limits
		want string
	}{
		{Limits{MaxActive: -1}, "guard: MaxActive is -1; want 0 (no limit) or more"},
		{Limits{MaxQueued: -2}, "guard: MaxQueued is -2; want 0 (unbounded), a positive bound or NoQueue (-1)"},
		{Limits{Rate: -0.5}, "guard: Rate is -0.5; want 0 (no limit) or a positive number of calls per second"},
		{Limits{Burst: -3}, "guard: Burst is -3; want 0 (meaning 1) or more"},
	} {
		if err := tc.l.Validate(); err == nil || err.Error() != tc.want {
			t.Errorf("%+v.Validate() = %v; want %q", tc.l, err, tc.want)
		}
		func() {
			defer func() {
				if v := recover(); v == nil || v.(error).Error() != tc.want {
					t.Errorf("New(%+v) panicked with %v; want %q", tc.l, v, tc.want)
				}
			}()
			New(tc.l)
		}()
	}
	if err := (Limits{MaxActive: 3, MaxQueued: NoQueue, Rate: 2, Burst: 5}).Validate(); err != nil {
		t.Error(err)
	}
}

// TestStress runs many goroutines through a small guard and checks that no
// more than MaxActive ever run at once and that everything is returned.
func TestStress(t *testing.T) {
	const maxActive, workers, calls = 3, 32, 200
	g := New(Limits{MaxActive: maxActive, MaxQueued: 8})
	var running, peak, ok, shed, cancelled atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range calls {
				ctx, cancel := context.WithCancel(context.Background())
				if (w+i)%7 == 0 {
					cancel() // some callers give up at once
				}
				rel, te := g.Acquire(ctx)
				cancel()
				switch {
				case te == nil:
					n := running.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					ok.Add(1)
					running.Add(-1)
					rel()
				case te.Code == envelope.ServerBusy && strings.Contains(te.Message, "cancelled"):
					cancelled.Add(1)
				case te.Code == envelope.ServerBusy:
					shed.Add(1)
				default:
					t.Errorf("unexpected envelope %s", te)
				}
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p > maxActive {
		t.Errorf("%d calls ran at once; MaxActive is %d", p, maxActive)
	}
	if n := ok.Load() + shed.Load() + cancelled.Load(); n != workers*calls {
		t.Errorf("accounted for %d calls, want %d", n, workers*calls)
	}
	wantStats(t, g, Stats{})
	t.Logf("ok %d, shed %d, cancelled %d, peak %d", ok.Load(), shed.Load(), cancelled.Load(), peak.Load())
}
