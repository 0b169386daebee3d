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
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/selfheal/selfheal/mcp/proxy/internal/eventstream"
	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// The bounds and timings of Server. Everything a client controls is
// bounded: the size of a body, the messages of a batch, the sessions (each
// one a process), the messages kept for a session with no stream open.
const (
	// defaultMaxSessions bounds the sessions of a Server, hence its
	// processes: an initialize request beyond it is answered 503.
	defaultMaxSessions = 1000
	// defaultIdle is how long a session with no request under way and no
	// stream open lives: a client that went away without DELETE does not
	// keep its process forever.
	defaultIdle = 30 * time.Minute
	// defaultGrace is how long a server has to exit once its stdin is closed
	// (and how long its output may stay open after it exited) before it is
	// killed.
	defaultGrace = 2 * time.Second
	// defaultKeepAlive is the interval of the SSE comments that keep a quiet
	// stream open through proxies and load balancers (the TypeScript SDK's
	// default).
	defaultKeepAlive = 15 * time.Second
	// defaultMaxBody bounds a POST body (the TypeScript SDK's default, 4 MiB):
	// a larger one is answered 413.
	defaultMaxBody = 4 << 20
	// defaultMaxBatch bounds the messages of a JSON-RPC batch (as the
	// TypeScript SDK does).
	defaultMaxBatch = 100
	// defaultBacklog bounds the server's messages kept for a session with no
	// stream open to carry them; the oldest are dropped beyond it.
	defaultBacklog = 1000
	// defaultListWait bounds how long a call waits for the proxy's own
	// listing of the tools under way (see session.listTools), as
	// upstream mode bounds its own; past it, calls pass unchecked until the
	// listing ends.
	defaultListWait = 5 * time.Second
	// defaultReplay bounds the events an SSE stream keeps for a client that
	// resumes it (GET with Last-Event-ID): its latest, those that may not
	// have reached a client whose connection broke.
	defaultReplay = 100
	// defaultKept bounds the POST streams a session keeps for a resume once
	// they have ended or their client has gone: the latest; an older one
	// is forgotten, and the responses to its requests are dropped.
	defaultKept = 16
	// defaultQueue bounds the messages waiting to be written to one stream:
	// beyond it the session's server is read no further until that
	// stream's client reads, as a stdio client that does not read holds
	// its server back.
	defaultQueue = 256
	// defaultPoolMax bounds the processes that serve the clients of revision
	// 2026-07-28 (per WithLimitBy value; see pool.go): a new one starts only
	// when every one has a request under way, and beyond the bound the
	// least busy one takes the request. Servers that take requests
	// concurrently (the SDKs' do) rarely need more than one; eight spread
	// a server that handles one request at a time.
	defaultPoolMax = 8
	// defaultPoolIdle is how long a process of the pool with no request under
	// way lives.
	defaultPoolIdle = 5 * time.Minute
	// defaultHandshake bounds the proxy's own exchanges with a new process of
	// the pool: server/discover, and initialize for a server that speaks
	// only the session era. A server that does not answer within it fails
	// the requests that wait for it with a JSON-RPC error.
	defaultHandshake = 30 * time.Second
	// defaultSilence bounds how long a request of a client of revision
	// 2026-07-28 waits while its server sends nothing for it (the
	// upstream mode's default bound): past it, the client gets a JSON-RPC
	// error and the server a cancellation. A request that streams progress
	// is never cut. A process that has not read a request for that long is
	// stopped.
	defaultSilence = 5 * time.Minute
)

// headerSessionID is the header carrying a session's id.
const headerSessionID = "Mcp-Session-Id"

// The methods the server reads.
const (
	// methodInitialize starts a session.
	methodInitialize = "initialize"
	// methodToolsCall waits for the proxy's own listing (see awaitTools).
	methodToolsCall = "tools/call"
	// methodProgress is the notification a request's progress token routes.
	methodProgress = "notifications/progress"
)

