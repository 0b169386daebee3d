package sessions

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/selfheal/selfheal/mcp/proxy/internal/eventstream"
	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// The clients of revision 2026-07-28 have no session: any process of the
// server may serve any of their requests. The server finds out once what
// its server speaks (see probe), then serves them from a pool of its
// processes, each relayed by Serve as a session is:
//
//   - a server that speaks 2026-07-28 gets their requests as they are,
//     with ids (and progress tokens) of the proxy's own, unique in the
//     process, since several clients share it; the client's own come back
//     in the answers, byte for byte;
//   - a server that speaks only the session era is bridged: the proxy
//     initializes each process itself, takes the stateless envelope out of
//     the requests, answers server/discover from the initialize result, and
//     completes the results as the revision requires (resultType, and the
//     cache fields of the lists).

// upstreamEra is what the server speaks, as a probe found it.
type upstreamEra struct {
	// versions are the revisions of the stateless era the server serves:
	// those the server names, or 2026-07-28 alone for a bridge.
	versions []string
	// bridge: the server speaks only the session era.
	bridge bool
}

// eraProbe is a probe under way; done is closed when era or err is set.
type eraProbe struct {
	done chan struct{}
	era  *upstreamEra
	err  error
}

// errShutdown fails the requests that come while the server closes.
var errShutdown = errors.New("the proxy is shutting down")

// errBusy fails a request when every process the server may run is taken.
var errBusy = errors.New("too many processes")

// envelopeKeys are the members of a request's _meta that name its
// revision, client and the client's capabilities and log level: a server
// of the session era gets the request without them, since one that
// serves only that era may refuse a request that names a later revision
// (the go-sdk's does).
var envelopeKeys = []string{wire.MetaProtocolVersion, wire.MetaClientInfo, wire.MetaClientCapabilities, metaLogLevel}

// cacheable are the methods whose results revision 2026-07-28 requires to
// say how long a client may keep them (ttlMs) and for whom (cacheScope).
var cacheable = map[string]bool{
	"tools/list": true, "prompts/list": true, "resources/list": true,
	"resources/templates/list": true, "resources/read": true,
}

