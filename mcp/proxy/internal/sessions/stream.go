package sessions

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/selfheal/selfheal/mcp/proxy/internal/eventstream"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// stream is where the server's messages for one HTTP response go: a POST's
// or the GET's event stream, or a POST's JSON answer.
type stream struct {
	wake       chan struct{} // a buffer of 1: something changed; replaced at a resume
	sse        bool          // text/event-stream, else a JSON answer
	standalone bool          // the GET stream
	// num names the stream in its session: its events' ids are "num-seq".
	num uint64
	// Under the session's mu: history holds the latest events
	// (Server.replay) for a resume; gen counts the handlers that have
	// pumped the stream, so that a resume takes over from the one before.
	seq     uint64
	history []event
	gen     uint64
	queue   [][]byte          // messages to write, in order
	pending map[string][]byte // the requests not answered yet: key → id
	order   []string          // the requests' keys, in the body's order (JSON)
	answers map[string][]byte // the responses by key (JSON)
	tokens  []string          // the keys of the requests' progress tokens
	final   bool              // every request is answered: nothing more comes
	gone    bool              // the handler has left
	// pumping: the handler writes what comes. Until then (a POST's handler
	// may be stuck writing to a server that does not read) the router
	// never waits for the stream: a full one is passed over.
	pumping bool
	// heard is when the server last sent the stream something (a session
	// POST's only; see session.silent).
	heard   time.Time
	silence *time.Timer

	// Of a request of a client of revision 2026-07-28 (pool.go): the key
	// of the proxy's id for it, the client's id and token as written, the
	// key of the proxy's token; listen marks a subscriptions/listen; auth
	// is the Authorization a cancellation must repeat.
	key, tokenKey       string
	clientID, clientTok []byte
	method, auth        string
	listen              bool
	// cancelled: the server has been told the request is cancelled (once).
	cancelled bool
}

// event is an SSE event: its number and its message.
type event struct {
	seq  uint64
	line []byte
}

func (st *stream) eventID(seq uint64) string {
	return strconv.FormatUint(st.num, 10) + "-" + strconv.FormatUint(seq, 10)
}

// parseEventID reads an event id: its stream's number and its own.
func parseEventID(id string) (num, seq uint64, ok bool) {
	a, b, found := strings.Cut(id, "-")
	n, err1 := strconv.ParseUint(a, 10, 64)
	q, err2 := strconv.ParseUint(b, 10, 64)
	return n, q, found && err1 == nil && err2 == nil
}

