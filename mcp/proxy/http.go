package proxy

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/proxy/internal/eventstream"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// The bounds of the HTTP proxy.
const (
	// maxCheckedBody is the largest POST body the proxy reads to check it;
	// a larger one is forwarded unread (its receiver decides).
	maxCheckedBody = 16 << 20
	// maxListBody bounds a tools/list response to the proxy's own listing.
	maxListBody = 64 << 20
	// listTimeout bounds the proxy's own listing of a session's tools.
	listTimeout = 5 * time.Second
	// listTTL is how long a listing without ttlMs stands: another replica
	// may have relayed a list_changed.
	listTTL = time.Minute
	// listRetry is how long after a failed listing the proxy lists again.
	listRetry = 5 * time.Second
	// maxHTTPSessions bounds the sessions whose tools the proxy knows.
	maxHTTPSessions = 10000
	// sessionIdle is how long an idle session's tools are kept once there
	// are maxHTTPSessions.
	sessionIdle = 30 * time.Minute
)

// HTTPHandler returns a Streamable HTTP reverse proxy (the MCP 2025-11-25
// transport) to the MCP server whose endpoint is upstream: every request,
// whatever its path, goes to upstream's URL, with its query when upstream
// has none. It panics when upstream is not an absolute http or https URL,
// as a misconfigured route would.
//
// POST, GET and DELETE pass through with their headers (less the hop-by-hop
// ones), and so do the responses, JSON or text/event-stream, a stream's
// events forwarded as they arrive. The proxy reads what it reads over stdio
// (see [Proxy]): each session's tools/list results and the tools/call
// requests. A bad call is answered in the form the client asks for: JSON,
// or a stream of one event when its Accept admits text/event-stream and not
// JSON.
//
// Sessions are told apart by their Mcp-Session-Id (by the hash of the
// Authorization header for a server without sessions). Behind a load
// balancer a replica may see a session's calls without its listing: it
// lists the session's tools itself, with the call's headers, and again
// after a minute, so that a change announced on another replica is
// learned. A call it cannot check is forwarded.
//
// A request whose Host or Origin is not served is answered 403 before
// anything else (see WithAllowedHosts, WithAllowedOrigins); the upstream
// gets the client's Host, so that its own check still holds. The guards
// are shared by every session, per tool or per WithLimitBy's value; an
// admitted call holds its slot until its response has passed.
//
// When the upstream cannot be reached, fails, or stays silent past
// WithUpstreamSilence (5 minutes by default) before its response has
// passed, a request gets a JSON-RPC error (502 when nothing was sent yet,
// else the last event of its stream), so that no call hangs; a stream the
// server ends cleanly after giving event ids is left for the client to
// resume.
//
// With no option the handler has the bounds of "selfheal proxy --listen":
// a body read within 30 seconds (WithReadTimeout), 128 MiB of bodies at
// once (WithBodyMemory), 10,000 requests at once (WithMaxRequests); past a
// bound the client gets 503 or its connection is cut. What only the
// http.Server can bound is the server's to set, as the command sets it:
//
//	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
func (p *Proxy) HTTPHandler(upstream *url.URL) http.Handler {
	if upstream == nil || (upstream.Scheme != "http" && upstream.Scheme != "https") || upstream.Host == "" {
		panic(fmt.Sprintf("proxy: HTTPHandler needs an absolute http or https URL, not %q", upstream))
	}
	transport := silentTransport(p.cfg.transport, p.cfg.upstreamSilence)
	h := &httpProxy{
		p:        p,
		upstream: upstream,
		limiter:  p.sharedLimiter(),
		client: &http.Client{
			Transport:     transport,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		sessions: map[string]*httpSession{},
	}
	h.rp = &httputil.ReverseProxy{
		Rewrite:        h.rewrite,
		Transport:      transport,
		ModifyResponse: h.modifyResponse,
		ErrorHandler:   h.upstreamError,
		ErrorLog:       slog.NewLogLogger(p.cfg.Logger.Handler(), slog.LevelDebug),
		BufferPool:     copyBuffers{},
	}
	return p.guardHTTP(h)
}

// copyBuffers are ReverseProxy's copy buffers, reused: 32 KiB a response
// otherwise.
type copyBuffers struct{}

var copyBufferPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (copyBuffers) Get() []byte  { return *copyBufferPool.Get().(*[]byte) }
func (copyBuffers) Put(b []byte) { copyBufferPool.Put(&b) }

type httpProxy struct {
	p        *Proxy
	upstream *url.URL
	rp       *httputil.ReverseProxy
	client   *http.Client // the proxy's own listings
	limiter  guard.Limiter
	listSeq  atomic.Uint64 // the ids of the proxy's own requests
	// loggedAt is when an upstream failure was last logged (Unix ns).
	loggedAt atomic.Int64

	mu       sync.Mutex
	sessions map[string]*httpSession // by sessionKey
}

// exchange is what the proxy remembers of a forwarded request for its
// response.
type exchange struct {
	// key is the session's key (sessionKey), or for a stateless request
	// its authorization's (scopeKey).
	key string
	// revision is the request's stateless revision, "" for an earlier one.
	revision string
	method   string
	id       []byte // the request's id; nil for a notification or a response
	first    bool
	locale   string
	// explain: a call forwarded with issues, its rejection explained.
	explain *call
	// batch: what the proxy keeps of a forwarded batch.
	batch *batchState
}

type exchangeKey struct{}

func (h *httpProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if badSessionID(r) {
		http.Error(w, "selfheal proxy: the Mcp-Session-Id header is not a session id (one header, at most 1024 visible ASCII characters)", http.StatusBadRequest)
		return
	}
	x := &exchange{key: sessionKey(r)}
	if r.Method == http.MethodPost {
		body, whole, err := readBody(r)
		if err != nil {
			bodyError(w, err)
			return
		}
		if whole {
			if done, release := h.post(w, r, body, x); done {
				return
			} else if release != nil {
				defer release()
			}
		}
	}
	h.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, x)))
}

