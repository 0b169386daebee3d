package sessions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// The pool of the clients of revision 2026-07-28: the server finds out once
// what its server speaks (probe), then serves them from processes relayed
// by Serve, bridged when the server speaks only the session era. An idle
// process takes a request; else a new one starts (up to poolMax), else the
// least busy takes it. Each request goes under an id of the proxy's own.

// upstreamEra is what the server speaks, as a probe found it.
type upstreamEra struct {
	// versions are the stateless revisions served (2026-07-28 alone for a
	// bridge).
	versions []string
	bridge   bool
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

// postStateless serves a POST of revision 2026-07-28: a notification is
// taken (a cancellation passed on), a request served by a pooled process.
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
		answerNow(w, http.StatusBadRequest, m.answer)
		return
	}
	if bad := standardHeaders(r.Header, sl); bad != nil {
		bad.write(w)
		return
	}
	if m.method == methodInitialize {
		// Not a method of the revision, as the SDKs answer it; and it
		// would start a shared process's session again.
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
		answerNow(w, http.StatusOK, wire.ErrorResponse(m.id, codeMethodNotFound, "Method not found: subscriptions/listen: the MCP server behind this proxy speaks only protocol revision "+wire.Stateful+" and earlier, which has no subscriptions"))
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
		answerNow(w, http.StatusOK, bridgeDiscover(m.id, p.init))
		return
	}
	p.serveStateless(w, r, m, listen)
}

// failed answers a request no process can serve: 503 when there is no
// process to be had, else a JSON-RPC error (nothing to a client gone).
func (c *Server) failed(w http.ResponseWriter, r *http.Request, id []byte, err error) {
	switch {
	case r.Context().Err() != nil:
	case errors.Is(err, errBusy):
		c.r.Logger.Warn("selfheal proxy: a request of a client of revision 2026-07-28 is refused: too many processes", "max", c.maxSessions)
		(&refusal{status: http.StatusServiceUnavailable, id: id, code: -32000, msg: "Service Unavailable: too many processes"}).write(w)
	case errors.Is(err, errShutdown):
		(&refusal{status: http.StatusServiceUnavailable, id: id, code: -32000, msg: "Service Unavailable: the server is shutting down"}).write(w)
	default:
		answerNow(w, http.StatusOK, wire.ErrorResponse(id, wire.CodeInternalError, "Internal error: "+err.Error()))
	}
}

// answerNow answers with a response the proxy wrote, as JSON with status.
func answerNow(w http.ResponseWriter, status int, line []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(bytes.TrimRight(line, "\n"))
}

// upstreamEra returns what the server speaks, probing it the first time;
// requests meanwhile wait for the same probe, and a failed probe is tried
// again by the next request.
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

// probe asks a new process server/discover with the proxy's own client
// info: a server naming a stateless revision among its supportedVersions
// speaks it; an error or none makes it of the session era, bridged (see
// bridgeHandshake). No answer within the handshake bound (a hand-written
// server may drop what it does not know): initialize is tried, and an
// answer makes it of the session era too. The process joins the pool.
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

// reserveLocked counts a process about to start in part, unless closed or
// at maxSessions. c.mu is held.
func (c *Server) reserveLocked(part string) bool {
	if c.closed || c.live >= c.maxSessions {
		return false
	}
	c.live++
	c.running.Add(1)
	c.starting[part]++
	return true
}

// startPooled starts a process of pool part, reserved, and returns it
// entered and launched, not ready yet (markReady).
func (c *Server) startPooled(part string) (*session, error) {
	nonce := wire.Nonce()
	s, err := c.begin(nonce, part, func(s *session) {
		s.pooled, s.nonce = true, nonce
		s.ready, s.own = make(chan struct{}), map[string]chan []byte{}
		c.pool[part] = append(c.pool[part], s)
	})
	c.mu.Lock()
	if c.starting[part]--; c.starting[part] == 0 {
		delete(c.starting, part)
	}
	c.mu.Unlock()
	if err != nil && !errors.Is(err, errShutdown) {
		c.r.Logger.Error("selfheal proxy: cannot start a process of the MCP server", "error", err)
		return nil, errors.New("cannot start the MCP server")
	}
	return s, err
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

// acquire returns a ready process of pool part for a request, entered: an
// idle one; else a new one below poolMax and maxSessions; else the least
// busy. counted: the request counts as busy (a subscriptions/listen, which
// costs its server nothing, does not).
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

// markReady says whether the process can take requests (err nil).
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

// ask sends the proxy's own request to the process and returns the
// response, or an error after the handshake bound or the process's end.
func (s *session) ask(method, params string) (*wire.Message, error) {
	s.mu.Lock()
	s.ownSeq++
	id := strconv.Quote(relay.OwnPrefix + s.nonce + "/" + method + "/" + strconv.FormatUint(s.ownSeq, 10))
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

// unanswered is the error of the proxy's own request left unanswered.
type unanswered struct {
	method string
	within time.Duration
}

func (e *unanswered) Error() string {
	return fmt.Sprintf("the MCP server did not answer %s within %v", e.method, e.within)
}

// sendAsync sends lines to the process without waiting: a process that
// does not read holds the send, not its caller.
func (s *session) sendAsync(lines []byte) <-chan error {
	done := make(chan error, 1)
	go func() { done <- s.send(lines) }()
	return done
}

// bridgeHandshake initializes a process of the session era as a client
// would: initialize for revision 2025-11-25 with the proxy's client info
// and no capabilities (so that the server asks nothing), then
// notifications/initialized. The process is ready once they are written.
func (s *session) bridgeHandshake() {
	m, err := s.initialize()
	if err != nil {
		s.fail(err)
		return
	}
	s.initializedBy(m)
}

// initialize asks the process initialize; an error unless it is a result.
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

// initializedBy ends bridgeHandshake once the server has answered m.
func (s *session) initializedBy(m *wire.Message) {
	s.mu.Lock()
	s.init = bytes.Clone(m.Result)
	s.initialized(m)
	lines := []byte(`{"jsonrpc":"2.0","method":"` + methodInitialized + `"}` + "\n")
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

// bridgeDiscover answers server/discover of id for a server of the session
// era from its initialize result, with the TypeScript SDK's defaults.
// listChanged and subscribe are left out: a stateless client would learn of
// changes by subscriptions/listen, which such a server cannot give.
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

// completeResult gives a result of the session era what revision
// 2026-07-28 requires, where missing, as the TypeScript SDK fills it in:
// resultType "complete", and for the lists and resources/read ttlMs 0 and
// cacheScope "private".
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