// Server serves a stdio MCP server over the Streamable HTTP transport of
// MCP. For the session era (revision 2025-11-25 and earlier) it runs one
// process per session: each initialize request starts a process, whose
// session ends with it. A server that speaks only stdio can so be reached
// over HTTP and run behind a load balancer (with sticky sessions: a session
// lives in one replica). Each session is relayed as [proxy.Proxy.Serve]
// relays one over stdio, with its own learned tools, guards and answers to
// bad calls (see [proxy.Proxy]). Clients of revision 2026-07-28 are served
// without sessions (see below).
//
// As upstream mode does, the proxy lists the tools itself, so that every
// call is checked whether the client lists them or not: when the
// initialize response declares tools, its own tools/list (every page, with
// ids no client can collide with, answers the client never sees) follows
// the client's notifications/initialized. A call sent while that listing
// runs waits for it, at most five seconds after it began; past that, and
// when it fails, calls pass unchecked until the tools are listed.
// Arguments are read at any depth and judged as over stdio: those nested
// past the depth limit are forwarded unchecked, refused with
// [proxy.WithStrict].
//
// A Server is an http.Handler, safe for concurrent use; Close ends it.
//
// Over HTTP, POST carries the client's messages (one JSON-RPC message per
// body, or a batch of at most 100): a notification or a response is
// answered 202; a request is answered with a text/event-stream stream
// carrying the server's messages that concern it and then its response,
// when the client accepts text/event-stream, else with the response as
// JSON. GET opens the session's stream of the server's other requests and
// notifications (one at a time); DELETE ends the session. Bodies are
// bounded at 4 MiB (413 beyond), processes at 1000 (503 for a new session
// beyond), and a session with no request under way and no stream open for
// 30 minutes is ended. A request whose params is neither an object nor
// null is answered by the proxy, never forwarded (a server may drop it
// without an answer, as the TypeScript SDK does): an array with -32602
// Invalid params, a string, number or boolean with -32600 Invalid Request.
//
// Streams can be resumed. Every event carries an id, "N-M" (the session's
// stream N, its event M), and a POST's stream begins with an event that
// has an id and no data (for protocol versions from 2025-11-25 on, before
// 2026-07-28), so that a client whose connection breaks before the first
// message can resume too. A GET with Last-Event-ID resumes the stream of
// that event: the events after it that the stream still keeps (its latest
// 100), then the rest, to the response; the client gone, the stream's
// responses and progress wait for it. A session keeps the 16 latest POST
// streams that ended or whose client went; an older one is forgotten and
// the responses it still awaited are dropped. The GET stream can be
// resumed while no other is open. A Last-Event-ID of no stream kept is
// answered 400.
//
// The server's messages go where the client can read them, each once and
// in the order the server wrote them: a response to the POST of its
// request (kept for a resume when that client has gone from its stream,
// dropped when it has gone from its JSON answer); a progress notification to
// the stream of the request that carried its progress token; another
// request or notification to the GET stream, else to the oldest open POST
// stream, else to a backlog of the 1000 latest, delivered when a GET
// stream opens.
//
// The limits of [proxy.WithGuard] and [proxy.WithLimiter] are shared by all
// the sessions, per tool (and per [proxy.WithLimitBy]'s value), as over
// [proxy.Proxy.HTTPHandler]: one process per session must not mean a limit
// per session. WithLimitBy's function is called once per session, with its
// initialize request carrying the new session's Mcp-Session-Id header, so
// that a function of that header limits per session.
//
// A session ends when the client sends DELETE, when it is idle, at Close,
// or when its process exits. Then the process's stdin is closed and it has
// two seconds to exit before it is killed; every request still waiting for
// its response gets a JSON-RPC error (code -32000) rather than hanging,
// and later requests for the session get 404.
//
// A client of revision 2026-07-28 has no session: a POST whose _meta or
// MCP-Protocol-Version header names that revision or a later one is served
// on its own, whatever its Mcp-Session-Id, once checked as the TypeScript
// SDK checks it (the header and the _meta agree, Mcp-Method and Mcp-Name
// name the body's method and tool, the _meta holds the client's
// capabilities; else 400 with a JSON-RPC error, -32020 or -32602; a
// revision the server does not serve, -32022 with those it does). GET and
// DELETE with such a header are answered 405, as a server without sessions
// answers them. The first such request starts a process and asks it
// server/discover with the proxy's own client info (within 30 seconds, else
// the request gets a JSON-RPC error and the next one asks again):
//
//   - A server that names 2026-07-28 among its supportedVersions gets the
//     requests as they are, server/discover and subscriptions/listen
//     included.
//   - Any other is of the session era, and bridged: the proxy initializes
//     each of its processes itself (revision 2025-11-25, no client
//     capabilities) and lists its tools, as for a session; it answers
//     server/discover from the initialize result (without listChanged and
//     subscribe, which no stateless client can be told of); it forwards
//     requests without the stateless _meta keys (a server of that era may
//     refuse a request naming a later revision); results gain resultType
//     "complete", and the lists and resources/read ttlMs 0 and cacheScope
//     "private", where they lack them. subscriptions/listen is answered
//     -32601.
//
// Either way the requests are served by a pool of processes, one pool per
// [proxy.WithLimitBy] value (so that limits stay per that value): an idle
// process takes a request; when every one has a request under way a new one
// starts, up to 8, past which the least busy one takes it; a process idle
// for 5 minutes is stopped, and one that exits is replaced when a request
// needs it. Since clients share a process, each request goes to it under an
// id of the proxy's own, unique in the process (and so does its progress
// token); the answer and the notifications come back under the client's, as
// the client wrote them. The answer is an event stream (without event ids:
// the revision has no resumption) when the client accepts one and a message
// for the request comes before its response (or a keep-alive is due: 15
// seconds), as the TypeScript SDK streams; a response that comes alone is
// JSON, with the HTTP status the SDKs give it (404 for -32601; 400 for
// -32700, -32600, -32020, -32021 and -32022; else 200). A progress
// notification goes to the stream of its token, a notification of
// a subscription to the subscription's stream, any other to the one request
// under way on the process if there is exactly one and it has a stream, and
// is dropped otherwise. A request of the server is answered by the proxy:
// ping with {}, anything else with -32601, since a stateless client cannot
// be asked anything in the middle of its request. A client's
// notifications/cancelled goes to the process serving the one request under
// way with that id from a client with the same Authorization header, under
// the proxy's id for it; a client that goes before its answer cancels its
// request. A request whose server sends nothing for it for 5 minutes gets
// -32001 and is cancelled; a process that does not read a request for that
// long is stopped, and its requests get -32603, as when a process exits.
// Pooled processes count in the bound of 1000 processes.
//
// A tool may mirror arguments in headers: a property of its inputSchema
// marked "x-mcp-header": "Name" (SEP-2243). A client of revision 2026-07-28
// that calls it must send each such argument it gives again in the header
// Mcp-Param-Name, as it is or as "=?base64?…?=": a header missing, in a
// Base64 form that is not canonical or not UTF-8, or naming another value
// (integers compared as numbers) is answered 400 with -32020 and the
// disagreeing pair in data.mismatch, as the TypeScript SDK v2 server
// answers it, and the call reaches no process. The proxy learns the
// declarations from the tools/list results its pool returns; for a call of a
// tool it does not know it lists the tools itself first (every page, in the
// call's revision; each page within 30 seconds, else the call is forwarded
// unchecked), and it forgets them when a process says its tools changed
// (notifications/tools/list_changed). Tools without declarations, tools
// whose declarations break the revision's rules (a client leaves them
// out), and clients of the session era are not concerned.
//
// Server checks the Host and Origin headers as HTTPHandler does (see
// [proxy.WithAllowedHosts], [proxy.WithAllowedOrigins]); it authenticates
// no one: wrap it in an authenticating handler as the deployment needs.
type Server struct {
	// r is what the server uses of its proxy. Its Limiter admits the
	// calls of every session: WithLimiter's, or one in this process for
	// WithGuard's limits, so that limits are per tool across sessions as
	// over HTTPHandler; nil for none.
	r     *relay.Relay
	start func() *exec.Cmd

	// The bounds and timings (the constants above), fields so that a test
	// may lower them.
	maxSessions            int
	idle, grace, keepAlive time.Duration
	maxBody                int64
	maxBatch               int
	backlog, queue         int

	listWait     time.Duration
	replay, kept int

	poolMax                     int
	poolIdle, handshake, silent time.Duration

	mu       sync.Mutex
	sessions map[string]*session // by id; a session leaves when it ends
	// live counts the processes started or being started and not reaped
	// yet: the bound of maxSessions, ended sessions' processes included.
	live   int
	closed bool
	// running counts the sessions started or being started until their
	// process has been reaped: Close waits for them.
	running sync.WaitGroup

	// The clients of revision 2026-07-28 (see pool.go). era is what the
	// server speaks, nil until a probe has found out; probing is the probe
	// under way, nil for none. pool are the processes that serve those
	// clients, by WithLimitBy's value ("" without it); starting counts
	// those being started.
	era      *upstreamEra
	probing  *eraProbe
	pool     map[string][]*session
	starting map[string]int
	// params are the tools' x-mcp-header declarations (see params.go).
	params paramTools
}