// signal wakes the stream's handler; the session's mu is held.
func (st *stream) signal() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// pump writes the messages routed to st until it is done or its client has
// gone. A session's stream (its caller has written the headers) carries
// numbered events: prime first writes an event with an id and no data,
// replay are events sent again to a client that resumes, and a resume
// takes the stream over (gen is no longer the stream's); a stream whose
// client has gone is left for a resume (see detach). A stateless request's
// stream starts with its first message or keep-alive, as the TypeScript
// SDK's does: an answer that comes alone is JSON, with the SDKs' HTTP
// status (a subscription's stream starts at once). sending delivers the
// outcome of the request's write; the silence bound is for it and then
// for each message.
func (s *session) pump(w http.ResponseWriter, r *http.Request, st *stream, gen uint64, prime bool, replay []event, sending <-chan error) {
	numbered := st.key == ""
	var silence *time.Timer
	var silent <-chan time.Time
	if !numbered && !st.listen { // a subscription is silent by nature
		silence = time.NewTimer(s.c.silent)
		defer silence.Stop()
		silent = silence.C
	}
	reset := func() {
		if silence != nil {
			silence.Reset(s.c.silent)
			silent = silence.C
		}
	}
	gone := func(from uint64) { // from: see detach
		if numbered {
			s.detach(st, gen, from)
		} else {
			s.abandon(st, sending, "the client has gone")
		}
	}
	flush := flusher(w)
	streaming := numbered
	// write writes lines as events numbered from seq (0: no ids), and
	// returns how many it wrote.
	write := func(lines [][]byte, seq uint64, keepAlive bool) (int, error) {
		if !streaming {
			streaming = true
			sseHeaders(w, "")
			w.WriteHeader(http.StatusOK)
		}
		for i, line := range lines {
			id := ""
			if seq > 0 {
				id = st.eventID(seq + uint64(i))
			}
			if err := eventstream.WriteEvent(w, id, line); err != nil {
				return i, err
			}
		}
		if keepAlive {
			if _, err := io.WriteString(w, ": keepalive\n\n"); err != nil {
				return len(lines), err
			}
		}
		return len(lines), flush()
	}

	s.mu.Lock()
	if st.gen != gen {
		s.mu.Unlock()
		return
	}
	st.pumping = true
	wake := st.wake
	var primeID string
	if prime {
		st.seq++
		primeID = st.eventID(st.seq)
	}
	s.mu.Unlock()
	if prime {
		// An id and an empty data field, as MCP 2025-11-25 asks: a client
		// whose connection breaks before the first message can resume.
		if _, err := io.WriteString(w, "id: "+primeID+"\ndata: \n\n"); err != nil {
			gone(0)
			return
		}
	}
	for _, ev := range replay {
		if eventstream.WriteEvent(w, st.eventID(ev.seq), ev.line) != nil {
			gone(0)
			return
		}
	}
	// A session's headers, or a subscription's: the client knows its
	// stream is open.
	if numbered || st.listen {
		if _, err := write(nil, 0, false); err != nil {
			gone(0)
			return
		}
	}
	var tick <-chan time.Time
	if d := s.c.keepAlive; d > 0 && st.sse {
		t := time.NewTicker(d)
		defer t.Stop()
		tick = t.C
	}
	ended := s.endedCh
	for {
		s.mu.Lock()
		if st.gen != gen {
			s.mu.Unlock()
			return
		}
		lines := st.queue
		st.queue = nil
		var first uint64
		if numbered && len(lines) > 0 {
			first = st.seq + 1
			s.recordLocked(st, lines)
		}
		final := st.final || (st.standalone && s.ended)
		if len(lines) > 0 {
			s.room.Broadcast()
		}
		s.mu.Unlock()
		if !numbered && final && (!st.sse || !streaming && len(lines) == 1) {
			answer := st.answers[st.key]
			if st.sse {
				answer = lines[0]
			}
			answer = bytes.TrimRight(answer, "\r\n")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(errorStatus(answer))
			if _, err := w.Write(answer); err != nil {
				s.c.r.Logger.Debug("selfheal proxy: a response could not be written: the client has gone", "error", err)
			}
			return
		}
		if st.sse && len(lines) > 0 {
			if n, err := write(lines, first, false); err != nil {
				gone(first + uint64(n)) // past them all when the flush failed
				return
			}
		}
		if final {
			if numbered {
				s.mu.Lock()
				if st.gen == gen && !st.standalone {
					st.pumping = false
					s.keepLocked(st)
				}
				s.mu.Unlock()
			}
			return
		}
		if len(lines) > 0 {
			reset()
		}
		select {
		case err := <-sending:
			sending = nil
			if err == nil {
				reset()
			} // else the process is ending: its end answers the request
		case <-wake:
		case <-ended:
			ended = nil // once is enough: the end has answered or ended this stream
		case <-r.Context().Done():
			gone(0)
			return
		case <-silent:
			silent = nil
			if sending != nil {
				select {
				case err := <-sending: // written just now
					if sending = nil; err == nil {
						reset()
					}
					continue
				default:
				}
				why := fmt.Sprintf("the MCP server did not read its input for %v", s.c.silent)
				s.c.r.Logger.Warn("selfheal proxy: a process of the MCP server does not read its input; it is stopped", "silence", s.c.silent)
				s.stop(why) // its end answers the request
			} else {
				s.timeout(st)
			}
		case <-tick:
			if _, err := write(nil, 0, true); err != nil {
				gone(0)
				return
			}
		}
	}
}

// recordLocked numbers the messages taken for a stream and keeps the
// latest in its history.
func (s *session) recordLocked(st *stream, lines [][]byte) {
	for _, line := range lines {
		st.seq++
		st.history = append(st.history, event{seq: st.seq, line: line})
	}
	if over := len(st.history) - s.c.replay; over > 0 {
		clear(st.history[:over])
		st.history = st.history[over:]
	}
}

// detach leaves an SSE stream whose client has gone (seen by the handler of
// gen) for a client that resumes it. Of its unwritten messages (the events
// from that number on, 0 for none, and its queue), its own (responses to
// its requests, their progress) stay with it; the others go
// where they would have gone without it. A POST stream is then kept; the
// GET stream stays the standalone one until another opens.
func (s *session) detach(st *stream, gen, from uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.gen != gen {
		return // resumed meanwhile: the new handler has it
	}
	st.pumping = false
	s.posts = slices.DeleteFunc(s.posts, func(p *stream) bool { return p == st })
	if s.get == st {
		s.get = nil
	}
	own := func(m *wire.Message) bool {
		if st.standalone {
			return false
		}
		if m.IsResponse() {
			return true
		}
		if m.Method != methodProgress {
			return false
		}
		key, ok := wire.IDKey(member(m.Params, "progressToken"))
		return ok && s.progress[key] == st
	}
	var others [][]byte
	if from > 0 {
		st.history = slices.DeleteFunc(st.history, func(ev event) bool {
			if ev.seq < from {
				return false
			}
			if m, ok := wire.Decode(ev.line); ok && own(m) {
				return false
			}
			others = append(others, ev.line)
			return true
		})
	}
	queue := st.queue[:0]
	for _, line := range st.queue {
		if m, ok := wire.Decode(line); ok && own(m) {
			queue = append(queue, line)
		} else {
			others = append(others, line)
		}
	}
	clear(st.queue[len(queue):])
	st.queue = queue
	for _, line := range others {
		m, ok := wire.Decode(line)
		if !ok || m.IsResponse() || s.ended {
			continue
		}
		if t := s.targetLocked(m); t != nil {
			t.queue = append(t.queue, line)
			t.signal()
		} else {
			s.backlogLocked(line)
		}
	}
	if !st.standalone {
		s.keepLocked(st)
	}
	s.room.Broadcast()
}

