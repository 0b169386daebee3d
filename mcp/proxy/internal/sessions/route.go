package sessions

import (
	"bytes"

	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// routeAll routes the server's messages, as Serve writes them, until Serve
// has returned.
func (s *session) routeAll() {
	defer close(s.routed)
	next := wire.NewLineReader(s.outR).Next
	for {
		line, err := next()
		if err != nil {
			break
		}
		s.route(line)
	}
	s.outR.Close()
}

// route sends one of the server's messages to its stream (see the Server
// type). It waits while that stream holds defaultQueue messages its client has
// not read yet, so that each stream gets its messages in order and memory
// stays bounded.
func (s *session) route(line []byte) {
	line = bytes.Clone(line) // valid until the next read otherwise
	m, ok := wire.Decode(line)
	if !ok {
		if len(bytes.TrimSpace(line)) > 0 {
			s.c.r.Logger.Debug("selfheal proxy: the MCP server wrote a line that is not a JSON-RPC message; it is dropped")
		}
		return
	}
	if s.pooled {
		s.routePooled(line, m)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.IsResponse() {
		switch key, _ := wire.IDKey(m.ID); {
		case key == "":
		case key == s.initKey:
			s.initKey = ""
			s.initialized(m)
		}
	}
	for !s.ended {
		var st *stream
		var key string
		if m.IsResponse() {
			key, _ = wire.IDKey(m.ID)
			st = s.waiters[key]
			if st == nil {
				s.c.r.Logger.Debug("selfheal proxy: a response is dropped: its client has gone")
				return
			}
		} else {
			st = s.targetLocked(m)
		}
		if st != nil && st.sse && st.pumping && len(st.queue) >= s.c.queue {
			s.room.Wait()
			continue // the streams may have changed meanwhile
		}
		switch {
		case m.IsResponse():
			s.answerLocked(st, key, line)
		case st == nil:
			s.backlogLocked(line)
		default:
			st.queue = append(st.queue, line)
			st.signal()
		}
		return
	}
}

// targetLocked returns the stream for a request or a notification of the
// server, or nil when none is open. A stream that is full and not pumping
// yet is passed over: waiting for it could wait for ever, on a server
// that does not read the rest of its POST's body until it has written.
func (s *session) targetLocked(m *wire.Message) *stream {
	fits := func(st *stream) bool {
		return st != nil && (st.pumping || len(st.queue) < s.c.queue)
	}
	if m.Method == methodProgress {
		if key, ok := wire.IDKey(member(m.Params, "progressToken")); ok && fits(s.progress[key]) {
			return s.progress[key]
		}
	}
	if fits(s.get) {
		return s.get
	}
	for _, st := range s.posts {
		if fits(st) {
			return st
		}
	}
	return nil
}

// answerLocked gives a stream the response (or error) to its request of
// key.
func (s *session) answerLocked(st *stream, key string, line []byte) {
	delete(s.waiters, key)
	delete(st.pending, key)
	if st.sse {
		st.queue = append(st.queue, line)
	} else {
		st.answers[key] = line
	}
	if len(st.pending) == 0 {
		st.final = true
		s.unlistLocked(st)
	}
	st.signal()
}

// backlogLocked keeps a message for the next GET stream, dropping the
// oldest beyond the bound.
func (s *session) backlogLocked(line []byte) {
	s.backlog = append(s.backlog, line)
	if len(s.backlog) <= s.c.backlog {
		return
	}
	s.backlog[0] = nil
	s.backlog = s.backlog[1:]
	s.dropped++
	if s.dropped == 1 {
		s.c.r.Logger.Warn("selfheal proxy: a session's MCP server sends messages while no stream is open to carry them; the oldest are dropped", "kept", s.c.backlog)
	}
}
