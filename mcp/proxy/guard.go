package proxy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// toolGuard is one tool's guard in a session (WithGuard).
type toolGuard struct {
	g *guard.Guard
	l guard.Limits
	// waiting counts the calls waiting for a slot, under session.mu.
	waiting int
}

// queuedCall is a call waiting for a slot (session.queued).
type queuedCall struct {
	cancel context.CancelFunc
	// cancelled: the client cancelled the call, under session.mu.
	cancelled bool
}

// mustWait reports whether a call arriving now would wait in the guard's
// queue. When not, guard.Acquire decides at once: no waiting goroutine
// exists to take a free slot in between. s.mu is held.
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

// guarded passes a call through its guard: admitted now, forwarded;
// refused, answered; waiting, in a goroutine of its own, so that the
// messages behind it (a response the server awaits, a cancellation) are
// not held back.
func (s *session) guarded(line []byte, c *call, key string) error {
	if lim := s.limiter; lim != nil {
		// A shared limiter decides here, in order; the batch goes first, as
		// it must not wait on the limiter's store.
		s.flushServer()
		release, te := lim.Acquire(s.ctx, limiterKey(c.tool.name, s.limitBy))
		return s.admitted(line, c, key, release, te)
	}
	s.mu.Lock()
	tg := s.guards[c.tool.name]
	if tg == nil { // made on first use
		tg = &toolGuard{g: guard.New(*s.p.cfg.limits), l: *s.p.cfg.limits} // the limits were checked by New
		s.guards[c.tool.name] = tg
	}
	if tg.mustWait() {
		tg.waiting++
		ctx, cancel := context.WithCancel(s.ctx)
		q := &queuedCall{cancel: cancel}
		s.queued[key] = q
		s.mu.Unlock()
		s.waiters.Add(1)
		qc := *c
		qc.id = bytes.Clone(c.id)
		go s.wait(ctx, tg, q, bytes.Clone(line), &qc, key) // line is valid until the next read
		return nil
	}
	s.mu.Unlock()
	release, te := tg.g.Acquire(s.ctx)
	if te == nil && tg.l.MaxActive == 0 {
		release = nil // it does nothing
	}
	return s.admitted(line, c, key, release, te)
}

// admitted forwards an admitted call, holding release until its response,
// or answers a refused one with te.
func (s *session) admitted(line []byte, c *call, key string, release func(), te *envelope.ToolError) error {
	if te != nil {
		s.explained(key) // answered here: no response will come
		return s.writeClient(c.refused(te))
	}
	if release != nil {
		s.hold(key, release)
	}
	err := s.writeServer(line)
	c.forwarded()
	return err
}

// wait waits for a slot, then forwards the call; or answers it with the
// guard's tool_error; or drops it when cancelled or Serve returned.
func (s *session) wait(ctx context.Context, tg *toolGuard, q *queuedCall, line []byte, c *call, key string) {
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
	c.start = time.Now() // the wait in the queue is not the proxy's time
	if cancelled || s.ctx.Err() != nil {
		s.explained(key)
		if te == nil {
			release()
		}
		return
	}
	if err := s.admitted(line, c, key, release, te); err != nil {
		s.p.cfg.Logger.Debug("selfheal proxy: cannot answer a queued call", "error", err)
	}
}

// hold keeps an admitted call's slot until its response passes or the
// client cancels it.
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

// cancelled reads notifications/cancelled: a call in flight frees its
// slot, a queued one gives up its place, a tools/list is no longer awaited.
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

// limiterKey is a call's limiter key: the tool's name after the hash of
// WithLimitBy's value (fixed length, so no two pairs collide).
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