// New returns a handler that relays each session as p does and starts the
// process start returns for each new session (see the Server type). start
// is called once per initialize request, on its goroutine, and must return
// a new, unstarted command. The Server sets the command's Stdin and Stdout
// to pipes of its own; Stderr is left as start set it (nil: discarded). When start leaves
// WaitDelay at 0 it is set to two seconds, so that a process the server
// started and that holds its stderr open cannot keep a session from
// ending.
func New(r *relay.Relay, start func() *exec.Cmd, warm int) *Server {
	return &Server{
		r: r, start: start,
		maxSessions: defaultMaxSessions, idle: defaultIdle, grace: defaultGrace, keepAlive: defaultKeepAlive, listWait: defaultListWait,
		replay: defaultReplay, kept: defaultKept,
		maxBody: defaultMaxBody, maxBatch: defaultMaxBatch, backlog: defaultBacklog, queue: defaultQueue,
		poolMax: defaultPoolMax, poolIdle: defaultPoolIdle, handshake: defaultHandshake, silent: defaultSilence,
		sessions: map[string]*session{},
		pool:     map[string][]*session{}, starting: map[string]int{},
	}
}

// ServeHTTP serves one request of the Streamable HTTP transport: POST,
// GET or DELETE (405 for other methods). After Close, every request is
// answered 503.
func (c *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if c.r.Forbidden(w, r) {
		return
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		httpError(w, http.StatusServiceUnavailable, -32000, "Service Unavailable: the server is shutting down")
		return
	}
	switch r.Method {
	case http.MethodPost:
		c.post(w, r)
	case http.MethodGet:
		c.get(w, r)
	case http.MethodDelete:
		c.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, -32000, "Method not allowed.")
	}
}

// Close ends every session: it closes each process's stdin, waits a short
// grace (two seconds) for it to exit, kills what is left, and returns once
// every process has been reaped. Requests under way get their JSON-RPC
// error; new requests get 503. It returns nil.
func (c *Server) Close() error {
	c.mu.Lock()
	c.closed = true
	all := make([]*session, 0, len(c.sessions))
	for _, s := range c.sessions {
		all = append(all, s)
	}
	for _, procs := range c.pool {
		all = append(all, procs...)
	}
	c.mu.Unlock()
	for _, s := range all {
		s.stop("the proxy is shutting down; the MCP server did not answer")
	}
	c.running.Wait()
	return nil
}

// post handles a POST: an initialize request starts a session, any other
// message goes to the session its Mcp-Session-Id names.
func (c *Server) post(w http.ResponseWriter, r *http.Request) {
	if wire.MediaType(r.Header.Get("Content-Type")) != "application/json" {
		httpError(w, http.StatusUnsupportedMediaType, -32000, "Unsupported Media Type: Content-Type must be application/json")
		return
	}
	if r.ContentLength > c.maxBody {
		httpError(w, http.StatusRequestEntityTooLarge, -32000, c.tooLarge())
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, c.maxBody))
	if err != nil {
		if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
			httpError(w, http.StatusRequestEntityTooLarge, -32000, c.tooLarge())
		} else {
			httpError(w, http.StatusBadRequest, -32700, "Parse error: the body cannot be read")
		}
		return
	}
	msgs, batch, bad := parsePosted(body, c.maxBatch)
	if bad != nil {
		httpError(w, http.StatusBadRequest, bad.code, bad.msg)
		return
	}
	if st, refused := classify(r.Header, msgs, batch); refused != nil {
		refused.write(w)
		return
	} else if st != nil {
		c.postStateless(w, r, st)
		return
	}
	initialize := slices.ContainsFunc(msgs, func(m posted) bool { return m.key != "" && m.method == methodInitialize })
	if !initialize {
		if s := c.named(w, r); s != nil {
			s.post(w, r, msgs, batch)
		}
		return
	}
	if len(msgs) > 1 {
		httpError(w, http.StatusBadRequest, -32600, "Invalid Request: Only one initialization request is allowed")
		return
	}
	if msgs[0].answer != nil { // no process for a request no server can take
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(bytes.TrimRight(msgs[0].answer, "\n"))
		return
	}
	if id := r.Header.Get(headerSessionID); id != "" {
		c.mu.Lock()
		known := c.sessions[id] != nil
		c.mu.Unlock()
		if known {
			httpError(w, http.StatusBadRequest, -32600, "Invalid Request: Server already initialized")
		} else {
			httpError(w, http.StatusNotFound, -32001, "Session not found")
		}
		return
	}
	s, status, msg := c.open(r)
	if s == nil {
		httpError(w, status, -32000, msg)
		return
	}
	s.mu.Lock()
	s.initKey = msgs[0].key // its response says whether the server has tools
	s.mu.Unlock()
	s.post(w, r, msgs, batch)
}

func (c *Server) tooLarge() string {
	return fmt.Sprintf("Payload Too Large: Request body must not exceed %d bytes", c.maxBody)
}

