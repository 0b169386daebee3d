package sessions

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/selfheal/selfheal/mcp/proxy/internal/eventstream"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// session is one session of Server: a process, Serve relaying between it
// and the bridge's pipes, and the HTTP requests under way.
type session struct {
	c       *Server
	id      string
	proc    *process
	limitBy string

	// in carries the client's messages to Serve; inMu keeps each POST's
	// messages together. Serve writes the server's to outW.
	in   *io.PipeWriter
	inR  *io.PipeReader
	inMu sync.Mutex
	outR *io.PipeReader
	outW *io.PipeWriter

	stopOnce sync.Once
	stopCh   chan struct{} // closed to end the session (DELETE, Close, idle)
	stopWhy  string        // written before stopCh is closed
	endedCh  chan struct{} // closed by end
	served   chan struct{} // Serve has returned
	routed   chan struct{} // the router has read the server's last message
	done     chan struct{} // all of the above, and the process reaped

	mu sync.Mutex
	// room is signalled when a stream's queue empties, a stream goes or
	// the session ends: the router may wait on it.
	room  *sync.Cond
	ended bool
	// waiters are the POSTs' streams awaiting a response, by request id key.
	waiters map[string]*stream
	get     *stream
	posts   []*stream
	// progress are the POSTs' SSE streams by progress token key.
	progress map[string]*stream
	// resumable are the POST streams a Last-Event-ID may resume: those
	// open and those in kept (ended or left, oldest first). standalone is
	// the latest GET stream.
	streamSeq  uint64
	resumable  map[uint64]*stream
	kept       []*stream
	standalone *stream
	// backlog holds messages no stream could carry, for the next GET.
	backlog [][]byte
	dropped int
	// busy counts the requests under way; at 0 a timer ends the session
	// after the idle time unless idleGen has moved on.
	busy      int
	idleGen   int
	idleTimer *time.Timer

	// initKey is the initialize request's id key until its response has
	// passed; version is the protocol version that response names.
	initKey string
	version string

	// pooled: the process serves clients of revision 2026-07-28 (pool.go).
	pooled bool
	// bridge: the server speaks only the session era; init is the
	// initialize result of the proxy's own handshake.
	bridge bool
	init   []byte
	// ready is closed when the process can take requests, or readyErr says
	// why not.
	ready    chan struct{}
	readyErr error
	// ownSeq numbers the ids the proxy gives requests, under nonce (128
	// random bits); own are the proxy's own awaiting their response.
	nonce  string
	ownSeq uint64
	own    map[string]chan []byte
	// load counts the requests under way, under Server.mu (Server.acquire).
	load int
}

// launch starts the reaper, Serve, the router and the supervisor.
func (s *session) launch() {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		err := s.c.r.Serve(ctx, s.inR, s.outW, s.proc.fromChild, s.proc.toChild, s.c.r.Limiter, s.limitBy)
		if err != nil && !errors.Is(err, context.Canceled) {
			s.c.r.Logger.Debug("selfheal proxy: a session's relay ended", "error", err)
		}
		s.outW.Close()
		close(s.served)
	}()
	go s.routeAll()
	go s.supervise(cancel)
}