// readBody reads a POST body of up to maxCheckedBody and puts it back in r.
// whole is false for a larger body, which r then reads unchecked.
func readBody(r *http.Request) (body []byte, whole bool, err error) {
	body, err = io.ReadAll(io.LimitReader(r.Body, maxCheckedBody+1))
	if err != nil {
		return nil, false, err
	}
	if len(body) > maxCheckedBody {
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		return body, false, nil
	}
	r.Body.Close()
	setRequestBody(r, body)
	return body, true, nil
}

// setRequestBody makes body r's, to be read again whole.
func setRequestBody(r *http.Request, body []byte) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
}

// setResponseBody makes data resp's body, with its length.
func setResponseBody(resp *http.Response, data []byte) {
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	resp.Header.Set("Content-Length", strconv.Itoa(len(data)))
}

// post answers a bad tools/call of a POST body itself (done), or notes in x
// what the response is read for; release frees the call's guard slot.
func (h *httpProxy) post(w http.ResponseWriter, r *http.Request, body []byte, x *exchange) (done bool, release func()) {
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		return h.batch(w, r, body, x)
	}
	m, ok := wire.Decode(body)
	if !ok || !m.HasMethod {
		return false, nil
	}
	x.method = m.Method
	if _, ok := wire.Answerable(m.ID); ok {
		x.id = m.ID
	}
	if rev := requestRevision(r, m.Call.Meta); wire.IsStateless(rev) {
		x.revision, x.key = rev, scopeKey(r)
	}
	switch m.Method {
	case methodToolsCall:
		return h.call(w, r, m, x)
	case methodToolsList:
		x.first = true
		wire.Members(m.Params, func(k, v []byte) {
			if string(k) == "cursor" && wire.Str(v) != "" {
				x.first = false
			}
		})
	case methodInitialize:
		wire.Members(m.Params, func(k, v []byte) {
			if string(k) == "_meta" {
				x.locale = metaLocale(v)
			}
		})
	}
	return false, nil
}