// get opens the session's standalone stream.
func (c *Server) get(w http.ResponseWriter, r *http.Request) {
	if modernHeader(r) {
		noSessionMethod(w, r)
		return
	}
	if !accepts(r, "text/event-stream") {
		// 406 as the TypeScript SDK answers; 405 would tell the client
		// that the endpoint has no stream at all.
		httpError(w, http.StatusNotAcceptable, -32000, "Not Acceptable: Client must accept text/event-stream")
		return
	}
	s := c.named(w, r)
	if s == nil {
		return
	}
	defer s.leave()
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		s.resume(w, r, last)
		return
	}
	st := &stream{wake: make(chan struct{}, 1), sse: true, standalone: true, pumping: true, gen: 1}
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		httpError(w, http.StatusNotFound, -32001, "Session not found")
		return
	}
	if s.get != nil {
		s.mu.Unlock()
		httpError(w, http.StatusConflict, -32000, "Conflict: Only one SSE stream is allowed per session")
		return
	}
	s.streamSeq++
	st.num = s.streamSeq
	s.get, s.standalone = st, st
	st.queue, s.backlog, s.dropped = s.backlog, nil, 0
	s.mu.Unlock()
	sseHeaders(w, s.id)
	w.WriteHeader(http.StatusOK)
	s.pump(w, r, st, 1, false, nil)
}

// delete ends a session, and answers once its process has been reaped.
func (c *Server) delete(w http.ResponseWriter, r *http.Request) {
	if modernHeader(r) {
		noSessionMethod(w, r)
		return
	}
	s := c.named(w, r)
	if s == nil {
		return
	}
	s.stop("the session was ended (DELETE) before the MCP server answered")
	s.leave()
	select {
	case <-s.done:
	case <-r.Context().Done():
	}
	w.WriteHeader(http.StatusOK)
}

// session returns the session r names, entered (see enter), or answers r
// with 400 (no session named) or 404 (none known) and returns nil.
func (c *Server) named(w http.ResponseWriter, r *http.Request) *session {
	id := r.Header.Get(headerSessionID)
	if id == "" {
		httpError(w, http.StatusBadRequest, -32000, "Bad Request: Mcp-Session-Id header is required")
		return nil
	}
	c.mu.Lock()
	s := c.sessions[id]
	c.mu.Unlock()
	if s == nil || !s.enter() {
		httpError(w, http.StatusNotFound, -32001, "Session not found")
		return nil
	}
	return s
}

// open starts a session for the initialize request r: its process and
// relay. It returns the session, entered, or nil with the HTTP status and
// message to answer.
func (c *Server) open(r *http.Request) (*session, int, string) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, http.StatusServiceUnavailable, "Service Unavailable: the server is shutting down"
	}
	if c.live >= c.maxSessions {
		c.mu.Unlock()
		c.r.Logger.Warn("selfheal proxy: a new session is refused: too many sessions", "max", c.maxSessions)
		return nil, http.StatusServiceUnavailable, "Service Unavailable: too many sessions"
	}
	c.live++
	c.running.Add(1)
	c.mu.Unlock()

	s, err := c.startSession(r)
	c.mu.Lock()
	if err != nil {
		c.live--
		c.mu.Unlock()
		c.running.Done()
		c.r.Logger.Error("selfheal proxy: cannot start the MCP server of a new session", "error", err)
		return nil, http.StatusInternalServerError, "Internal error: cannot start the MCP server"
	}
	c.sessions[s.id] = s
	closed := c.closed
	c.mu.Unlock()
	s.launch()
	if closed { // Close ran meanwhile, without this session
		s.stop("the proxy is shutting down; the MCP server did not answer")
		s.leave()
		return nil, http.StatusServiceUnavailable, "Service Unavailable: the server is shutting down"
	}
	return s, 0, ""
}

// startSession starts a session's process, with pipes for its stdin and
// stdout.
func (c *Server) startSession(r *http.Request) (*session, error) {
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	id := hex.EncodeToString(raw[:])
	var limitBy string
	if f := c.r.LimitBy; f != nil {
		// The initialize request, with the session's id as every later
		// request carries it: a function keyed on Mcp-Session-Id limits
		// per session, as over HTTP.
		r = r.Clone(r.Context())
		r.Header.Set(headerSessionID, id)
		limitBy = f(r)
	}
	return c.spawn(id, limitBy)
}

// spawn starts a process, with pipes for its stdin and stdout, and returns
// its session, entered once (for the request it starts for), not launched.
func (c *Server) spawn(id, limitBy string) (*session, error) {
	cmd := c.start()
	if cmd == nil {
		return nil, errors.New("the start function returned no command")
	}
	// Pipes of our own rather than cmd.StdinPipe and cmd.StdoutPipe, as in
	// "selfheal proxy": Wait closes those, so it could not run while Serve
	// still reads the server's last messages; with these, Wait only reaps
	// the process and the relay ends at the server's EOF.
	childIn, toChild, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromChild, childOut, err := os.Pipe()
	if err != nil {
		childIn.Close()
		toChild.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = childIn, childOut
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = c.grace
	}
	err = cmd.Start()
	// The child has its own copies of its ends (or failed to start); ours
	// must go, or neither side would ever see EOF.
	childIn.Close()
	childOut.Close()
	if err != nil {
		toChild.Close()
		fromChild.Close()
		return nil, err
	}
	s := &session{
		c: c, id: id, cmd: cmd, limitBy: limitBy,
		toChild: toChild, fromChild: fromChild,
		stopCh: make(chan struct{}), endedCh: make(chan struct{}),
		served: make(chan struct{}), routed: make(chan struct{}),
		exited: make(chan struct{}), done: make(chan struct{}),
		waiters:   map[string]*stream{},
		progress:  map[string]*stream{},
		resumable: map[uint64]*stream{},
		busy:      1, // the request it starts for
	}
	s.room = sync.NewCond(&s.mu)
	s.inR, s.in = io.Pipe()
	s.outR, s.outW = io.Pipe()
	return s, nil
}

