package redisguard

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// slot is one concurrency slot held in Redis, from an admitted Acquire to
// its release. While held, a timer pushes its expiry back every third of
// the slot TTL: no goroutine waits in between, and release stops the timer.
type slot struct {
	l      *Limiter
	key    string // the active key
	holder string

	mu       sync.Mutex
	timer    timer
	released bool
}

// hold starts refreshing the slot of holder under key and returns its
// release.
func (l *Limiter) hold(key, holder string) func() {
	s := &slot{l: l, key: key, holder: holder}
	s.mu.Lock() // the timer may fire before it is stored
	s.timer = l.cfg.afterFunc(l.refreshEvery(), s.refresh)
	s.mu.Unlock()
	return s.release
}

// refreshEvery is the period of a held slot's refresh: a third of the TTL
// leaves two more tries before the slot expires when one fails.
func (l *Limiter) refreshEvery() time.Duration { return l.cfg.slotTTL / 3 }

// refresh pushes back the slot's expiry and schedules the next refresh,
// unless the slot was released or is gone from Redis.
func (s *slot) refresh() {
	var held int64
	err := s.l.call(context.Background(), func(ctx context.Context) (err error) {
		held, err = refreshScript.Run(ctx, s.l.c, []string{s.key}, s.l.ttlArg, s.holder).Int64()
		return err
	})
	switch {
	case err != nil: // try again next time: Redis may be back before the slot expires
		s.l.logf(slog.LevelWarn, "redisguard: Redis is unavailable; held slots expire after their TTL unless it answers", err)
	case held == 0:
		// The slot expired (Redis was unreachable for a whole TTL, or
		// the process stalled) and another call may have taken it: for
		// the rest of this call, MaxActive may be exceeded by one.
		s.l.logf(slog.LevelWarn, "redisguard: a held slot expired before its refresh; it is not renewed", nil)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.released {
		s.timer.Reset(s.l.refreshEvery())
	}
}

// release frees the slot at once for every replica; only the first call
// does anything. If Redis cannot be reached the slot comes back when it
// expires.
func (s *slot) release() {
	s.mu.Lock()
	if s.released {
		s.mu.Unlock()
		return
	}
	s.released = true
	s.timer.Stop()
	s.mu.Unlock()
	// A refresh running now cannot bring the slot back: it renews only a
	// slot that is still in the set.
	err := s.l.call(context.Background(), func(ctx context.Context) error {
		return s.l.c.ZRem(ctx, s.key, s.holder).Err()
	})
	if err != nil {
		s.l.logf(slog.LevelWarn, "redisguard: Redis is unavailable; a released slot comes back when its TTL ends", err)
	}
}
