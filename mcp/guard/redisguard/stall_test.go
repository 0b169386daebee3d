package redisguard_test

import (
	"context"
	"flag"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/selfheal/selfheal/internal/testkit/redistest"
	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/guard/redisguard"
)

// Redis frozen (SIGSTOP) for a moment under load, failing open: the
// calls made meanwhile are admitted unchecked, but their scripts wait in
// Redis's socket buffers and run when it wakes up. Each took a slot that
// nobody holds, so for the slots' TTL (30 s) every call of the key was
// refused SERVER_BUSY, on every replica. A script that reaches Redis after
// its caller stopped waiting takes nothing, so the key is free as soon as
// Redis is back.
func TestStallLeavesNoSlot(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	const wait = 200 * time.Millisecond
	lim := newLimiter(t, c, guard.Limits{MaxActive: 1, Rate: 1000}, redisguard.WithTimeout(wait))
	ctx := context.Background()

	// Under load a client has connections open, and a call sent on one
	// reaches Redis's buffer at once (a new connection would wait for
	// its handshake's answer, and send nothing): four calls at once
	// leave four.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { c.Do(ctx, "DEBUG", "SLEEP", "0.02") })
	}
	wg.Wait()
	if n := c.PoolStats().IdleConns; n < 3 {
		t.Fatalf("%d idle connections; want 3 or more", n)
	}
	release, te := acquire(t, lim, ctx, "k") // a call before the stall
	if te != nil {
		t.Fatalf("before the stall: %s", te)
	}
	srv.Pause()
	resumed := false
	t.Cleanup(func() {
		if !resumed {
			srv.Resume()
		}
	})
	within(t, "release during the stall", release) // its ZREM waits in Redis's buffer too
	var got []string
	for range 3 {
		r, te := acquire(t, lim, ctx, "k")
		got = append(got, outcome(te))
		if r != nil {
			r()
		}
	}
	if strings.Join(got, " ") != "ok ok ok" {
		t.Fatalf("during the stall, failing open: %v; want ok ok ok", got)
	}
	// One more call that times out, of another key: the last call of "k"
	// is then over its deadline by a whole timeout when Redis wakes up.
	acquire(t, lim, ctx, "other")
	srv.Resume()
	resumed = true
	// Redis runs what waited in its buffers in its first turn; a round
	// trip on a connection of its own comes after.
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for range 2 {
		_, te := acquire(t, lim, ctx, "k") // not released
		got = append(got, outcome(te))
	}
	if strings.Join(got, " ") != "ok SERVER_BUSY" {
		t.Errorf("after the stall: %v; want [ok SERVER_BUSY] (the key free, its limit enforced)", got)
	}
	if n := c.ZCard(ctx, activeKey("selfheal", "k")).Val(); n != 1 {
		t.Errorf("%d slots of k in Redis; want 1, the call admitted after the stall", n)
	}
}

// A release that Redis refuses (here its user may not run ZREM for a
// moment; a partition or a restart with persistence do the same) is
// released again once Redis answers, not left taken for the slot's TTL.
func TestReleaseRetried(t *testing.T) {
	addr := redistest.Start(t)
	c := newClient(t, addr)
	var timers redisguard.Refreshes
	lim := newLimiter(t, c, guard.Limits{MaxActive: 1}, redisguard.WithRefreshes(&timers))
	ctx := context.Background()
	acl := func(rule string) {
		t.Helper()
		if err := c.Do(ctx, "ACL", "SETUSER", "default", rule).Err(); err != nil {
			t.Fatal(err)
		}
	}

	release, te := acquire(t, lim, ctx, "k")
	if te != nil {
		t.Fatal(te)
	}
	acl("-zrem")
	t.Cleanup(func() { acl("+zrem") })
	within(t, "release", release)
	if _, te := acquire(t, lim, ctx, "k"); outcome(te) != "SERVER_BUSY" {
		t.Fatalf("after a release Redis refused: %v; want SERVER_BUSY (the slot is still taken)", te)
	}
	timers.Run() // a retry while Redis still refuses: kept for the next
	if _, te := acquire(t, lim, ctx, "k"); outcome(te) != "SERVER_BUSY" {
		t.Fatalf("after a failed retry: %v; want SERVER_BUSY", te)
	}
	acl("+zrem")
	if got := timers.Run(); len(got) != 1 {
		t.Fatalf("%d timers due; want one retry", len(got))
	}
	release, te = acquire(t, lim, ctx, "k")
	if te != nil {
		t.Fatalf("after the retry reached Redis: %s; want the call admitted", te)
	}
	within(t, "release", release)
	if got := timers.Run(); len(got) != 0 {
		t.Errorf("%d timers due after the retry succeeded; want none", len(got))
	}
}

var stallFigure = flag.Bool("stall-figure", false, "measure the recovery after a 4 s Redis stall under load (README figure)")

// TestStallRecoveryFigure measures, for the README, how long after a 4 s
// stall of Redis a key is admitted again: two replicas (MaxActive 2,
// failing open) with 8 callers each, calls of 5 ms, stopped as Redis
// wakes up; then one call every 10 ms until Redis admits one. Run it with
//
//	go test -run TestStallRecoveryFigure -v ./mcp/guard/redisguard -args -stall-figure
func TestStallRecoveryFigure(t *testing.T) {
	if !*stallFigure {
		t.Skip("a figure, not a test: -stall-figure runs it")
	}
	srv := redistest.StartServer(t)
	var lims []*redisguard.Limiter
	for range 2 {
		c := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true})
		t.Cleanup(func() { c.Close() })
		lims = append(lims, newLimiter(t, c, guard.Limits{MaxActive: 2}))
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, lim := range lims {
		for range 8 {
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					release, te := lim.Acquire(context.Background(), "tool")
					if te != nil {
						time.Sleep(time.Millisecond) // a client's pause between refused calls
						continue
					}
					time.Sleep(5 * time.Millisecond) // the call
					release()
				}
			})
		}
	}
	time.Sleep(time.Second) // under load
	srv.Pause()
	time.Sleep(4 * time.Second)
	close(stop)
	srv.Resume()
	resumed := time.Now()
	wg.Wait()
	probe := newLimiter(t, newClient(t, srv.Addr), guard.Limits{MaxActive: 2})
	for time.Since(resumed) < 40*time.Second {
		release, te := probe.Acquire(context.Background(), "tool")
		if te == nil {
			release()
			t.Logf("the key admitted a call again %v after Redis woke up from a 4 s stall", time.Since(resumed).Round(time.Millisecond))
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the key still refused calls 40 s after Redis woke up")
}