// session is one session of Server: a process, Serve relaying
// between it and the pipes of the bridge, and the HTTP requests under way.
type session struct {
	c       *Server
	id      string
	cmd     *exec.Cmd
	limitBy string

	// in carries the client's messages to Serve (read from inR); inMu
	// keeps each POST's messages whole and together. Serve writes the
	// server's messages to outW; the router reads them from outR.
	in        *io.PipeWriter
	inR       *io.PipeReader
	inMu      sync.Mutex
	outR      *io.PipeReader
	outW      *io.PipeWriter
	toChild   *os.File // the process's stdin
	fromChild *os.File // the process's stdout

	stopOnce sync.Once
	stopCh   chan struct{} // closed to end the session (DELETE, Close, idle)
	stopWhy  string        // written before stopCh is closed
	endedCh  chan struct{} // closed by end
	served   chan struct{} // Serve has returned
	routed   chan struct{} // the router has read the server's last message
	exited   chan struct{} // the process has been reaped
	done     chan struct{} // all of the above

	mu sync.Mutex
	// room is signalled when a stream's queue is emptied, when a stream
	// goes, and when the session ends: the router may wait on it for a
	// stream to have room.
	room  *sync.Cond
	ended bool
	// waiters are the streams of the POSTs waiting for a response, by the
	// key (wire.IDKey) of their request's id.
	waiters map[string]*stream
	// get is the open GET stream, or nil.
	get *stream
	// posts are the open SSE streams of POSTs, oldest first.
	posts []*stream
	// progress are the SSE streams of POSTs by the key of their request's
	// progress token.
	progress map[string]*stream
	// streamSeq numbers the session's SSE streams (see stream.num).
	// resumable are the POST streams a GET with Last-Event-ID may resume,
	// by number: those open, and those in kept, the ones ended or whose
	// client has gone (oldest first, at most Server.kept). standalone is
	// the latest GET stream, open or not.
	streamSeq  uint64
	resumable  map[uint64]*stream
	kept       []*stream
	standalone *stream
	// backlog holds the server's messages that no stream could carry, for
	// the next GET stream; dropped counts those it let go since.
	backlog [][]byte
	dropped int
	// busy counts the requests under way (streams included); when it
	// falls to 0 a timer ends the session after the idle time, unless
	// idleGen has moved on.
	busy      int
	idleGen   int
	idleTimer *time.Timer

	// The proxy's own listing of the tools (see listTools). initKey is the
	// key of the initialize request's id until its response has passed;
	// tools says that the response declares the tools capability.
	initKey string
	tools   bool
	// version is the protocol version the initialize response names.
	version string
	// listDone is closed when the listing ends (nil until it starts), and
	// calls wait for it until listUntil. listKey is the key of its request
	// awaiting a response ("" for none), listPages counts its pages, and
	// listNonce and listSeq make its ids.
	listDone  chan struct{}
	listUntil time.Time
	listKey   string
	listPages int
	listNonce string
	listSeq   int

	// pooled: the process serves clients of revision 2026-07-28, in the
	// pool under limitBy (see pool.go); the other fields below are its.
	pooled bool
	// bridge: the server speaks only the session era; the proxy has
	// initialized it (init is the initialize result) and translates.
	bridge bool
	init   []byte
	// ready is closed when the process can take requests; readyErr then
	// says why it cannot.
	ready    chan struct{}
	readyErr error
	// ownSeq numbers the ids the proxy gives requests (the clients' and
	// its own, with listNonce); own are the proxy's own requests awaiting
	// their response, by key.
	ownSeq uint64
	own    map[string]chan []byte
	// load counts the requests under way for the choice of a process
	// (see Server.acquire), under Server.mu.
	load int
}

// stream is where the server's messages for one HTTP response go: the
// stream of a POST or of the GET, or the JSON answer of a POST.
type stream struct {
	wake       chan struct{} // a buffer of 1: something changed; replaced at a resume
	sse        bool          // text/event-stream, else a JSON answer
	standalone bool          // the GET stream
	// num is the stream's number in its session: the id of its event seq
	// is "num-seq" (see eventID), unique in the session, and names the
	// stream to resume.
	num uint64
	// Under the session's mu:
	// seq is the number of the stream's last event; history holds its
	// latest events (Server.replay), each kept from when it is taken to
	// be written, for a resume; gen counts the handlers that have pumped
	// the stream: a resume takes it over from the one before.
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
	// pumping: the handler writes what comes (see pump). Until then (a
	// POST's handler may be held writing its body to a server that does not
	// read), the router never waits for the stream to have room: a full one
	// is passed over, and its responses are queued regardless.
	pumping bool

	// Of a request of a client of revision 2026-07-28 (see pool.go), one
	// per stream: the key of the id the proxy gave it, the client's id and
	// progress token as written (nil for none), and the key of the token
	// the proxy gave it. listen: a subscriptions/listen, which lasts. auth
	// is the request's Authorization header, which a cancellation must
	// repeat.
	key, tokenKey       string
	clientID, clientTok []byte
	method, auth        string
	listen              bool
	// cancelled: the server has been (or is being) told that the request
	// is cancelled; it is told once.
	cancelled bool
}

// event is an event of an SSE stream: its number and its message.
type event struct {
	seq  uint64
	line []byte
}

// eventID is the id of the stream's event seq.
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

// launch starts the session's goroutines: the reaper, Serve, the router
// and the supervisor.
func (s *session) launch() {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		if err := s.cmd.Wait(); err != nil {
			s.c.r.Logger.Debug("selfheal proxy: a session's MCP server ended", "status", err)
		}
		close(s.exited)
	}()
	go func() {
		err := s.c.r.Serve(ctx, s.inR, s.outW, s.fromChild, s.toChild, s.c.r.Limiter, s.limitBy)
		if err != nil && !errors.Is(err, context.Canceled) {
			s.c.r.Logger.Debug("selfheal proxy: a session's relay ended", "error", err)
		}
		s.outW.Close()
		close(s.served)
	}()
	go s.routeAll()
	go s.supervise(cancel)
}