// supervise ends the session when its process's output ends, the process
// exits or the session is stopped, then ends the process.
func (s *session) supervise(cancel context.CancelFunc) {
	defer s.c.running.Done()
	why, stopped := "the MCP server exited before it answered", false
	select {
	case <-s.routed:
	case <-s.proc.exited:
		// Its output may still hold messages, or be held open by a
		// process it started: the messages are routed first, for a while.
		t := time.NewTimer(s.c.grace)
		select {
		case <-s.routed:
		case <-t.C:
		case <-s.stopCh:
			why, stopped = s.stopWhy, true
		}
		t.Stop()
	case <-s.stopCh:
		why, stopped = s.stopWhy, true
	}
	s.end(why)
	// Serve passes on what it read, then closes the server's stdin: its
	// cue to exit.
	s.in.Close()
	t := time.NewTimer(s.c.grace)
	select {
	case <-s.proc.exited:
	case <-t.C:
		s.c.r.Logger.Warn("selfheal proxy: a session's MCP server did not exit once its input was closed; it is killed", "grace", s.c.grace)
	}
	t.Stop()
	// Its process group too: what the server started goes with it.
	s.proc.kill()
	<-s.proc.exited
	switch {
	case stopped:
	case s.pooled:
		s.c.r.Logger.Warn("selfheal proxy: a process of the MCP server exited; the next request that needs one starts another", "status", s.proc.cmd.ProcessState.String())
	default:
		s.c.r.Logger.Warn("selfheal proxy: a session's MCP server exited; the session is ended", "status", s.proc.cmd.ProcessState.String())
	}
	// Serve's read of the output ends even when a process the server
	// started holds it open.
	s.proc.fromChild.Close()
	cancel()
	<-s.served
	s.proc.toChild.Close() // Serve may have closed it: the error is of no interest
	<-s.routed
	s.c.mu.Lock()
	s.c.live--
	s.c.mu.Unlock()
	close(s.done)
}

// stop asks the supervisor to end the session; why goes to the pending
// requests' errors.
func (s *session) stop(why string) {
	s.stopOnce.Do(func() {
		s.stopWhy = why
		close(s.stopCh)
	})
}

// end ends the session for its clients: each waiting request gets an error
// saying why, the streams end once written, and the session is forgotten.
func (s *session) end(why string) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	close(s.endedCh)
	if s.idleTimer != nil {
		s.idleTimer.Stop()
	}
	// The error response to a request the server will not answer: an
	// internal error for a client of revision 2026-07-28.
	code, msg := -32000, "Session ended: "+why
	if s.pooled {
		code, msg = wire.CodeInternalError, "Internal error: "+why
	}
	for key, st := range s.waiters {
		s.answerLocked(st, key, append(wire.ErrorResponse(st.pending[key], code, msg), '\n'))
	}
	s.backlog = nil
	if s.get != nil {
		s.get.signal()
	}
	s.room.Broadcast()
	s.mu.Unlock()

	s.c.mu.Lock()
	if s.c.sessions[s.id] == s {
		delete(s.c.sessions, s.id)
	}
	if s.pooled {
		s.c.unpoolLocked(s)
	}
	s.c.mu.Unlock()
}

// enter counts a request under way; false when the session has ended.
func (s *session) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return false
	}
	s.busy++
	s.idleGen++
	if s.idleTimer != nil {
		s.idleTimer.Stop()
		s.idleTimer = nil
	}
	return true
}

// leave counts a request done; the last one arms the idle timer.
func (s *session) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy--
	idle := s.c.idle
	if s.pooled {
		idle = s.c.poolIdle
	}
	if s.busy > 0 || s.ended || idle <= 0 {
		return
	}
	s.idleGen++
	gen := s.idleGen
	s.idleTimer = time.AfterFunc(idle, func() {
		s.mu.Lock()
		still := s.idleGen == gen && !s.ended
		s.mu.Unlock()
		if !still {
			return
		}
		if s.pooled {
			s.c.r.Logger.Debug("selfheal proxy: a process of the pool is stopped: idle", "idle", idle)
		} else {
			s.c.r.Logger.Info("selfheal proxy: a session is ended: idle", "idle", idle)
		}
		s.stop("the session was idle")
	})
}