// postStateless serves a POST of revision 2026-07-28: a notification is
// taken (a cancellation passed on to the request it names), a request
// served by a process of the pool.
func (c *Server) postStateless(w http.ResponseWriter, r *http.Request, sl *stateless) {
	m := sl.msg
	if m.key == "" {
		if m.method == methodCancelled {
			c.cancelled(r, m)
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if m.answer != nil { // params no server can take (see badParams)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(bytes.TrimRight(m.answer, "\n"))
		return
	}
	if bad := standardHeaders(r.Header, sl); bad != nil {
		bad.write(w)
		return
	}
	if m.method == methodInitialize {
		// Not a method of the revision, as the SDKs answer it; and never
		// for a shared process, whose session it would start again.
		(&refusal{status: http.StatusNotFound, id: m.id, code: codeMethodNotFound,
			msg: "Method not found: initialize is not part of protocol revision 2026-07-28; use server/discover"}).write(w)
		return
	}
	var part string
	if f := c.r.LimitBy; f != nil {
		part = f(r)
	}
	era, err := c.upstreamEra(r.Context(), part)
	if err != nil {
		c.failed(w, r, m.id, err)
		return
	}
	if !slices.Contains(era.versions, sl.version) {
		(&refusal{status: http.StatusBadRequest, id: m.id, code: codeUnsupportedVersion,
			msg:  "Unsupported protocol version: " + sl.version,
			data: map[string]any{"supported": era.versions, "requested": sl.version}}).write(w)
		return
	}
	listen := m.method == methodListen
	if era.bridge && listen {
		answerNow(w, wire.ErrorResponse(m.id, codeMethodNotFound, "Method not found: subscriptions/listen: the MCP server behind this proxy speaks only protocol revision "+wire.Stateful+" and earlier, which has no subscriptions"))
		return
	}
	p, err := c.acquire(r.Context(), part, era, !listen)
	if err != nil {
		c.failed(w, r, m.id, err)
		return
	}
	defer c.release(p, !listen)
	if m.method == methodToolsCall {
		if bad := c.paramHeaders(r, p, m, sl.version); bad != nil {
			bad.write(w)
			return
		}
	}
	if era.bridge && m.method == methodDiscover {
		answerNow(w, bridgeDiscover(m.id, p.init))
		return
	}
	p.serveStateless(w, r, m, listen)
}

// failed answers a request that no process can serve: 503 when there is
// no process to be had, else a JSON-RPC error saying why. A client that has
// gone gets nothing.
func (c *Server) failed(w http.ResponseWriter, r *http.Request, id []byte, err error) {
	switch {
	case r.Context().Err() != nil:
	case errors.Is(err, errBusy):
		c.r.Logger.Warn("selfheal proxy: a request of a client of revision 2026-07-28 is refused: too many processes", "max", c.maxSessions)
		(&refusal{status: http.StatusServiceUnavailable, id: id, code: -32000, msg: "Service Unavailable: too many processes"}).write(w)
	case errors.Is(err, errShutdown):
		(&refusal{status: http.StatusServiceUnavailable, id: id, code: -32000, msg: "Service Unavailable: the server is shutting down"}).write(w)
	default:
		answerNow(w, wire.ErrorResponse(id, wire.CodeInternalError, "Internal error: "+err.Error()))
	}
}

// answerNow answers a request with a response the proxy wrote, as JSON.
func answerNow(w http.ResponseWriter, line []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(line)
}

// upstreamEra returns what the server speaks, probing it the first time
// (see probe): the requests that come meanwhile wait for the same probe. A
// probe that fails fails them, and the next request probes again.
func (c *Server) upstreamEra(ctx context.Context, part string) (*upstreamEra, error) {
	c.mu.Lock()
	if c.era != nil {
		era := c.era
		c.mu.Unlock()
		return era, nil
	}
	pr := c.probing
	if pr == nil {
		pr = &eraProbe{done: make(chan struct{})}
		c.probing = pr
		go c.probe(pr, part)
	}
	c.mu.Unlock()
	select {
	case <-pr.done:
		return pr.era, pr.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// probe starts a process and asks it server/discover, as a client of
// revision 2026-07-28 would, with the proxy's own client info: a server
// that names a revision of that era among its supportedVersions speaks it;
// one that answers with an error, or names none, speaks only the session
// era, and the process is initialized (see bridgeHandshake). A server that
// leaves server/discover unanswered within the handshake bound (a
// hand-written one may drop what it does not know) is asked initialize:
// answered, it is of the session era too. Either way the process joins the
// pool. A server that answers neither, or exits first, fails the probe.
func (c *Server) probe(pr *eraProbe, part string) {
	finish := func(era *upstreamEra, err error) {
		c.mu.Lock()
		if err == nil {
			c.era = era
		}
		c.probing = nil
		c.mu.Unlock()
		pr.era, pr.err = era, err
		close(pr.done)
	}
	c.mu.Lock()
	ok, closed := c.reserveLocked(part), c.closed
	c.mu.Unlock()
	switch {
	case closed:
		finish(nil, errShutdown)
		return
	case !ok:
		finish(nil, errBusy)
		return
	}
	s, err := c.startPooled(part)
	if err != nil {
		finish(nil, err)
		return
	}
	defer s.leave()
	m, err := s.ask(methodDiscover, `{"_meta":`+string(wire.OwnMeta(wire.Stateless))+`}`)
	var init *wire.Message
	if silent := (*unanswered)(nil); errors.As(err, &silent) {
		if init, err = s.initialize(); errors.As(err, &silent) {
			err = fmt.Errorf("the MCP server answered neither server/discover nor initialize within %v", s.c.handshake)
		}
	}
	if err != nil {
		s.fail(err)
		finish(nil, err)
		return
	}
	era := &upstreamEra{}
	var listed []string
	if init == nil && json.Unmarshal(member(m.Result, "supportedVersions"), &listed) == nil {
		for _, v := range listed {
			if wire.IsStateless(v) && !slices.Contains(era.versions, v) {
				era.versions = append(era.versions, v)
			}
		}
	}
	if len(era.versions) == 0 {
		era.versions, era.bridge = []string{wire.Stateless}, true
	}
	s.mu.Lock()
	s.bridge = era.bridge
	s.mu.Unlock()
	c.r.Logger.Info("selfheal proxy: the MCP server's protocol revisions are known", "stateless", !era.bridge, "versions", era.versions)
	finish(era, nil)
	switch {
	case init != nil:
		s.initializedBy(init)
	case era.bridge:
		s.bridgeHandshake()
	default:
		s.markReady(nil)
	}
}

// reserveLocked counts a process about to start in part, unless the server
// is closed or runs as many processes as it may. c.mu is held.
func (c *Server) reserveLocked(part string) bool {
	if c.closed || c.live >= c.maxSessions {
		return false
	}
	c.live++
	c.running.Add(1)
	c.starting[part]++
	return true
}

// startPooled starts a process of the pool part, reserved by
// reserveLocked, and returns it entered once and launched, not ready (see
// markReady).
func (c *Server) startPooled(part string) (*session, error) {
	var raw [16]byte
	_, _ = rand.Read(raw[:]) // never fails (crypto/rand)
	nonce := hex.EncodeToString(raw[:])
	s, err := c.spawn(nonce, part)
	c.mu.Lock()
	if c.starting[part]--; c.starting[part] == 0 {
		delete(c.starting, part)
	}
	if err != nil {
		c.live--
		c.mu.Unlock()
		c.running.Done()
		c.r.Logger.Error("selfheal proxy: cannot start a process of the MCP server", "error", err)
		return nil, errors.New("cannot start the MCP server")
	}
	s.pooled, s.listNonce = true, nonce
	s.ready, s.own = make(chan struct{}), map[string]chan []byte{}
	closed := c.closed
	if !closed {
		c.pool[part] = append(c.pool[part], s)
	}
	c.mu.Unlock()
	s.launch()
	if closed { // Close ran meanwhile, without this process
		s.fail(errShutdown)
		s.leave()
		return nil, errShutdown
	}
	return s, nil
}

// unpoolLocked takes an ended process out of its pool. c.mu is held.
func (c *Server) unpoolLocked(s *session) {
	procs := slices.DeleteFunc(c.pool[s.limitBy], func(p *session) bool { return p == s })
	if len(procs) == 0 {
		delete(c.pool, s.limitBy)
	} else {
		c.pool[s.limitBy] = procs
	}
}

// acquire returns a ready process of the pool part for a request, entered
// (see release): an idle one when there is one; else a new one, while the
// pool has fewer than poolMax and the server fewer than maxSessions; else
// the least busy one. counted: the request counts as busy in that choice
// (a subscriptions/listen, which lasts and costs its server nothing, does
// not).
func (c *Server) acquire(ctx context.Context, part string, era *upstreamEra, counted bool) (*session, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, errShutdown
		}
		var pick *session
		for _, p := range c.pool[part] {
			if p.load == 0 {
				pick = p
				break
			}
			if pick == nil || p.load < pick.load {
				pick = p
			}
		}
		start := (pick == nil || pick.load > 0) &&
			len(c.pool[part])+c.starting[part] < c.poolMax && c.reserveLocked(part)
		if !start && pick == nil {
			c.mu.Unlock()
			return nil, errBusy
		}
		if !start && counted {
			pick.load++
		}
		c.mu.Unlock()
		if start {
			s, err := c.startPooled(part)
			if err != nil {
				return nil, err
			}
			s.mu.Lock()
			s.bridge = era.bridge
			s.mu.Unlock()
			if counted {
				c.mu.Lock()
				s.load++
				c.mu.Unlock()
			}
			if era.bridge {
				go s.bridgeHandshake()
			} else {
				s.markReady(nil)
			}
			pick = s
		} else if !pick.enter() { // ended meanwhile: its end takes it out
			c.mu.Lock()
			if counted {
				pick.load--
			}
			c.unpoolLocked(pick)
			c.mu.Unlock()
			continue
		}
		select {
		case <-pick.ready:
		case <-ctx.Done():
			c.release(pick, counted)
			return nil, ctx.Err()
		}
		if err := pick.readyErr; err != nil {
			c.release(pick, counted)
			return nil, err
		}
		return pick, nil
	}
}

// release ends a request's use of a process that acquire gave it.
func (c *Server) release(p *session, counted bool) {
	if counted {
		c.mu.Lock()
		p.load--
		c.mu.Unlock()
	}
	p.leave()
}

// markReady says that the process can take requests (err nil) or cannot.
func (s *session) markReady(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.ready:
		return
	default:
	}
	s.readyErr = err
	close(s.ready)
}

// fail stops a process of the pool that cannot serve, for err.
func (s *session) fail(err error) {
	if !errors.Is(err, errShutdown) {
		s.c.r.Logger.Warn("selfheal proxy: a process of the MCP server cannot serve; it is stopped", "error", err)
	}
	s.markReady(err)
	s.stop(err.Error())
}

// ask sends the proxy's own request to the process, with an id no client
// can collide with, and returns the server's response: within the
// handshake bound, else an error, as when the process ends first.
func (s *session) ask(method, params string) (*wire.Message, error) {
	s.mu.Lock()
	s.ownSeq++
	id := strconv.Quote(relay.OwnPrefix + s.listNonce + "/" + method + "/" + strconv.FormatUint(s.ownSeq, 10))
	key, _ := wire.IDKey([]byte(id))
	answer := make(chan []byte, 1)
	s.own[key] = answer
	s.mu.Unlock()
	forget := func() {
		s.mu.Lock()
		delete(s.own, key)
		s.mu.Unlock()
	}
	t := time.NewTimer(s.c.handshake)
	defer t.Stop()
	sent := s.sendAsync([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + "}\n"))
	for {
		select {
		case err := <-sent:
			sent = nil
			if err != nil {
				forget()
				return nil, fmt.Errorf("the MCP server exited before it answered %s", method)
			}
		case line := <-answer:
			m, _ := wire.Decode(line) // the router decoded it
			return m, nil
		case <-t.C:
			forget()
			return nil, &unanswered{method: method, within: s.c.handshake}
		case <-s.endedCh:
			forget()
			return nil, fmt.Errorf("the MCP server exited before it answered %s", method)
		}
	}
}

// unanswered is the error of the proxy's own request to a process that got
// no answer in time.
type unanswered struct {
	method string
	within time.Duration
}

func (e *unanswered) Error() string {
	return fmt.Sprintf("the MCP server did not answer %s within %v", e.method, e.within)
}

// sendAsync sends lines to the process without waiting: the channel gets
// the outcome. A process that does not read holds the send, not its
// caller.
func (s *session) sendAsync(lines []byte) <-chan error {
	done := make(chan error, 1)
	go func() { done <- s.send(lines) }()
	return done
}

// bridgeHandshake initializes a process of a server that speaks only the
// session era, as a client would: initialize for revision 2025-11-25 with
// the proxy's own client info and no capabilities (so that the server asks
// the client nothing), then notifications/initialized, then the proxy's
// own listing of the tools when the server has tools, as for a session
// (see listTools). The process is ready once they are written.
func (s *session) bridgeHandshake() {
	m, err := s.initialize()
	if err != nil {
		s.fail(err)
		return
	}
	s.initializedBy(m)
}

// initialize asks the process initialize (see bridgeHandshake) and
// returns the response, or an error when it is not a result.
func (s *session) initialize() (*wire.Message, error) {
	m, err := s.ask(methodInitialize, `{"protocolVersion":"`+wire.Stateful+`","capabilities":{},"clientInfo":`+string(wire.ClientInfo())+`}`)
	switch {
	case err != nil:
		return nil, err
	case m.Error != nil:
		return nil, fmt.Errorf("the MCP server refused initialize: %s", m.Error)
	case !isObject(m.Result):
		return nil, errors.New("the MCP server answered initialize without a result")
	}
	return m, nil
}

// initializedBy ends the handshake of bridgeHandshake once the server has
// answered initialize with m.
func (s *session) initializedBy(m *wire.Message) {
	s.mu.Lock()
	s.init = bytes.Clone(m.Result)
	s.initialized(m)
	lines := []byte(`{"jsonrpc":"2.0","method":"` + methodInitialized + `"}` + "\n")
	if s.tools {
		lines = append(lines, s.listTools()...)
	}
	s.mu.Unlock()
	t := time.NewTimer(s.c.handshake)
	defer t.Stop()
	var err error
	select {
	case err = <-s.sendAsync(lines):
		if err != nil {
			err = errors.New("the MCP server exited before it was initialized")
		}
	case <-t.C:
		err = fmt.Errorf("the MCP server did not read its input for %v", s.c.handshake)
	}
	if err != nil {
		s.fail(err)
		return
	}
	s.markReady(nil)
}

// bridgeDiscover is the response to server/discover of request id for a
// server of the session era, from its initialize result: the revisions
// the proxy serves (2026-07-28, and the one the server named), the
// server's capabilities and instructions, its info in _meta, and the
// fields every result of revision 2026-07-28 has, with the TypeScript SDK's
// defaults. Capabilities announcing changes (listChanged, subscribe) are
// left out: a stateless client learns of them by subscriptions/listen, and
// the proxy has no subscriptions to give it for such a server.
func bridgeDiscover(id, init []byte) []byte {
	versions := []string{wire.Stateless}
	if v := wire.Str(member(init, "protocolVersion")); v != "" && !wire.IsStateless(v) {
		versions = append(versions, v)
	}
	vs, _ := json.Marshal(versions) // strings always encode
	caps := member(init, "capabilities")
	if !isObject(caps) {
		caps = []byte("{}")
	}
	for _, feature := range []string{"tools", "prompts", "resources"} {
		if f := member(caps, feature); isObject(f) {
			caps = setMember(caps, feature, deleteMembers(f, "listChanged", "subscribe"))
		}
	}
	res := []byte(`{"supportedVersions":` + string(vs) + `,"capabilities":`)
	res = append(res, caps...)
	res = append(res, '}')
	if instr := member(init, "instructions"); wire.IsString(instr) {
		res = setMember(res, "instructions", instr)
	}
	if info := member(init, "serverInfo"); isObject(info) {
		res = setMember(res, "_meta", append(append([]byte(`{"`+wire.MetaServerInfo+`":`), info...), '}'))
	}
	res = completeResult(res, "server/discover")
	res = setMember(res, "ttlMs", []byte("0"))
	res = setMember(res, "cacheScope", []byte(`"private"`))
	return []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + string(res) + `}`)
}