// supervise ends the session when its process's output ends, when the
// process exits, or when the session is stopped; then it ends the process
// and waits for the relay's goroutines.
func (s *session) supervise(cancel context.CancelFunc) {
	defer s.c.running.Done()
	why, stopped := "the MCP server exited before it answered", false
	select {
	case <-s.routed:
	case <-s.exited:
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
	// The end of the client's input: Serve passes on what it read, then
	// closes the server's stdin, its cue to exit.
	s.in.Close()
	t := time.NewTimer(s.c.grace)
	select {
	case <-s.exited:
	case <-t.C:
		s.c.r.Logger.Warn("selfheal proxy: a session's MCP server did not exit once its input was closed; it is killed", "grace", s.c.grace)
		if err := s.cmd.Process.Kill(); err != nil {
			s.c.r.Logger.Debug("selfheal proxy: killing a session's MCP server", "error", err)
		}
		<-s.exited
	}
	t.Stop()
	switch {
	case stopped:
	case s.pooled:
		s.c.r.Logger.Warn("selfheal proxy: a process of the MCP server exited; the next request that needs one starts another", "status", s.cmd.ProcessState.String())
	default:
		s.c.r.Logger.Warn("selfheal proxy: a session's MCP server exited; the session is ended", "status", s.cmd.ProcessState.String())
	}
	// Serve's read of the output ends even when a process the server
	// started holds it open.
	s.fromChild.Close()
	cancel()
	<-s.served
	s.toChild.Close() // Serve may have closed it: the error is of no interest
	<-s.routed
	s.c.mu.Lock()
	s.c.live--
	s.c.mu.Unlock()
	close(s.done)
}

// stop asks the supervisor to end the session; why is the message of the
// errors its pending requests get.
func (s *session) stop(why string) {
	s.stopOnce.Do(func() {
		s.stopWhy = why
		close(s.stopCh)
	})
}

// end ends the session for its clients: each request waiting for a
// response gets an error saying why, the streams end once they have
// written what they hold, and the session is forgotten (404 from now on).
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
	for key, st := range s.waiters {
		s.answerLocked(st, key, s.endLine(st.pending[key], why))
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

// endLine is the JSON-RPC error response, one line, to the request of id
// that the session's server will not answer: for a client of revision
// 2026-07-28, which has no session, an internal error.
func (s *session) endLine(id []byte, why string) []byte {
	if s.pooled {
		return append(wire.ErrorResponse(id, wire.CodeInternalError, "Internal error: "+why), '\n')
	}
	return errorLine(id, why)
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

// post sends a POST's messages to the session and answers it: 202 when
// they hold no request, else the stream or the JSON of the responses. The
// session has been entered for it.
func (s *session) post(w http.ResponseWriter, r *http.Request, msgs []posted, batch bool) {
	defer s.leave()
	st := &stream{wake: make(chan struct{}, 1), sse: accepts(r, "text/event-stream")}
	if slices.ContainsFunc(msgs, func(m posted) bool { return m.key != "" && m.method == methodToolsCall && m.answer == nil }) {
		s.awaitTools(r)
	}
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		httpError(w, http.StatusNotFound, -32001, "Session not found")
		return
	}
	var lines []byte
	requests := 0
	for _, m := range msgs {
		if m.answer == nil {
			lines = append(lines, m.line...)
		}
		if m.key != "" {
			requests++
		}
		if m.method == methodInitialized && m.id == nil && s.tools && s.listDone == nil {
			lines = append(lines, s.listTools()...)
		}
	}
	seen := map[string]bool{}
	for _, m := range msgs {
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
	}
	version := r.Header.Get("Mcp-Protocol-Version")
	if version == "" {
		version = s.version
	}
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
	// requests with an error, which is written as any response.
	if st.sse {
		sseHeaders(w, s.id)
		w.WriteHeader(http.StatusOK)
		s.pump(w, r, st, 1, primes(version), nil)
		return
	}
	s.answerJSON(w, r, st, batch)
}

// methodInitialized is the client's notification that ends the
// initialization: the server may get requests from then on.
const methodInitialized = "notifications/initialized"

// listTools starts the proxy's own listing of the session's tools and
// returns its request, the first page's, to send to the server after the
// client's notifications/initialized, so that calls are checked whether
// the client lists the tools or not (as upstream mode lists them itself).
// It goes through Serve as the client's own listing would, so that Serve
// learns the tools from its responses, and the router keeps them from the
// client and asks for the next page (see listed). Its ids are the stdio
// proxy's own (see relist): "selfheal-proxy/", 128 random bits, a counter,
// which no client can collide with. s.mu is held.
func (s *session) listTools() []byte {
	s.listDone = make(chan struct{})
	s.listUntil = time.Now().Add(s.c.listWait)
	return s.listRequestLocked("")
}

// listRequestLocked returns the request of the listing's page after
// cursor ("" for the first) and notes its id. s.mu is held.
func (s *session) listRequestLocked(cursor string) []byte {
	if s.listNonce == "" {
		var b [16]byte
		_, _ = rand.Read(b[:]) // never fails (crypto/rand)
		s.listNonce = hex.EncodeToString(b[:])
	}
	s.listSeq++
	s.listPages++
	id := strconv.Quote(relay.OwnPrefix + s.listNonce + "/tools-list/" + strconv.Itoa(s.listSeq))
	s.listKey, _ = wire.IDKey([]byte(id))
	req := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"`
	if cursor != "" {
		c, _ := json.Marshal(cursor) // a string always encodes
		req += `,"params":{"cursor":` + string(c) + `}`
	}
	return []byte(req + "}\n")
}

// listed reads the response to a page of the proxy's own listing (Serve
// has learned its tools): it asks for the next page, or ends the listing.
// A listing that fails ends too: calls pass unchecked until the client
// lists the tools. s.mu is held.
func (s *session) listed(m *wire.Message) {
	s.listKey = ""
	if s.pooled && m.Result != nil {
		s.c.params.learn(m.Result)
	}
	var next string
	wire.Members(m.Result, func(k, v []byte) {
		if string(k) == "nextCursor" {
			next = wire.Str(v)
		}
	})
	if next != "" && s.listPages < relay.MaxListPages {
		req := s.listRequestLocked(next)
		// Not on the router's goroutine: Serve may be held writing to
		// the router, and would never read this write.
		go func() { _ = s.send(req) }() // fails only when the session ends
		return
	}
	if next != "" {
		s.c.r.Logger.Warn("selfheal proxy: the server's tools/list has too many pages; its tools are learned again when the client lists them", "pages", relay.MaxListPages)
	}
	close(s.listDone)
}

// initialized reads the server's response to the initialize request:
// whether it declares tools, which the proxy then lists. s.mu is held.
func (s *session) initialized(m *wire.Message) {
	var caps []byte
	wire.Members(m.Result, func(k, v []byte) {
		if string(k) == "capabilities" {
			caps = v
		}
	})
	wire.Members(caps, func(k, v []byte) {
		if string(k) == "tools" && string(v) != "null" {
			s.tools = true
		}
	})
	wire.Members(m.Result, func(k, v []byte) {
		if string(k) == "protocolVersion" {
			s.version = wire.Str(v)
		}
	})
}

// awaitTools waits for the proxy's own listing under way, if any, to end,
// so that a call sent right after initialization is checked: until the
// listing's bound (defaultListWait after it began), the session's end, or the
// client's going.
func (s *session) awaitTools(r *http.Request) {
	s.mu.Lock()
	done, until := s.listDone, s.listUntil
	s.mu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
		return
	default:
	}
	t := time.NewTimer(time.Until(until))
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-s.endedCh:
	case <-r.Context().Done():
	}
}

