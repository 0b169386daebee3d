package sessions

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/proxy/internal/eventstream"
	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// The bounds and timings of Server: everything a client controls is bounded.
const (
	defaultMaxSessions = 1000             // processes: a new session beyond is answered 503
	defaultIdle        = 30 * time.Minute // a client gone without DELETE keeps no process for ever
	defaultGrace       = 2 * time.Second  // to exit once stdin is closed, and for output after an exit
	defaultKeepAlive   = 15 * time.Second // SSE comments through proxies (the TypeScript SDK's)
	defaultMaxBody     = 4 << 20          // a POST body (the TypeScript SDK's): 413 beyond
	defaultMaxBatch    = 100              // messages of a batch (the TypeScript SDK's)
	defaultBacklog     = 1000             // messages kept for no stream: the oldest dropped beyond
	defaultReplay      = 100              // events a stream keeps for a resume
	defaultKept        = 16               // ended POST streams kept for a resume
	// defaultQueue bounds the messages waiting for one stream: beyond it
	// the server is read no further, as a stdio client that does not read
	// holds its server back.
	defaultQueue = 256
	// defaultPoolMax bounds the pool's processes per WithLimitBy value:
	// servers that take requests concurrently rarely need more than one.
	defaultPoolMax   = 8
	defaultPoolIdle  = 5 * time.Minute  // a pooled process with no request lives
	defaultHandshake = 30 * time.Second // server/discover and the bridge's initialize
	// defaultSilence is WithUpstreamSilence's default.
	defaultSilence = 5 * time.Minute
)

const headerSessionID = "Mcp-Session-Id"

const (
	methodInitialize = "initialize"
	methodToolsCall  = "tools/call"
	methodProgress   = "notifications/progress"
)

// Server serves a stdio MCP server over the Streamable HTTP transport of
// MCP. It is an http.Handler, safe for concurrent use; Close ends it.
type Server struct {
	// r is what the server uses of its proxy; r.Limiter admits the calls of
	// every session, so that limits are per tool across sessions.
	r     *relay.Relay
	start func() *exec.Cmd

	// Fields so that a test may lower them.
	maxSessions            int
	idle, grace, keepAlive time.Duration
	maxBody                int64
	maxBatch               int
	backlog, queue         int

	replay, kept int

	poolMax                     int
	poolIdle, handshake, silent time.Duration

	mu       sync.Mutex
	sessions map[string]*session // by id; a session leaves when it ends
	// live counts the processes started and not reaped yet (maxSessions).
	live    int
	closed  bool
	closing chan struct{}
	// running counts the sessions and warm processes until reaped: Close
	// waits for them.
	running sync.WaitGroup
	// The warm processes (process.go): ready wait, oldest first.
	warm, warming int
	ready         []*process

	// The clients of revision 2026-07-28 (pool.go): era is what the
	// server speaks (nil until probed); pool holds the processes by
	// WithLimitBy's value.
	era      *upstreamEra
	probing  *eraProbe
	pool     map[string][]*session
	starting map[string]int
	params   paramTools
}

// New returns a Server that relays each session with r and starts the
// process start returns for each (a new, unstarted command each call). The
// Server owns Stdin and Stdout; a WaitDelay of 0 becomes two seconds, so
// that a process holding its stderr open cannot keep a session from ending.
func New(r *relay.Relay, start func() *exec.Cmd, warm int) *Server {
	c := &Server{
		r: r, start: start, warm: warm, closing: make(chan struct{}),
		maxSessions: defaultMaxSessions, idle: defaultIdle, grace: defaultGrace, keepAlive: defaultKeepAlive,
		replay: defaultReplay, kept: defaultKept,
		maxBody: defaultMaxBody, maxBatch: defaultMaxBatch, backlog: defaultBacklog, queue: defaultQueue,
		poolMax: defaultPoolMax, poolIdle: defaultPoolIdle, handshake: defaultHandshake, silent: cmp.Or(max(r.Silence, 0), defaultSilence), // r.Silence <= 0: the default
		sessions: map[string]*session{},
		pool:     map[string][]*session{}, starting: map[string]int{},
	}
	if warm > 0 {
		go c.fill()
	}
	return c
}