// call frames a tools/call in an HTTP exchange, after learning the
// session's tools if this replica does not know them.
func (h *httpProxy) call(w http.ResponseWriter, r *http.Request, m *wire.Message, x *exchange) (done bool, release func()) {
	if x.id == nil || !m.ParamsObject {
		return false, nil
	}
	start := time.Now()
	sess := h.toolsFor(r, x, m.Call.Name)
	t := sess.tools.lookup(m.Call.Name)
	if t == nil {
		return false, nil
	}
	answer, fc := h.decide(r, sess, x.key, t, m, x.revision != "", start)
	if answer != nil {
		writeAnswer(w, r, false, answer)
		return true, nil
	}
	if fc.list != nil {
		c := fc.call
		x.explain = &c
	}
	return false, fc.release
}

// decide decides a call carried by an HTTP body or a batch member: the
// answer when the proxy answers now, else the forwarded call with its
// slot's release.
func (h *httpProxy) decide(r *http.Request, sess *httpSession, key string, t *tool, m *wire.Message, stateless bool, start time.Time) (answer []byte, fc forwardedCall) {
	d := h.p.decide(r.Context(), t, m, start)
	d.session = key
	if d.list != nil || h.limiter != nil {
		sess.mu.Lock()
		d.locale = callLocale(m.Call.Meta, sess.locale)
		sess.mu.Unlock()
		d.stateless = stateless
	}
	if d.now {
		return d.answer(nil), fc
	}
	fc.call = d
	if h.limiter != nil && (d.list != nil || m.Valid) { // malformed: the server answers, with no slot taken
		release, te := h.limiter.Acquire(r.Context(), limiterKey(t.name, h.limitBy(r)))
		if te != nil {
			return d.refused(te), fc
		}
		fc.release = release
	}
	fc.forwarded()
	return nil, fc
}

// forwardedCall is a forwarded call with its limiter slot's release (nil
// for none), held until its response has passed.
type forwardedCall struct {
	call
	release func()
}

// requestRevision is the revision a request's _meta declares, else its
// MCP-Protocol-Version header's.
func requestRevision(r *http.Request, meta []byte) string {
	if v := wire.MetaVersion(meta); v != "" {
		return v
	}
	return r.Header.Get("Mcp-Protocol-Version")
}

// limitBy is the hash of WithLimitBy's value for r, or "".
func (h *httpProxy) limitBy(r *http.Request) string {
	if f := h.p.cfg.limitBy; f != nil {
		return hashLimitBy(f(r))
	}
	return ""
}