// keepLocked keeps a POST stream that has ended or lost its client, for a
// resume: the latest Server.kept. An older one is forgotten, and responses
// for it are dropped when they come.
func (s *session) keepLocked(st *stream) {
	s.kept = append(s.kept, st)
	for len(s.kept) > s.c.kept {
		old := s.kept[0]
		s.kept[0] = nil
		s.kept = s.kept[1:]
		delete(s.resumable, old.num)
		s.dropLocked(old)
		old.queue, old.history = nil, nil
	}
}

// resume answers a GET with Last-Event-ID: the events after it that the
// stream still keeps, then what comes, as its first handler would have. A
// handler that has not seen its client go is taken over. The GET stream is
// resumed only while no other is open; an unknown id is answered 400.
func (s *session) resume(w http.ResponseWriter, r *http.Request, last string) {
	num, seq, ok := parseEventID(last)
	s.mu.Lock()
	var st *stream
	if ok {
		st = s.resumable[num]
		if st == nil && s.standalone != nil && s.standalone.num == num {
			st = s.standalone
		}
	}
	switch {
	case s.ended:
		s.mu.Unlock()
		httpError(w, http.StatusNotFound, -32001, "Session not found")
		return
	case st == nil || st.gone || seq > st.seq:
		s.mu.Unlock()
		httpError(w, http.StatusBadRequest, -32000, "Bad Request: no stream to resume from Last-Event-ID "+strconv.Quote(last))
		return
	case st.standalone && s.get != nil && s.get != st:
		s.mu.Unlock()
		httpError(w, http.StatusConflict, -32000, "Conflict: Only one SSE stream is allowed per session")
		return
	}
	if st.standalone && s.get == nil {
		s.get = st
		st.queue, s.backlog, s.dropped = s.backlog, nil, 0
	}
	s.kept = slices.DeleteFunc(s.kept, func(k *stream) bool { return k == st })
	st.gen++
	gen := st.gen
	close(st.wake) // the handler before, if it still runs, returns
	st.wake = make(chan struct{}, 1)
	var replay []event
	for _, ev := range st.history {
		if ev.seq > seq {
			replay = append(replay, ev)
		}
	}
	s.mu.Unlock()
	sseHeaders(w, s.id)
	w.WriteHeader(http.StatusOK)
	s.pump(w, r, st, gen, false, replay, nil)
}

// answerJSON writes a POST's responses as JSON: one, or a batch's array in
// the order of its requests.
func (s *session) answerJSON(w http.ResponseWriter, r *http.Request, st *stream, batch bool) {
	for {
		s.mu.Lock()
		if st.final {
			var body []byte
			if batch {
				body = append(body, '[')
			}
			for i, key := range st.order {
				if i > 0 {
					body = append(body, ',')
				}
				body = append(body, bytes.TrimRight(st.answers[key], "\r\n")...)
			}
			if batch {
				body = append(body, ']')
			}
			s.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			if _, err := w.Write(body); err != nil {
				s.c.r.Logger.Debug("selfheal proxy: a response could not be written: the client has gone", "error", err)
			}
			return
		}
		s.mu.Unlock()
		select {
		case <-st.wake:
		case <-r.Context().Done():
			s.mu.Lock()
			s.dropLocked(st)
			s.mu.Unlock()
			return
		}
	}
}

// dropLocked forgets a stream whose client has gone, or that is no longer
// kept: responses for it are dropped when they come.
func (s *session) dropLocked(st *stream) {
	st.gone = true
	for key := range st.pending {
		if s.waiters[key] == st {
			delete(s.waiters, key)
		}
	}
	s.unlistLocked(st)
}

// unlistLocked removes a stream from where the router finds streams.
func (s *session) unlistLocked(st *stream) {
	s.posts = slices.DeleteFunc(s.posts, func(p *stream) bool { return p == st })
	for _, tok := range st.tokens {
		if s.progress[tok] == st {
			delete(s.progress, tok)
		}
	}
	st.tokens = nil
	if s.get == st {
		s.get = nil
	}
}