// post sends a POST's messages, the session entered, and answers: 202 when
// they hold no request, else the stream or the JSON of the responses.
func (s *session) post(w http.ResponseWriter, r *http.Request, msgs []posted, batch bool) {
	defer s.leave()
	st := &stream{wake: make(chan struct{}, 1), sse: eventstream.Accepts(r.Header, "text/event-stream")}
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		httpError(w, http.StatusNotFound, -32001, "Session not found")
		return
	}
	var lines []byte
	seen := map[string]bool{}
	for _, m := range msgs {
		if m.answer == nil {
			lines = append(lines, m.line...)
		}
		if m.key == "" {
			continue
		}
		if s.waiters[m.key] != nil || seen[m.key] {
			s.mu.Unlock()
			httpError(w, http.StatusBadRequest, -32600, "Invalid Request: a request with this id is already under way")
			return
		}
		seen[m.key] = true
	}
	requests := len(seen)
	if requests > 0 {
		st.pending = make(map[string][]byte, requests)
		if !st.sse {
			st.answers = make(map[string][]byte, requests)
		}
		for _, m := range msgs {
			if m.key == "" {
				continue
			}
			st.pending[m.key] = m.id
			st.order = append(st.order, m.key)
			s.waiters[m.key] = st
			if st.sse && m.token != "" {
				s.progress[m.token] = st
				st.tokens = append(st.tokens, m.token)
			}
		}
		if st.sse {
			s.posts = append(s.posts, st)
			s.streamSeq++
			st.num, st.gen = s.streamSeq, 1
			s.resumable[st.num] = st
		}
		for _, m := range msgs {
			if m.answer != nil {
				s.answerLocked(st, m.key, m.answer)
			}
		}
		if !st.final && s.c.silent > 0 {
			st.heard = time.Now()
			st.silence = time.AfterFunc(s.c.silent, func() { s.silent(st) })
		}
	}
	version := cmp.Or(r.Header.Get("Mcp-Protocol-Version"), s.version)
	s.mu.Unlock()

	var err error
	if len(lines) > 0 {
		err = s.send(lines)
	}
	w.Header().Set(headerSessionID, s.id)
	if requests == 0 {
		if err != nil {
			httpError(w, http.StatusNotFound, -32001, "Session not found")
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	// A failed send means the session is ending: its end answers the
	// requests with errors.
	if st.sse {
		sseHeaders(w, s.id)
		w.WriteHeader(http.StatusOK)
		// From 2025-11-25, which asks for it, to before 2026-07-28, which
		// drops resumption, a stream starts with an id and no data (the
		// go-sdk's rule).
		s.pump(w, r, st, 1, version >= wire.Stateful && !wire.IsStateless(version), nil, nil)
		return
	}
	s.answerJSON(w, r, st, batch)
}

// methodInitialized ends the initialization.
const methodInitialized = "notifications/initialized"

// initialized reads the protocol version of the initialize response. s.mu
// is held.
func (s *session) initialized(m *wire.Message) {
	s.version = wire.Str(member(m.Result, "protocolVersion"))
}

// send writes a POST's messages to Serve, whole.
func (s *session) send(lines []byte) error {
	s.inMu.Lock()
	defer s.inMu.Unlock()
	_, err := s.in.Write(lines)
	return err
}

// routeAll routes the server's messages until Serve has returned.
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

// route sends one of the server's messages to its stream, waiting while
// that stream holds a full queue its client has not read: each stream gets
// its messages in order, and memory stays bounded.
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
		if st != nil {
			st.heard = time.Now()
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

// targetLocked returns the stream for a server's request or notification,
// or nil. A full stream not pumping yet is passed over: its server may not
// read the rest of its POST until it has written.
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

// answerLocked gives a stream the response to its request of key.
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
		if st.silence != nil {
			st.silence.Stop()
		}
		s.unlistLocked(st)
	}
	st.signal()
}

// silent runs when a POST's requests have had nothing from the server for
// the silence bound: each unanswered request gets a JSON-RPC error, which
// frees its id, rather than waiting for ever. A message routed to the
// stream pushes the bound back.
func (s *session) silent(st *stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.final || s.ended {
		return
	}
	if quiet := time.Since(st.heard); quiet < s.c.silent {
		st.silence.Reset(s.c.silent - quiet)
		return
	}
	s.c.r.Logger.Warn("selfheal proxy: the MCP server answered nothing to a request for too long; the client gets an error", "silence", s.c.silent)
	msg := fmt.Sprintf("Request timed out: the MCP server sent nothing for this request in %v", s.c.silent)
	for _, key := range slices.Clone(st.order) {
		if id, ok := st.pending[key]; ok {
			s.answerLocked(st, key, append(wire.ErrorResponse(id, codeTimeout, msg), '\n'))
		}
	}
	s.room.Broadcast()
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