// writeAnswer writes the proxy's own answer to a POST: msgs as JSON (an
// array for a batch), or one event each when the client accepts only a
// stream.
func writeAnswer(w http.ResponseWriter, r *http.Request, batch bool, msgs ...json.RawMessage) {
	if eventstream.StreamOnly(r.Header) {
		eventstream.SetHeaders(w.Header())
		w.WriteHeader(http.StatusOK)
		for _, m := range msgs {
			_ = eventstream.WriteEvent(w, "", m) // a client gone is no one's concern
		}
		return
	}
	data := msgs[0]
	if batch {
		data = joinArray(msgs)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
}

// upstreamTransport is http.DefaultTransport's settings with as many idle
// connections per host as the whole pool: every request goes to one host,
// and net/http's default of 2 would dial and close most concurrent calls.
func upstreamTransport() http.RoundTripper {
	rt, ok := http.DefaultTransport.(*http.Transport)
	if !ok { // a program replaced it: its choice
		return http.DefaultTransport
	}
	rt = rt.Clone()
	rt.MaxIdleConnsPerHost = max(rt.MaxIdleConns, 100)
	return rt
}

func (h *httpProxy) rewrite(pr *httputil.ProxyRequest) {
	u := *h.upstream
	u.RawQuery = cmp.Or(u.RawQuery, pr.In.URL.RawQuery)
	pr.Out.URL = &u
	// The client's Host: a server that refuses foreign hosts (DNS
	// rebinding) must still see the name the client used.
	pr.Out.Host = pr.In.Host
	pr.SetXForwarded()
	// The proxy reads the bodies: uncompressed (the transport asks for
	// gzip itself and undoes it).
	pr.Out.Header.Del("Accept-Encoding")
	// A body read whole goes as the bytes in memory, not in ReverseProxy's
	// wrapper: the transport then sends headers and body in one write.
	if pr.In.GetBody != nil {
		if body, err := pr.In.GetBody(); err == nil {
			pr.Out.Body = body
		}
	}
}

// modifyResponse reads what the proxy needs of a response as it passes: a
// new session's locale, a session ended, tools/list results, list_changed.
// A JSON response is read whole first, so that a failed read gets a
// JSON-RPC error; a stream is read as it passes.
func (h *httpProxy) modifyResponse(resp *http.Response) error {
	x, _ := resp.Request.Context().Value(exchangeKey{}).(*exchange)
	if x == nil {
		return nil
	}
	ok := resp.StatusCode/100 == 2
	switch {
	case ok && x.method == methodInitialize:
		key := x.key
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			key = idKey(id)
		}
		{
			sess := h.session(key)
			sess.mu.Lock()
			sess.locale = x.locale
			sess.mu.Unlock()
		}
	case ok && resp.Request.Method == http.MethodDelete:
		h.mu.Lock()
		delete(h.sessions, x.key)
		h.mu.Unlock()
		h.p.endSession(x.key)
	}
	if x.batch != nil {
		if !ok {
			return nil
		}
		return h.mergeBatch(resp, x)
	}
	switch wire.MediaType(resp.Header.Get("Content-Type")) {
	case "text/event-stream":
		resp.Body = h.tap(resp.Body, x)
		// The tap may replace or add events: the server's length goes.
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	case "application/json":
		if x.id == nil {
			return nil
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if m, ok := wire.Decode(data); ok && h.response(x, m) && x.explain != nil && resp.StatusCode/100 == 2 {
			if answer := x.explain.settle(m); answer != nil {
				setResponseBody(resp, answer)
				return nil
			}
		}
		resp.Body = io.NopCloser(bytes.NewReader(data))
	}
	return nil
}

// response reads an upstream message passing in the response to x: it
// learns tools/list results and marks the listing stale at list_changed.
// It reports whether m is the response to x's request.
func (h *httpProxy) response(x *exchange, m *wire.Message) bool {
	if m.Method == methodListChanged {
		key := x.key
		if key == "" && x.revision != "" {
			key = publicKey
		}
		if sess := h.existing(key); sess != nil {
			sess.tools.markStale()
		}
		return false
	}
	if x.id == nil || !m.IsResponse() {
		return false
	}
	want, _ := wire.IDKey(x.id)
	if got, _ := wire.IDKey(m.ID); got != want {
		return false
	}
	if x.method == methodToolsList && m.Result != nil {
		key := x.key
		if key == "" && x.revision != "" {
			// No authorization and no session: kept only when public.
			if listScope(m.Result) != "public" {
				return true
			}
			key = publicKey
		}
		h.session(key).tools.learn(h.p, m.Result, x.first)
	}
	return true
}

// upstreamError answers a request the upstream did not answer: a JSON-RPC
// error with 502 for a request, a plain 502 otherwise.
func (h *httpProxy) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		return // the client is gone
	}
	h.logUpstream("selfheal proxy: the MCP server failed", err)
	x, _ := r.Context().Value(exchangeKey{}).(*exchange)
	if x == nil || x.id == nil {
		http.Error(w, "selfheal proxy: the MCP server cannot be reached", http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadGateway)
	_, _ = w.Write(wire.ErrorResponse(x.id, wire.CodeInternalError, "selfheal proxy: the MCP server cannot be reached"))
}

// logUpstream logs an upstream failure, once a minute at most.
func (h *httpProxy) logUpstream(msg string, err error) {
	now := time.Now().UnixNano()
	last := h.loggedAt.Load()
	if now-last < int64(time.Minute) && last != 0 {
		return
	}
	if h.loggedAt.CompareAndSwap(last, now) {
		h.p.cfg.Logger.Warn(msg+" (logged once a minute at most)", "error", err)
	}
}