// send writes a POST's messages to Serve, whole.
func (s *session) send(lines []byte) error {
	s.inMu.Lock()
	defer s.inMu.Unlock()
	_, err := s.in.Write(lines)
	return err
}

// pump writes the messages routed to an SSE stream, flushing them, until
// the stream is done (a POST's every request answered; the GET's session
// ended), its client has gone (see detach), or a resume has taken it over
// (gen is no longer the stream's). Each event carries its id; prime writes
// an event with an id and no data first, and replay are events written
// before, sent again to a client that resumes.
func (s *session) pump(w http.ResponseWriter, r *http.Request, st *stream, gen uint64, prime bool, replay []event) {
	rc := http.NewResponseController(w)
	flush := func() error {
		if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		return nil
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
			s.detach(st, gen, nil)
			return
		}
	}
	for _, ev := range replay {
		if err := eventstream.WriteEvent(w, st.eventID(ev.seq), ev.line); err != nil {
			s.detach(st, gen, nil)
			return
		}
	}
	if flush() != nil { // the headers: the client knows its stream is open
		s.detach(st, gen, nil)
		return
	}
	var tick <-chan time.Time
	if d := s.c.keepAlive; d > 0 {
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
		evs := s.recordLocked(st, st.queue)
		st.queue = nil
		last := st.final || (st.standalone && s.ended)
		if len(evs) > 0 {
			s.room.Broadcast()
		}
		s.mu.Unlock()
		for i, ev := range evs {
			if err := eventstream.WriteEvent(w, st.eventID(ev.seq), ev.line); err != nil {
				s.detach(st, gen, evs[i:])
				return
			}
		}
		if len(evs) > 0 && flush() != nil {
			s.detach(st, gen, nil)
			return
		}
		if last {
			s.mu.Lock()
			if st.gen == gen && !st.standalone {
				st.pumping = false
				s.keepLocked(st)
			}
			s.mu.Unlock()
			return
		}
		select {
		case <-wake:
		case <-ended:
			ended = nil // once is enough: the end has answered or ended this stream
		case <-r.Context().Done():
			s.detach(st, gen, nil)
			return
		case <-tick:
			if _, err := io.WriteString(w, ": keepalive\n\n"); err != nil || flush() != nil {
				s.detach(st, gen, nil)
				return
			}
		}
	}
}

// primes reports whether a POST stream of a session speaking protocol
// version starts with an event that has an id and no data: from 2025-11-25,
// which asks for it, and before 2026-07-28, which drops resumption (the
// go-sdk's rule). An older client may take an event without data for a
// malformed message.
func primes(version string) bool {
	return version >= wire.Stateful && !wire.IsStateless(version)
}

// recordLocked numbers the messages taken to be written to a stream and
// keeps them in its history (the latest Server.replay); it returns them
// as events.
func (s *session) recordLocked(st *stream, lines [][]byte) []event {
	if len(lines) == 0 {
		return nil
	}
	evs := make([]event, len(lines))
	for i, line := range lines {
		st.seq++
		evs[i] = event{seq: st.seq, line: line}
	}
	st.history = append(st.history, evs...)
	if over := len(st.history) - s.c.replay; over > 0 {
		clear(st.history[:over])
		st.history = st.history[over:]
	}
	return evs
}

// detach leaves an SSE stream whose client has gone (seen by the handler
// of gen) for a client that resumes it. Of its messages never written
// (unwritten, taken to be written, and its queue), those that are its
// own (for a POST stream: the responses to its requests, and the progress
// of their tokens) stay with it, and go on coming to it; the others go
// where they would have gone without it, as the stream's handler did not
// take them (and a client that resumes does not get them twice). A POST
// stream is then kept (see keepLocked); the GET stream stays the
// session's standalone until another opens.
func (s *session) detach(st *stream, gen uint64, unwritten []event) {
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
		var token []byte
		wire.Members(m.Params, func(k, v []byte) {
			if string(k) == "progressToken" {
				token = v
			}
		})
		key, ok := wire.IDKey(token)
		return ok && s.progress[key] == st
	}
	var others [][]byte
	if len(unwritten) > 0 {
		first := unwritten[0].seq
		st.history = slices.DeleteFunc(st.history, func(ev event) bool {
			if ev.seq < first {
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

// keepLocked keeps a POST stream that has ended, or whose client has
// gone, for a resume: the latest Server.kept of them. An older one is
// forgotten: a resume of it is refused, and the responses to its requests
// not answered yet are dropped when they come.
func (s *session) keepLocked(st *stream) {
	s.kept = append(s.kept, st)
	for len(s.kept) > s.c.kept {
		old := s.kept[0]
		s.kept[0] = nil
		s.kept = s.kept[1:]
		delete(s.resumable, old.num)
		for key := range old.pending {
			if s.waiters[key] == old {
				delete(s.waiters, key)
			}
		}
		s.unlistLocked(old)
		old.gone = true
		old.queue, old.history = nil, nil
	}
}

// resume answers a GET with Last-Event-ID: the stream of that event,
// from the events after it that the stream still keeps (see recordLocked),
// then what comes, until it is done, as its first handler would have
// written it. A stream whose handler has not seen its client go yet is
// taken over. The GET stream is resumed only while no other GET stream is
// open; an id of no stream kept is answered 400.
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
	s.pump(w, r, st, gen, false, replay)
}

// answerJSON waits for the responses to a POST's requests and writes them
// as JSON: the response, or the array of the responses of a batch in the
// order of its requests.
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
			s.drop(st)
			return
		}
	}
}