// completeResult gives a result of a server of the session era what
// revision 2026-07-28 requires of it, where it lacks it, as the
// TypeScript SDK's server fills it in: resultType "complete", and for the
// lists and resources/read, ttlMs 0 and cacheScope "private" (a client
// keeps nothing, and shares nothing between users).
func completeResult(res []byte, method string) []byte {
	if cacheable[method] {
		if !hasMember(res, "ttlMs") {
			res = setMember(res, "ttlMs", []byte("0"))
		}
		if !hasMember(res, "cacheScope") {
			res = setMember(res, "cacheScope", []byte(`"private"`))
		}
	}
	if !hasMember(res, "resultType") {
		res = setMember(res, "resultType", []byte(`"complete"`))
	}
	return res
}

// serveStateless serves one request of a client of revision 2026-07-28 on
// the process: under an id of the proxy's own, answered as JSON or as an
// event stream as the client accepts (a subscriptions/listen always as a
// stream). It ends with the response, when the client goes (the server is
// told, by notifications/cancelled), or when the server stays silent too
// long (see defaultSilence).
func (s *session) serveStateless(w http.ResponseWriter, r *http.Request, m posted, listen bool) {
	st := &stream{
		wake: make(chan struct{}, 1), sse: listen || accepts(r, "text/event-stream"),
		clientID: m.id, method: m.method, auth: r.Header.Get("Authorization"), listen: listen,
	}
	if s.bridge && m.method == methodToolsCall {
		s.awaitTools(r)
	}
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		answerNow(w, wire.ErrorResponse(m.id, wire.CodeInternalError, "Internal error: the MCP server exited before it answered"))
		return
	}
	s.ownSeq++
	ownID := []byte(strconv.Quote(relay.OwnPrefix + s.listNonce + "/" + strconv.FormatUint(s.ownSeq, 10)))
	st.key, _ = wire.IDKey(ownID)
	var tok []byte
	if t := member(member(member(m.line, "params"), "_meta"), "progressToken"); t != nil {
		s.ownSeq++
		tok = []byte(strconv.Quote(relay.OwnPrefix + s.listNonce + "/progress/" + strconv.FormatUint(s.ownSeq, 10)))
		st.tokenKey, _ = wire.IDKey(tok)
		st.clientTok = bytes.Clone(t)
		s.progress[st.tokenKey] = st
		st.tokens = []string{st.tokenKey}
	}
	line := s.rewriteRequest(m.line, ownID, tok)
	st.pending = map[string][]byte{st.key: m.id}
	st.order = []string{st.key}
	if !st.sse {
		st.answers = map[string][]byte{}
	}
	s.waiters[st.key] = st
	s.mu.Unlock()

	var silence *time.Timer
	if !listen { // a subscription is silent by nature
		silence = time.NewTimer(s.c.silent)
		defer silence.Stop()
	}
	s.pumpStateless(w, r, st, s.sendAsync(line), silence)
}