// ServeHTTP serves POST, GET and DELETE (405 for others; 503 after Close).
func (c *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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

// Close ends every session (stdin closed, two seconds' grace, then killed)
// and returns nil once every process has been reaped.
func (c *Server) Close() error {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		close(c.closing) // the warm processes are retired
	}
	all := slices.Collect(maps.Values(c.sessions))
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
	var body []byte
	err := error(&http.MaxBytesError{Limit: c.maxBody}) // a declared length too large is not read
	if r.ContentLength <= c.maxBody {
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, c.maxBody))
	}
	if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
		httpError(w, http.StatusRequestEntityTooLarge, -32000, fmt.Sprintf("Payload Too Large: Request body must not exceed %d bytes", c.maxBody))
		return
	} else if errors.Is(err, relay.ErrNoRoom) {
		w.Header().Set("Retry-After", "1")
		httpError(w, http.StatusServiceUnavailable, -32000, "Service Unavailable: the proxy holds as many request bodies as it may; try again")
		return
	} else if err != nil {
		httpError(w, http.StatusBadRequest, -32700, "Parse error: the body cannot be read")
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
		answerNow(w, http.StatusBadRequest, msgs[0].answer)
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

func (c *Server) get(w http.ResponseWriter, r *http.Request) {
	if modernHeader(r) {
		noSessionMethod(w, r)
		return
	}
	if !eventstream.Accepts(r.Header, "text/event-stream") {
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
	s.pump(w, r, st, 1, false, nil, nil)
}

func (c *Server) delete(w http.ResponseWriter, r *http.Request) {
	if modernHeader(r) {
		noSessionMethod(w, r)
		return
	}
	s := c.named(w, r)
	if s == nil {
		return
	}
	// Answered at once: the session has ended for its client (404 from
	// now on), and its process is stopped in the background, within the
	// grace (see session.supervise). Close waits for it.
	why := "the session was ended (DELETE) before the MCP server answered"
	s.stop(why)
	s.end(why)
	s.leave()
	w.WriteHeader(http.StatusOK)
}

// named returns the session r names, entered, or answers 400 or 404.
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

// open starts a session for the initialize request r, entered, or returns
// the HTTP status and message to answer.
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

	id := wire.Nonce()
	var limitBy string
	if f := c.r.LimitBy; f != nil {
		// The initialize request, with the session's id as every later
		// request carries it: a function keyed on Mcp-Session-Id limits
		// per session, as over HTTP.
		r = r.Clone(r.Context())
		r.Header.Set(headerSessionID, id)
		limitBy = f(r)
	}
	s, err := c.begin(id, limitBy, func(s *session) { c.sessions[s.id] = s })
	switch {
	case errors.Is(err, errShutdown):
		return nil, http.StatusServiceUnavailable, "Service Unavailable: the server is shutting down"
	case err != nil:
		c.r.Logger.Error("selfheal proxy: cannot start the MCP server of a new session", "error", err)
		return nil, http.StatusInternalServerError, "Internal error: cannot start the MCP server"
	}
	return s, 0, ""
}

// begin starts the process of a session of id (or of the pool), already
// counted in c.live and c.running; add registers it unless Close has run.
func (c *Server) begin(id, limitBy string, add func(*session)) (*session, error) {
	s, err := c.spawn(id, limitBy)
	c.mu.Lock()
	if err != nil {
		c.live--
		c.mu.Unlock()
		c.running.Done()
		return nil, err
	}
	closed := c.closed
	if !closed {
		add(s)
	}
	c.mu.Unlock()
	s.launch()
	if closed { // Close ran meanwhile, without this process
		s.stop("the proxy is shutting down; the MCP server did not answer")
		s.leave()
		return nil, errShutdown
	}
	return s, nil
}

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

// parsePosted reads a POST body: one JSON-RPC message, or a batch of at
// most maxBatch, as the TypeScript SDK does. JSON is read at any depth:
// arguments too deep are the server's to judge, not a transport error.
func parsePosted(body []byte, maxBatch int) ([]posted, bool, *badBody) {
	body = bytes.Trim(body, " \t\r\n")
	if !wire.ValidJSON(body) {
		return nil, false, &badBody{-32700, "Parse error: Invalid JSON"}
	}
	elems := [][]byte{body}
	batch := body[0] == '['
	if batch {
		elems = nil
		n := 0 // the elements past maxBatch are counted, not kept
		elements(body, func(v []byte) {
			if n++; n <= maxBatch {
				elems = append(elems, v)
			}
		})
		switch {
		case n > maxBatch:
			return nil, false, &badBody{-32600, fmt.Sprintf("Invalid Request: Batch must not exceed %d messages", maxBatch)}
		case len(elems) == 0:
			return nil, false, &badBody{-32600, "Invalid Request: an empty batch"}
		}
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
			if !ok || !wholeID(m.ID) {
				return nil, false, &badBody{-32600, "Invalid Request: a request's id must be a string or an integer"}
			}
			meta := member(m.Params, "_meta")
			p.id, p.key = m.ID, key
			p.token, _ = wire.IDKey(member(meta, "progressToken"))
			if bad := badParams(m.Params, meta); bad != nil {
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

// badParams returns the JSON-RPC error for params MCP cannot take, or nil:
// an array -32602, another non-object -32600, a _meta not an object or too
// deep -32602. The proxy answers it, as the server's own HTTP transport
// would: over stdio the TypeScript SDK drops it and the client would wait
// for ever.
func badParams(params, meta []byte) *badBody {
	switch {
	case len(params) == 0:
		return nil
	case params[0] == '[':
		return &badBody{-32602, "Invalid params: params must be an object, not an array"}
	case params[0] != '{':
		return &badBody{-32600, "Invalid Request: params must be an object"}
	}
	switch {
	case meta == nil:
	case meta[0] != '{':
		return &badBody{-32602, "Invalid params: params._meta must be an object"}
	default:
		if _, deep := issues.CheckDepthJSON(meta, issues.DefaultMaxDepth); deep {
			return &badBody{-32602, fmt.Sprintf("Invalid params: params._meta nests deeper than %d levels", issues.DefaultMaxDepth)}
		}
	}
	return nil
}

// wholeID reports whether an id is a string or an integer, as MCP requires
// (the TypeScript SDK drops a request whose id has a fraction).
func wholeID(id []byte) bool {
	if id[0] == '"' {
		return true
	}
	f, err := strconv.ParseFloat(string(id), 64)
	return err == nil && f == math.Trunc(f)
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

// httpError answers a request that reaches no server, as the TypeScript
// SDK does: a JSON-RPC error without an id.
func httpError(w http.ResponseWriter, status, code int, msg string) {
	answerNow(w, status, wire.ErrorResponse(nil, code, msg))
}

// sseHeaders sets the headers of an event stream of session id ("" for none).
func sseHeaders(w http.ResponseWriter, id string) {
	eventstream.SetHeaders(w.Header())
	if id != "" {
		w.Header().Set(headerSessionID, id)
	}
}

// flusher returns the flush of w's response; a writer that cannot flush is
// no error.
func flusher(w http.ResponseWriter) func() error {
	rc := http.NewResponseController(w)
	return func() error {
		if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return err
		}
		return nil
	}
}
