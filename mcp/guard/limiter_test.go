package guard

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestLocalKeys: each key has its own limits.
func TestLocalKeys(t *testing.T) {
	lim, err := NewLimiter(Limits{MaxActive: 1, MaxQueued: NoQueue})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	lo := lim.(*local)
	var got []string
	var releases []func()
	for _, key := range []string{"a", "b", "a", "c", "b"} {
		release, te := lo.Acquire(ctx, key)
		if te != nil {
			got = append(got, key+":"+string(te.Code))
			continue
		}
		got = append(got, key+":ok")
		releases = append(releases, release)
	}
	if want := "[a:ok b:ok a:SERVER_BUSY c:ok b:SERVER_BUSY]"; fmt.Sprint(got) != want {
		t.Errorf("got %v, want %s", got, want)
	}
	releases[0]() // a's slot
	if release, te := lo.Acquire(ctx, "a"); te != nil {
		t.Errorf("a after release: %s", te.Code)
	} else {
		release()
	}
}

// TestLocalForgetsIdleKeys: past maxIdleGuards keys, the guards of idle
// keys are dropped; a busy key's guard, or one whose rate bucket is not
// full, is kept, so that no limit is forgotten.
func TestLocalForgetsIdleKeys(t *testing.T) {
	lim, err := NewLimiter(Limits{MaxActive: 1, MaxQueued: NoQueue, Rate: 1e-3, Burst: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	lo := lim.(*local)
	// "held" holds its slot; "spent" used a token (its bucket refills in
	// 1000 s); the others are made and never used.
	held, te := lo.Acquire(ctx, "held")
	if te != nil {
		t.Fatal(te)
	}
	release, te := lo.Acquire(ctx, "spent")
	if te != nil {
		t.Fatal(te)
	}
	release()
	for i := range maxIdleGuards - 2 {
		lo.guard(fmt.Sprint("idle", i))
	}
	if n := len(lo.m); n != maxIdleGuards {
		t.Fatalf("%d keys before the sweep, want %d", n, maxIdleGuards)
	}
	lo.guard("new") // sweeps
	var keys []string
	for k := range lo.m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := "[held new spent]"; fmt.Sprint(keys) != want {
		t.Errorf("keys after the sweep: %v, want %s", keys, want)
	}
	if _, te := lo.Acquire(ctx, "held"); te == nil {
		t.Errorf("held's slot was forgotten")
	}
	if release, te := lo.Acquire(ctx, "spent"); te != nil {
		t.Errorf("spent: %s; its one token left was forgotten", te.Code)
	} else {
		release()
	}
	if _, te := lo.Acquire(ctx, "spent"); te == nil || te.Code != "RATE_LIMITED" {
		t.Errorf("spent: a third call within 1000 s was not refused for the rate: %v", te)
	}
	held()
	if lo.sweepAt != maxIdleGuards {
		t.Errorf("next sweep at %d keys, want %d", lo.sweepAt, maxIdleGuards)
	}
}

func TestNewLimiterChecksLimits(t *testing.T) {
	if _, err := NewLimiter(Limits{MaxActive: -1}); err == nil || err.Error() != "guard: MaxActive is -1; want 0 (no limit) or more" {
		t.Errorf("err = %v", err)
	}
}
