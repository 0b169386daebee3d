package proxy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// toolGuard is one tool's guard in a session (WithGuard).
type toolGuard struct {
	g *guard.Guard
	// l are the limits g enforces.
	l guard.Limits
	// waiting counts the calls of the tool waiting for a slot, each in a
	// goroutine of its own (see wait); under session.mu.
	waiting int
}

// queuedCall is a call waiting for a slot, by its id in session.queued.
type queuedCall struct {
	cancel context.CancelFunc
	// cancelled: the client cancelled the call; under session.mu.
	cancelled bool
}

// guardOf returns the guard of the named tool, made on its first call.
// s.mu is held.
func (s *session) guardOf(name string) *toolGuard {
	tg := s.guards[name]
	if tg == nil {
		tg = &toolGuard{g: guard.New(*s.p.cfg.limits), l: *s.p.cfg.limits} // the limits were checked by New
		s.guards[name] = tg
	}
	return tg
}

// mustWait reports whether a call arriving now would wait in the guard's
// queue. When it does not, guard.Acquire admits or refuses the call at
// once: only this session acquires the guard's slots, and only from the
// client's goroutine and from the goroutines of waiting calls, of which
// there are none (waiting is 0), so nothing can take a free slot in
// between. s.mu is held.
func (tg *toolGuard) mustWait() bool {
	l := tg.l
	if l.MaxActive == 0 || l.MaxQueued == guard.NoQueue {
		return false // never queued: admitted or refused at once
	}
	if tg.waiting > 0 {
		return true // behind the calls already waiting
	}
	return tg.g.Stats().Active >= l.MaxActive
}

// guarded passes a valid call of t through its guard. A call admitted at
// once is forwarded now, one refused is answered now; a call that must
// wait for a slot waits in a goroutine of its own (see wait), so that the
// messages behind it (a response the server waits for, a cancellation) are
// not held back: they may reach the server before it.
// explained says that the call is forwarded with issues: it is reported
// when its response comes (see explain), not when it is forwarded.
func (s *session) guarded(line []byte, a answerTo, key string, t *tool, start time.Time, explained bool) error {
	if lim := s.limiter; lim != nil {
		// A shared limiter never queues for long (see guard.Limiter): the
		// call is admitted or refused here, in order. What the batch holds
		// goes first: it must not wait on the limiter's store.
		s.flushServer()
		release, te := lim.Acquire(s.ctx, limiterKey(t.name, s.limitBy))
		if te != nil {
			s.explained(key) // answered here: no response will come
			return s.answerToolError(a, t, te, start)
		}
		s.hold(key, release)
		err := s.writeServer(line)
		if !explained {
			s.p.observe(Event{Tool: t.name, Duration: time.Since(start), session: s.key})
		}
		return err
	}
	s.mu.Lock()
	tg := s.guardOf(t.name)
	if tg.mustWait() {
		tg.waiting++
		ctx, cancel := context.WithCancel(s.ctx)
		q := &queuedCall{cancel: cancel}
		s.queued[key] = q
		s.mu.Unlock()
		s.waiters.Add(1)
		go s.wait(ctx, tg, q, bytes.Clone(line), answerTo{id: bytes.Clone(a.id), stateless: a.stateless}, key, t, explained) // line is valid until the next read
		return nil
	}
	s.mu.Unlock()
	release, te := tg.g.Acquire(s.ctx)
	if te != nil {
		s.explained(key)
		return s.answerToolError(a, t, te, start)
	}
	if tg.l.MaxActive > 0 { // else release does nothing
		s.hold(key, release)
	}
	err := s.writeServer(line)
	if !explained {
		s.p.observe(Event{Tool: t.name, Duration: time.Since(start), session: s.key})
	}
	return err
}

// wait waits for a slot for a queued call, then forwards it; or answers it
// with the guard's tool_error (the queue filled up, the rate limit); or
// drops it, unanswered, when the client cancelled it or Serve returned.
func (s *session) wait(ctx context.Context, tg *toolGuard, q *queuedCall, line []byte, a answerTo, key string, t *tool, explained bool) {
	defer s.waiters.Done()
	release, te := tg.g.Acquire(ctx)
	s.mu.Lock()
	tg.waiting--
	cancelled := q.cancelled
	if s.queued[key] == q {
		delete(s.queued, key)
	}
	s.mu.Unlock()
	q.cancel()
	start := time.Now()
	switch {
	case cancelled || s.ctx.Err() != nil:
		s.explained(key)
		if te == nil {
			release()
		}
	case te != nil:
		s.explained(key)
		if err := s.answerToolError(a, t, te, start); err != nil {
			s.p.cfg.Logger.Debug("selfheal proxy: cannot answer a queued call", "error", err)
		}
	default:
		s.hold(key, release)
		_ = s.writeServer(line) // never fails: a failure closes the server's side
		if !explained {
			s.p.observe(Event{Tool: t.name, Duration: time.Since(start), session: s.key})
		}
	}
}

// hold keeps an admitted call's slot until the server's response to key
// passes back (see serverMessage) or the client cancels the call.
func (s *session) hold(key string, release func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.calls == nil { // Serve has returned
		release()
		return
	}
	if old := s.calls[key]; old != nil {
		old() // the client reused the id of a call in flight
	}
	s.calls[key] = release
}

// cancelled reads the client's notifications/cancelled: a call in flight
// frees its slot (the server stops it, and sends no response), a queued
// call gives up its place and is never forwarded, and a tools/list request
// is no longer awaited.
func (s *session) cancelled(m *wire.Message) {
	var requestID []byte
	wire.Members(m.Params, func(k, v []byte) {
		if string(k) == "requestId" {
			requestID = v
		}
	})
	key, ok := wire.IDKey(requestID)
	if !ok {
		return
	}
	s.mu.Lock()
	delete(s.lists, key)
	delete(s.explain, key)
	release := s.calls[key]
	delete(s.calls, key)
	q := s.queued[key]
	if q != nil {
		q.cancelled = true
	}
	s.mu.Unlock()
	if release != nil {
		release()
	}
	if q != nil {
		q.cancel()
	}
}

// limiterKey is the key a call of tool is counted under by a limiter: the
// tool's name, after the hash of WithLimitBy's value when there is one (a
// fixed-length prefix, so that no two pairs make the same key).
func limiterKey(tool, by string) string {
	if by == "" {
		return tool
	}
	return by + "/" + tool
}

// hashLimitBy is the hex SHA-256 of a WithLimitBy value, or "" for "".
func hashLimitBy(v string) string {
	if v == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:])
}