// pumpStateless writes a stateless request's messages (see
// serveStateless) until its response. sending delivers the outcome of the
// request's write to the process; silence (nil for none) bounds the wait
// for it and then for each message of the request.
func (s *session) pumpStateless(w http.ResponseWriter, r *http.Request, st *stream, sending <-chan error, silence *time.Timer) {
	var silent <-chan time.Time
	reset := func() {
		if silence != nil {
			silence.Reset(s.c.silent)
			silent = silence.C
		}
	}
	if silence != nil {
		silent = silence.C
	}
	rc := http.NewResponseController(w)
	flush := func() error {
		if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		return nil
	}
	// The stream starts with its first message (or keep-alive), as the
	// TypeScript SDK's does: an error that comes alone is answered as
	// JSON, with the HTTP status the SDKs give it (see errorStatus). A
	// subscription's stream starts at once.
	streaming := false
	startStream := func() error {
		streaming = true
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache, no-transform")
		h.Set("X-Accel-Buffering", "no")
		w.WriteHeader(http.StatusOK)
		return flush()
	}
	var tick <-chan time.Time
	if st.sse {
		if st.listen && startStream() != nil {
			s.abandon(st, sending, "the client has gone")
			return
		}
		if d := s.c.keepAlive; d > 0 {
			t := time.NewTicker(d)
			defer t.Stop()
			tick = t.C
		}
	}
	for {
		s.mu.Lock()
		st.pumping = true
		lines := st.queue
		st.queue = nil
		final := st.final
		if len(lines) > 0 {
			s.room.Broadcast()
		}
		s.mu.Unlock()
		if final && (!st.sse || !streaming && len(lines) == 1) {
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
			if !streaming && startStream() != nil {
				s.abandon(st, sending, "the client has gone")
				return
			}
			for _, line := range lines {
				if err := eventstream.WriteEvent(w, "", line); err != nil {
					s.abandon(st, sending, "the client has gone")
					return
				}
			}
			if flush() != nil {
				s.abandon(st, sending, "the client has gone")
				return
			}
		}
		if final {
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
		case <-st.wake:
		case <-r.Context().Done():
			s.abandon(st, sending, "the client has gone")
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
			}
			if sending != nil {
				why := fmt.Sprintf("the MCP server did not read its input for %v", s.c.silent)
				s.c.r.Logger.Warn("selfheal proxy: a process of the MCP server does not read its input; it is stopped", "silence", s.c.silent)
				s.stop(why) // its end answers the request
			} else {
				s.timeout(st)
			}
		case <-tick:
			if !streaming && startStream() != nil {
				s.abandon(st, sending, "the client has gone")
				return
			}
			if _, err := io.WriteString(w, ": keepalive\n\n"); err != nil || flush() != nil {
				s.abandon(st, sending, "the client has gone")
				return
			}
		}
	}
}