// drop forgets the JSON answer of a POST whose client has gone: the
// responses to its requests are dropped when they come. (Only SSE streams
// carry other messages, and only they can be resumed: see detach.)
func (s *session) drop(st *stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
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
		case key == s.listKey: // the proxy's own, never the client's
			s.listed(m)
			return
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
		var token []byte
		wire.Members(m.Params, func(k, v []byte) {
			if string(k) == "progressToken" {
				token = v
			}
		})
		if key, ok := wire.IDKey(token); ok && fits(s.progress[key]) {
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

// posted is one JSON-RPC message of a POST body, as the session's server
// gets it.
type posted struct {
	line   []byte // one line: compact JSON and "\n"
	method string
	id     []byte // a request's id, as written
	key    string // a request's id key (wire.IDKey); "" for a notification or a response
	token  string // the key of a request's progress token (params._meta.progressToken); "" for none
	// answer is the proxy's own response (one line) to a request that no
	// server can take (see badParams), which is not sent; nil for others.
	answer []byte
}

// badBody is why a POST body is refused: a JSON-RPC error code and message.
type badBody struct {
	code int
	msg  string
}

// parsePosted reads a POST body: one JSON-RPC message, or a batch (a JSON
// array) of at most maxBatch, each element a message sent on its own, as
// the TypeScript SDK does. JSON is read at any depth (see wire.ValidJSON):
// arguments nested past any limit are the server's to judge, as in
// upstream mode, never a parse error of the transport.
func parsePosted(body []byte, maxBatch int) ([]posted, bool, *badBody) {
	body = bytes.Trim(body, " \t\r\n")
	if !wire.ValidJSON(body) {
		return nil, false, &badBody{-32700, "Parse error: Invalid JSON"}
	}
	var elems [][]byte
	batch := body[0] == '['
	if batch {
		for i := wire.SkipSpace(body, 1); body[i] != ']'; {
			end := wire.SkipValue(body, i) // valid JSON: the element ends
			elems = append(elems, body[i:end])
			if len(elems) > maxBatch {
				return nil, false, &badBody{-32600, fmt.Sprintf("Invalid Request: Batch must not exceed %d messages", maxBatch)}
			}
			if i = wire.SkipSpace(body, end); body[i] == ',' {
				i = wire.SkipSpace(body, i+1)
			}
		}
		if len(elems) == 0 {
			return nil, false, &badBody{-32600, "Invalid Request: an empty batch"}
		}
	} else {
		elems = [][]byte{body}
	}
	msgs := make([]posted, 0, len(elems))
	for _, line := range elems {
		// One message per line: a body may hold newlines between tokens
		// (never inside a string, where JSON escapes them).
		if bytes.ContainsAny(line, "\r\n") {
			line = compactJSON(line)
		}
		line = append(line[:len(line):len(line)], '\n')
		m, ok := wire.Decode(line)
		if !ok {
			return nil, false, &badBody{-32700, "Parse error: Invalid JSON-RPC message"}
		}
		p := posted{line: line, method: m.Method}
		switch {
		case m.HasMethod && m.ID != nil:
			key, ok := wire.IDKey(m.ID)
			if !ok {
				return nil, false, &badBody{-32600, "Invalid Request: a request's id must be a string or a number"}
			}
			p.id, p.key, p.token = m.ID, key, progressToken(m.Params)
			if bad := badParams(m.Params); bad != nil {
				p.answer = append(wire.ErrorResponse(m.ID, bad.code, bad.msg), '\n')
			}
		case m.HasMethod: // a notification
		case m.IsResponse(): // to a request of the server
		default:
			return nil, false, &badBody{-32700, "Parse error: Invalid JSON-RPC message"}
		}
		msgs = append(msgs, p)
	}
	return msgs, batch, nil
}

// badParams returns the JSON-RPC error for a request whose params MCP
// cannot take, or nil. MCP passes a request's parameters by name, in an
// object; params may also be absent, or null as some clients send it. An
// array (parameters by position) makes a JSON-RPC request whose method
// does not take its params: -32602 Invalid params. A string, a number or a
// boolean makes no JSON-RPC request at all (params must be an object or an
// array): -32600 Invalid Request. The proxy answers such a request itself,
// under its id, because a server may never answer it: the TypeScript SDK,
// most servers' own, drops a message its schema refuses and writes
// nothing, and the client would wait for ever.
func badParams(params []byte) *badBody {
	switch {
	case len(params) == 0 || params[0] == '{' || string(params) == "null":
		return nil
	case params[0] == '[':
		return &badBody{-32602, "Invalid params: params must be an object, not an array"}
	}
	return &badBody{-32600, "Invalid Request: params must be an object"}
}

// compactJSON returns valid JSON without the white space between its
// tokens, at any depth (json.Compact stops at 10,000).
func compactJSON(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); {
		switch c := data[i]; c {
		case ' ', '\t', '\r', '\n':
			i++
		case '"':
			end := wire.SkipString(data, i)
			out = append(out, data[i:end]...)
			i = end
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

// progressToken returns the key (wire.IDKey) of the progress token in a
// request's params._meta, or "".
func progressToken(params []byte) string {
	var meta, token []byte
	wire.Members(params, func(k, v []byte) {
		if string(k) == "_meta" {
			meta = v
		}
	})
	wire.Members(meta, func(k, v []byte) {
		if string(k) == "progressToken" {
			token = v
		}
	})
	key, _ := wire.IDKey(token)
	return key
}

// errorLine is the JSON-RPC error response, one line, to the request of id
// that the session's server will not answer.
func errorLine(id []byte, why string) []byte {
	return append(wire.ErrorResponse(id, -32000, "Session ended: "+why), '\n')
}

// httpError answers a request that reaches no server with status and a
// JSON-RPC error without an id, as the TypeScript SDK does.
func httpError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(wire.ErrorResponse(nil, code, msg))
}

// accepts reports whether r's Accept header names the media type want
// (a substring match, as the TypeScript SDK's).
func accepts(r *http.Request, want string) bool {
	for _, v := range r.Header.Values("Accept") {
		if strings.Contains(strings.ToLower(v), want) {
			return true
		}
	}
	return false
}

// sseHeaders sets the headers of an event stream of session id.
func sseHeaders(w http.ResponseWriter, id string) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no") // nginx: no buffering of the events
	h.Set(headerSessionID, id)
}
