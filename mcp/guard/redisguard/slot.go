package redisguard

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
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
// does anything. If Redis cannot be reached the release is sent again
// until it can (see unreleased).
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
		s.l.logf(slog.LevelWarn, "redisguard: Redis is unavailable; a released slot is released again when it answers", err)
		s.l.unreleased.add(s.l, s.key, s.holder)
	}
}

// maxUnreleased bounds the slots a Limiter remembers to release again: at
// about 150 bytes each, 1.5 MB. Past it, the oldest is forgotten and comes
// back when its TTL ends, as it would have without the retry.
const maxUnreleased = 10000

// retryEvery is how often releases that did not reach Redis are tried
// again while some wait: after an outage the slots come back within it.
const retryEvery = 250 * time.Millisecond

// unreleased is the slots whose release did not reach Redis, released
// again, in one pipeline, every retryEvery until Redis answers. Without
// it a replica that lost Redis for a moment would keep its slots taken
// for their whole TTL, and every replica would refuse the key meanwhile.
type unreleased struct {
	mu      sync.Mutex
	slots   []heldSlot
	pending bool // a retry is scheduled
}

type heldSlot struct {
	key, holder string
	until       time.Time // its TTL ends: Redis drops it itself
}

// add remembers the slot of holder under key and schedules a retry.
func (u *unreleased) add(l *Limiter, key, holder string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.slots) == maxUnreleased {
		u.slots = append(u.slots[:0], u.slots[1:]...)
	}
	u.slots = append(u.slots, heldSlot{key, holder, time.Now().Add(l.cfg.slotTTL)})
	u.schedule(l)
}

// schedule starts the retry timer unless one runs. u.mu is held.
func (u *unreleased) schedule(l *Limiter) {
	if !u.pending && len(u.slots) > 0 {
		u.pending = true
		l.cfg.afterFunc(retryEvery, func() { u.retry(l) })
	}
}

// retry releases every remembered slot whose TTL has not ended, in one
// round trip; those Redis did not take wait for the next retry.
func (u *unreleased) retry(l *Limiter) {
	u.mu.Lock()
	now := time.Now()
	var due []heldSlot
	for _, s := range u.slots {
		if now.Before(s.until) {
			due = append(due, s)
		}
	}
	u.slots = nil
	u.mu.Unlock()

	var err error
	if len(due) > 0 {
		err = l.call(context.Background(), func(ctx context.Context) error {
			_, err := l.c.Pipelined(ctx, func(p redis.Pipeliner) error {
				for _, s := range due {
					p.ZRem(ctx, s.key, s.holder)
				}
				return nil
			})
			return err
		})
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.pending = false
	if err != nil {
		// Kept before those added meanwhile, oldest first.
		u.slots = append(due, u.slots...)
		if n := len(u.slots) - maxUnreleased; n > 0 {
			u.slots = u.slots[n:]
		}
	}
	u.schedule(l)
}