// errorStatus is the HTTP status of a stateless request's answer, as the
// SDKs' servers give it when the answer comes alone: 404 for a method not
// found, 400 for the errors of a request the revision refuses (parse,
// invalid request, headers, client capabilities, protocol version), 200 for
// any other answer, results and the other errors alike (they are the
// answer, not a failure of HTTP).
func errorStatus(answer []byte) int {
	code := member(member(answer, "error"), "code")
	switch string(code) {
	case "-32601":
		return http.StatusNotFound
	case "-32700", "-32600", "-32020", "-32021", "-32022":
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// rewriteRequest returns a client's request as the process gets it: under
// the proxy's id, with the proxy's progress token (when tok is not nil),
// and for a bridge without the stateless envelope. s.mu is held.
func (s *session) rewriteRequest(line, id, tok []byte) []byte {
	body := setMember(bytes.TrimRight(line, "\r\n"), "id", id)
	params := member(body, "params")
	if meta := member(params, "_meta"); meta != nil {
		if tok != nil {
			meta = setMember(meta, "progressToken", tok)
		}
		if s.bridge {
			meta = deleteMembers(meta, envelopeKeys...)
		}
		if m, _, _ := spans(meta); len(m) == 0 {
			params = deleteMembers(params, "_meta")
		} else {
			params = setMember(params, "_meta", meta)
		}
		body = setMember(body, "params", params)
	}
	return append(body, '\n')
}

// abandon forgets a request whose client has gone before its response:
// the response is dropped when it comes, and the server is told that the
// request is cancelled, once the request itself has been written (sending
// delivers that; nil when it was).
func (s *session) abandon(st *stream, sending <-chan error, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st.gone = true
	if st.final {
		return
	}
	if s.waiters[st.key] == st {
		delete(s.waiters, st.key)
	}
	s.unlistLocked(st)
	s.room.Broadcast()
	s.cancelLocked(st, sending, why)
}

// timeout answers a request whose server stayed silent too long with a
// JSON-RPC error, and tells the server that it is cancelled.
func (s *session) timeout(st *stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.final {
		return
	}
	s.c.r.Logger.Warn("selfheal proxy: a request got nothing from the MCP server for too long; it is cancelled", "method", st.method, "silence", s.c.silent)
	s.answerLocked(st, st.key, append(wire.ErrorResponse(st.clientID, codeTimeout,
		fmt.Sprintf("Request timed out: the MCP server sent nothing for this request in %v; it is cancelled", s.c.silent)), '\n'))
	s.room.Broadcast()
	s.cancelLocked(st, nil, "timed out")
}

// cancelLocked sends the server notifications/cancelled for st's request,
// once: after sending, when it is not nil, has delivered. s.mu is held.
func (s *session) cancelLocked(st *stream, sending <-chan error, why string) {
	if st.cancelled {
		return
	}
	st.cancelled = true
	reason, _ := json.Marshal(why) // a string always encodes
	line := []byte(`{"jsonrpc":"2.0","method":"` + methodCancelled + `","params":{"requestId":` + strconv.Quote(st.key[1:]) + `,"reason":` + string(reason) + "}}\n")
	go func() {
		if sending != nil && <-sending != nil {
			return // not written: nothing to cancel
		}
		_ = s.send(line) // fails only when the process ends
	}()
}

// cancelled passes a client's notifications/cancelled on to the process
// serving the request it names, under the proxy's id for it: the one
// request under way with that id from a client with the same
// Authorization header. With none, or several (two clients without
// credentials that chose the same id), it is dropped: a client cannot
// cancel what may be another's.
func (c *Server) cancelled(r *http.Request, m posted) {
	params := member(m.line, "params")
	key, ok := wire.IDKey(member(params, "requestId"))
	if !ok {
		return
	}
	auth := r.Header.Get("Authorization")
	c.mu.Lock()
	var procs []*session
	for _, ps := range c.pool {
		procs = append(procs, ps...)
	}
	c.mu.Unlock()
	var found *stream
	var at *session
	n := 0
	for _, p := range procs {
		p.mu.Lock()
		for _, st := range p.waiters {
			if k, _ := wire.IDKey(st.clientID); k == key && st.auth == auth && !st.cancelled {
				found, at = st, p
				n++
			}
		}
		p.mu.Unlock()
	}
	if n != 1 {
		c.r.Logger.Debug("selfheal proxy: a cancellation names no one request under way; it is dropped", "matches", n)
		return
	}
	at.mu.Lock()
	if found.final || found.cancelled || at.waiters[found.key] != found {
		at.mu.Unlock()
		return
	}
	found.cancelled = true
	line := setMember(bytes.TrimRight(m.line, "\r\n"), "params", setMember(params, "requestId", []byte(strconv.Quote(found.key[1:]))))
	if at.bridge {
		if meta := member(member(line, "params"), "_meta"); meta != nil {
			line = setMember(line, "params", setMember(member(line, "params"), "_meta", deleteMembers(meta, envelopeKeys...)))
		}
	}
	at.mu.Unlock()
	// Written before the POST is answered, so that what the client sends
	// next reaches the server after it; a process that does not read holds
	// it no longer than a request.
	t := time.NewTimer(c.silent)
	defer t.Stop()
	select {
	case <-at.sendAsync(append(line, '\n')):
	case <-t.C:
	case <-r.Context().Done():
	}
}

// routePooled routes one of a pooled process's messages: a response to
// the proxy's own request to it, to its listing of the tools, or to a
// client's request, restored to the client's id (and for a bridge,
// completed: see completeResult); a progress notification to the stream
// of its token, restored to the client's token; a notification of a
// subscription to that subscription's stream; another notification to the
// one request under way on the process, when there is one and it has a
// stream. The rest is dropped: no session keeps it. A request of the
// server is answered by the proxy: ping, and with an error anything else,
// since a stateless client cannot be asked anything in the middle of its
// request.
func (s *session) routePooled(line []byte, m *wire.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case m.IsResponse():
		key, _ := wire.IDKey(m.ID)
		if answer := s.own[key]; answer != nil {
			delete(s.own, key)
			answer <- line
			return
		}
		if key != "" && key == s.listKey {
			s.listed(m)
			return
		}
		st := s.waiters[key]
		if st == nil {
			s.c.r.Logger.Debug("selfheal proxy: a response is dropped: its client has gone")
			return
		}
		body := setMember(bytes.TrimRight(line, "\r\n"), "id", st.clientID)
		res := member(body, "result")
		if meta := member(res, "_meta"); st.listen && hasMember(meta, metaSubscriptionID) {
			res = setMember(res, "_meta", setMember(meta, metaSubscriptionID, st.clientID))
			body = setMember(body, "result", res)
		}
		if s.bridge && isObject(res) {
			body = setMember(body, "result", completeResult(res, st.method))
		}
		if st.method == "tools/list" && isObject(res) {
			s.c.params.learn(res)
		}
		if s.roomFor(st) && s.waiters[key] == st {
			s.answerLocked(st, key, append(body, '\n'))
		}
	case m.HasMethod && m.ID != nil:
		var reply []byte
		if m.Method == methodPing {
			reply = []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`)
		} else {
			s.c.r.Logger.Debug("selfheal proxy: the MCP server asked a stateless client something; the proxy answers with an error", "method", m.Method)
			reply = wire.ErrorResponse(m.ID, codeMethodNotFound, "Method not found: "+m.Method+": the client speaks protocol revision "+wire.Stateless+" through selfheal proxy, without a session to carry the server's requests")
		}
		s.sendAsync(append(reply, '\n'))
	default:
		if m.Method == notifyToolsChanged {
			s.c.params.forget()
		}
		st, out := s.notifyTargetLocked(m, line)
		if st != nil && s.roomFor(st) {
			st.queue = append(st.queue, out)
			st.signal()
		}
	}
}

// roomFor waits while st's stream holds as many messages as a stream may
// (see defaultQueue); false when st wants no more meanwhile. s.mu is held.
func (s *session) roomFor(st *stream) bool {
	for !s.ended && !st.final && !st.gone {
		if !st.sse || !st.pumping || len(st.queue) < s.c.queue {
			return true
		}
		s.room.Wait()
	}
	return false
}

// notifyTargetLocked returns the stream a notification of a pooled process
// goes to (nil for none), and the notification as its client gets it.
// s.mu is held.
func (s *session) notifyTargetLocked(m *wire.Message, line []byte) (*stream, []byte) {
	body := bytes.TrimRight(line, "\r\n")
	withParams := func(params []byte) []byte {
		return append(setMember(body, "params", params), '\n')
	}
	if m.Method == methodProgress {
		key, ok := wire.IDKey(member(m.Params, "progressToken"))
		if st := s.progress[key]; ok && st != nil && st.sse {
			return st, withParams(setMember(m.Params, "progressToken", st.clientTok))
		}
		return nil, nil
	}
	meta := member(m.Params, "_meta")
	if sub := member(meta, metaSubscriptionID); sub != nil {
		key, ok := wire.IDKey(sub)
		if st := s.waiters[key]; ok && st != nil && st.sse {
			return st, withParams(setMember(m.Params, "_meta", setMember(meta, metaSubscriptionID, st.clientID)))
		}
		return nil, nil
	}
	var only *stream
	n := 0
	for _, st := range s.waiters {
		if !st.listen {
			only = st
			n++
		}
	}
	if n == 1 && only.sse {
		return only, line
	}
	return nil, nil
}
