package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/proxy/internal/eventstream"
	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// The bounds of the HTTP proxy.
const (
	// maxCheckedBody is the largest POST body the proxy reads to check it;
	// a larger one is forwarded unread (its receiver decides).
	maxCheckedBody = 16 << 20
	// maxListBody bounds a tools/list response to the proxy's own listing.
	maxListBody = 64 << 20
	// maxListPages bounds the pages of the proxy's own listing.
	maxListPages = relay.MaxListPages
	// listTimeout bounds the proxy's own listing of a session's tools.
	listTimeout = 5 * time.Second
	// listTTL is how long a listing stands before the next call re-lists:
	// another replica may have relayed a notifications/tools/list_changed.
	listTTL = time.Minute
	// listRetry is how long after a failed listing the proxy lists again.
	listRetry = 5 * time.Second
	// maxHTTPSessions bounds the sessions whose tools the proxy knows.
	maxHTTPSessions = 10000
	// sessionIdle is how long a session's tools are kept unused once there
	// are maxHTTPSessions.
	sessionIdle = 30 * time.Minute
)

// HTTPHandler returns a Streamable HTTP reverse proxy (the MCP 2025-11-25
// transport) to the MCP server whose endpoint is upstream: every request,
// whatever its path, goes to upstream's URL, with its query when upstream
// has none. It panics when upstream is not an absolute http or https URL,
// as a misconfigured route would.
//
// POST, GET and DELETE pass through with their headers (Mcp-Session-Id,
// MCP-Protocol-Version, Last-Event-ID, Authorization and the others, less
// the hop-by-hop ones), and so do the responses, JSON or text/event-stream;
// the events of a stream are forwarded as they arrive, never held back.
// What the proxy reads, it reads as over stdio (see [Proxy]): the
// tools/list results of each session, whichever body carries them, and the
// tools/call requests. A bad call is answered by the
// proxy in the form the client asks for: a JSON body, or a stream of one
// event when its Accept names text/event-stream and not JSON.
//
// Sessions are told apart by their Mcp-Session-Id (by the hash of the
// Authorization header for a server without sessions). Behind a load
// balancer, a replica may see a session's calls without having relayed
// its listing: on the first such call, the proxy lists the session's tools
// itself, with the call's headers, and checks the call once they are known;
// it lists them again after a minute, so that a change announced on
// another replica's stream is learned. A call it cannot check (the listing
// failed, the tool is not listed) is forwarded.
//
// A request whose Host or Origin the proxy does not serve is answered 403
// before anything else (see WithAllowedHosts, WithAllowedOrigins: by
// default, on loopback, only loopback names). The upstream gets the
// client's Host, so that its own check of foreign hosts still holds.
//
// The guards (WithGuard, WithLimiter) are shared by every session of the
// handler, per tool, or per the value of WithLimitBy. A call waiting for a
// slot waits on its own request; an admitted one holds its slot until its
// response has passed.
//
// When the upstream server cannot be reached or fails before its response
// has passed, a request gets a JSON-RPC error (HTTP 502 when nothing was
// sent yet, else the last event of its stream), so that no call hangs; a
// stream that the server ends cleanly after giving event ids is left for
// the client to resume.
func (p *Proxy) HTTPHandler(upstream *url.URL) http.Handler {
	if upstream == nil || (upstream.Scheme != "http" && upstream.Scheme != "https") || upstream.Host == "" {
		panic(fmt.Sprintf("proxy: HTTPHandler needs an absolute http or https URL, not %q", upstream))
	}
	transport := p.cfg.transport
	if transport == nil {
		transport = upstreamTransport()
	}
	h := &httpProxy{
		p:        p,
		upstream: upstream,
		limiter:  p.cfg.limiter,
		client: &http.Client{
			Transport:     transport,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		sessions: map[string]*httpSession{},
	}
	if h.limiter == nil && p.cfg.limits != nil {
		h.limiter, _ = guard.NewLimiter(*p.cfg.limits) // the limits were checked by New
	}
	h.rp = &httputil.ReverseProxy{
		Rewrite:        h.rewrite,
		Transport:      transport,
		ModifyResponse: h.modifyResponse,
		ErrorHandler:   h.upstreamError,
		ErrorLog:       slog.NewLogLogger(p.cfg.Logger.Handler(), slog.LevelDebug),
		BufferPool:     copyBuffers{},
	}
	return h
}

// copyBuffers are the buffers ReverseProxy copies response bodies with,
// reused: without them each response allocates 32 KiB.
type copyBuffers struct{}

var copyBufferPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (copyBuffers) Get() []byte  { return *copyBufferPool.Get().(*[]byte) }
func (copyBuffers) Put(b []byte) { copyBufferPool.Put(&b) }

// httpProxy is the handler HTTPHandler returns.
type httpProxy struct {
	p        *Proxy
	upstream *url.URL
	rp       *httputil.ReverseProxy
	client   *http.Client // the proxy's own listings
	limiter  guard.Limiter
	listSeq  atomic.Uint64 // the ids of the proxy's own requests
	// loggedAt is when an upstream failure was last logged (Unix ns): they
	// are logged once a minute at most.
	loggedAt atomic.Int64

	mu       sync.Mutex
	sessions map[string]*httpSession // by sessionKey
}

// httpSession is what the proxy knows of one session.
type httpSession struct {
	tools toolSet

	mu       sync.Mutex
	used     time.Time // the last request that needed it
	locale   string    // declared in the initialize request's _meta
	listedAt time.Time // the last listing's end; zero: none yet
	stale    bool      // the server announced that its tools changed
	failedAt time.Time // the proxy's last listing failed then
	// listing is closed when the proxy's listing under way ends; nil when
	// none is.
	listing chan struct{}
}

// exchange is what the proxy remembers of a request it forwards, for its
// response (see modifyResponse).
type exchange struct {
	// key is the session's key (see sessionKey); for a request of a
	// stateless revision, the key of its authorization (see scopeKey),
	// "" for none.
	key string
	// revision is the stateless revision the request speaks (see
	// requestRevision), "" for an earlier one.
	revision string
	method   string
	id       []byte // the request's id; nil for a notification or a response
	// first: a tools/list request without a cursor.
	first bool
	// locale: what an initialize request declares in its _meta.
	locale string
	// explain: a tools/call forwarded with issues, which explain the
	// server's rejection (see explain.go); nil for none.
	explain *explanation
	// batch: what the proxy keeps of a batch it forwards (see batch.go);
	// nil for none.
	batch *batchState
}

type exchangeKey struct{}

func (h *httpProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.p.forbidden(w, r) {
		return
	}
	x := &exchange{key: sessionKey(r)}
	if r.Method == http.MethodPost {
		body, whole, err := readBody(r)
		if err != nil {
			http.Error(w, "selfheal proxy: cannot read the request body", http.StatusBadRequest)
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

// readBody reads a POST body of up to maxCheckedBody bytes and puts it back
// in r for forwarding. whole is false for a larger body: r then reads the
// bytes read and the rest, unchecked.
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
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return body, true, nil
}

// post reads the message of a POST body and answers a bad tools/call
// itself (done); otherwise it notes in x what the response is read for,
// and returns the release of the call's guard slot, if it took one.
func (h *httpProxy) post(w http.ResponseWriter, r *http.Request, body []byte, x *exchange) (done bool, release func()) {
	if isBatch(body) {
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
		return h.call(w, r, body, m, x)
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

// call checks a tools/call as the stdio proxy does, after learning the
// session's tools if this replica does not know them yet.
func (h *httpProxy) call(w http.ResponseWriter, r *http.Request, body []byte, m *wire.Message, x *exchange) (done bool, release func()) {
	if x.id == nil {
		return false, nil
	}
	c, ok := readCall(m)
	if !ok {
		return false, nil
	}
	start := time.Now()
	sess := h.toolsFor(r, x, c.Name)
	t := sess.tools.lookup(c.Name)
	if t == nil {
		return false, nil
	}
	v := h.p.judge(t, c, m.Valid)
	sess.mu.Lock()
	locale := callLocale(c.Meta, sess.locale)
	sess.mu.Unlock()
	stateless := x.revision != ""
	if v.now {
		writeAnswer(w, r, h.p.issuesAnswer(&explanation{id: m.ID, tool: t, list: v.list, locale: locale, stateless: stateless, start: start, session: x.key}, nil))
		return true, nil
	}
	if v.list != nil {
		x.explain = &explanation{id: m.ID, tool: t, list: v.list, locale: locale, stateless: stateless, start: start, session: x.key}
	}
	if h.limiter != nil {
		if v.list == nil && !m.Valid {
			return false, nil // malformed: the server answers, with no slot taken
		}
		release, te := h.limiter.Acquire(r.Context(), limiterKey(t.name, h.limitBy(r)))
		if te != nil {
			writeAnswer(w, r, h.p.toolErrorAnswer(answerTo{id: m.ID, stateless: stateless}, t, te, start))
			return true, nil
		}
		if x.explain == nil {
			h.p.observe(Event{Tool: t.name, Duration: time.Since(start), session: x.key})
		}
		return false, release
	}
	if x.explain == nil {
		h.p.observe(Event{Tool: t.name, Duration: time.Since(start), session: x.key})
	}
	return false, nil
}

// requestRevision is the revision a request speaks: the one its _meta
// declares, else its MCP-Protocol-Version header's ("" for none).
func requestRevision(r *http.Request, meta []byte) string {
	if v := wire.MetaVersion(meta); v != "" {
		return v
	}
	return r.Header.Get("Mcp-Protocol-Version")
}

// statelessRequest reports whether a request speaks a stateless revision
// (2026-07-28 or later; see requestRevision).
func statelessRequest(r *http.Request, meta []byte) bool {
	return wire.IsStateless(requestRevision(r, meta))
}

// publicKey is the key of the tools a server listed as "public"
// (cacheScope, MCP 2026-07-28): the same for every client.
const publicKey = "p"

// scopeKey is the key of what the proxy learns for a request of a
// stateless revision, which has no session: the hash of its Authorization
// header, so that a list is never shared between authorizations; "" for a
// request without one, whose listing the proxy shares with no other
// client unless the server said it is public.
func scopeKey(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return ""
	}
	return "a" + hashLimitBy(auth)
}

// toolsFor returns the session whose tools judge the call of x, after
// listing them when this replica does not know them (see listIfNeeded).
// A request of a stateless revision without an authorization is judged by
// the tools the server listed as public, or else by a listing of its own,
// kept for the others only when the server says it is public.
func (h *httpProxy) toolsFor(r *http.Request, x *exchange, tool string) *httpSession {
	if x.key != "" || x.revision == "" {
		sess := h.session(x.key)
		h.listIfNeeded(r, sess, x.revision, tool)
		return sess
	}
	if pub := h.existing(publicKey); pub != nil {
		h.listIfNeeded(r, pub, x.revision, tool)
		if pub.tools.scopeOf() == "public" {
			return pub
		}
		h.drop(publicKey, pub) // no longer public: this request's only
		return pub
	}
	own := &httpSession{}
	h.listIfNeeded(r, own, x.revision, tool)
	if own.tools.scopeOf() == "public" {
		h.mu.Lock()
		h.sessions[publicKey] = own
		h.mu.Unlock()
	}
	return own
}

// limitBy is the hash of WithLimitBy's value for r, or "".
func (h *httpProxy) limitBy(r *http.Request) string {
	if f := h.p.cfg.limitBy; f != nil {
		return hashLimitBy(f(r))
	}
	return ""
}

// writeAnswer writes the proxy's response to a POSTed request: a JSON body,
// or one event of a stream when the client accepts only that.
func writeAnswer(w http.ResponseWriter, r *http.Request, msg []byte) {
	accept := r.Header.Get("Accept")
	if accept != "" && !accepts(accept, "application/json") && accepts(accept, "text/event-stream") {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		_ = eventstream.WriteEvent(w, "", msg) // a client gone is no one's concern
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(msg)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(msg)
}

// accepts reports whether an Accept header admits the media type want
// (exactly, or through type/* or */*).
func accepts(accept, want string) bool {
	typ, _, _ := strings.Cut(want, "/")
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, _ := strings.Cut(part, ";")
		mt = strings.TrimSpace(mt)
		if strings.EqualFold(mt, want) || mt == "*/*" || strings.EqualFold(mt, typ+"/*") {
			return true
		}
	}
	return false
}

// sessionKey is the key of the session a request belongs to: its
// Mcp-Session-Id, or for a server without sessions the hash of its
// Authorization header, so that callers with different credentials, who
// may see different tools, are not mixed.
func sessionKey(r *http.Request) string {
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		return "s" + id
	}
	return "a" + hashLimitBy(r.Header.Get("Authorization"))
}

// session returns the session of key, made on its first use. When there
// are maxHTTPSessions, those unused for sessionIdle are forgotten first,
// then the least recently used half.
func (h *httpProxy) session(key string) *httpSession {
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	sess := h.sessions[key]
	if sess == nil {
		if len(h.sessions) >= maxHTTPSessions {
			h.forget(now)
		}
		sess = &httpSession{}
		h.sessions[key] = sess
	}
	sess.mu.Lock()
	sess.used = now
	sess.mu.Unlock()
	return sess
}

// existing returns the session of key, nil when there is none.
func (h *httpProxy) existing(key string) *httpSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[key]
}

// drop forgets the session of key if it is still sess.
func (h *httpProxy) drop(key string, sess *httpSession) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sessions[key] == sess {
		delete(h.sessions, key)
	}
}

// forget drops sessions to make room; h.mu is held.
func (h *httpProxy) forget(now time.Time) {
	type use struct {
		key  string
		used time.Time
	}
	uses := make([]use, 0, len(h.sessions))
	for k, s := range h.sessions {
		s.mu.Lock()
		used := s.used
		s.mu.Unlock()
		if now.Sub(used) > sessionIdle {
			delete(h.sessions, k)
			continue
		}
		uses = append(uses, use{k, used})
	}
	if len(h.sessions) < maxHTTPSessions {
		return
	}
	slices.SortFunc(uses, func(a, b use) int { return a.used.Compare(b.used) })
	for _, u := range uses[:len(uses)/2] {
		delete(h.sessions, u.key)
	}
}

// listIfNeeded lists the session's tools itself when this replica has no
// listing of them, or an old or stale one, and waits for the listing (one
// at a time per session: concurrent calls wait for the same one). A
// listing is old after its ttlMs (MCP 2026-07-28; at least minTTL), or
// after listTTL when it gave none. A call of tool, when tool is in a
// listing old by its ttlMs, does not wait: it is judged by that listing
// while the tools are listed again behind it, as over stdio (see
// toolSet.find). revision is the stateless revision of the request, ""
// for an earlier one.
func (h *httpProxy) listIfNeeded(r *http.Request, sess *httpSession, revision, tool string) {
	now := time.Now()
	expires := sess.tools.expiresAt()
	known := tool != "" && sess.tools.lookup(tool) != nil
	sess.mu.Lock()
	fresh := !sess.listedAt.IsZero() && !sess.stale
	behind := fresh && !expires.IsZero() && known // old by its ttlMs only
	if expires.IsZero() {
		fresh = fresh && now.Sub(sess.listedAt) < listTTL
	} else {
		fresh = fresh && now.Before(expires)
	}
	failed := !sess.failedAt.IsZero() && now.Sub(sess.failedAt) < listRetry
	if fresh || failed {
		sess.mu.Unlock()
		return
	}
	wait := sess.listing
	if wait == nil {
		sess.listing = make(chan struct{})
	}
	sess.mu.Unlock()
	if behind {
		if wait == nil {
			// Its own request: this one may end before the listing does.
			go h.runListing(r.Clone(context.WithoutCancel(r.Context())), sess, revision)
		}
		return
	}
	if wait != nil {
		select {
		case <-wait:
		case <-r.Context().Done():
		}
		return
	}
	h.runListing(r, sess, revision)
}

// runListing lists the session's tools (see list), for at most
// listTimeout, and ends the listing under way that listIfNeeded began.
func (h *httpProxy) runListing(r *http.Request, sess *httpSession, revision string) {
	// The listing outlives the call that started it: the calls waiting
	// for it need it even when this client goes.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), listTimeout)
	err := h.list(ctx, r, sess, revision)
	cancel()
	sess.mu.Lock()
	if err != nil {
		sess.failedAt = time.Now()
	} else {
		sess.failedAt = time.Time{}
	}
	close(sess.listing)
	sess.listing = nil
	sess.mu.Unlock()
	if err != nil {
		h.logUpstream("selfheal proxy: cannot list the tools of a session; its calls pass unchecked for now", err)
	}
}

// list lists the session's tools with the headers of r (its session,
// protocol version and credentials), every page, and learns them. In a
// stateless revision, each request carries the revision and the proxy's
// client info in its _meta, and the headers say tools/list.
func (h *httpProxy) list(ctx context.Context, r *http.Request, sess *httpSession, revision string) error {
	cursor := ""
	for page := 0; page < maxListPages; page++ {
		id := fmt.Sprintf(`"selfheal-proxy/tools-list/%d"`, h.listSeq.Add(1))
		var params []string
		if cursor != "" {
			c, _ := json.Marshal(cursor)
			params = append(params, `"cursor":`+string(c))
		}
		if revision != "" {
			params = append(params, `"_meta":`+string(wire.OwnMeta(revision)))
		}
		body := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"`
		if params != nil {
			body += `,"params":{` + strings.Join(params, ",") + `}`
		}
		body += `}`
		result, err := h.roundTrip(ctx, r, []byte(id), body, revision)
		if err != nil {
			return err
		}
		next, ok := sess.tools.learn(h.p, result, cursor == "")
		if !ok {
			return errors.New("the tools/list result cannot be read")
		}
		if next == "" {
			sess.listed()
			return nil
		}
		cursor = next
	}
	return fmt.Errorf("the tools/list results have more than %d pages", maxListPages)
}

// listed notes that a listing of the session's tools has ended.
func (s *httpSession) listed() {
	s.mu.Lock()
	s.listedAt = time.Now()
	s.stale = false
	s.mu.Unlock()
}

// roundTrip POSTs the proxy's own request body (of id) to the upstream
// server with the headers of r, and returns the result of its response,
// from a JSON body or from the event of a stream that carries it.
func (h *httpProxy) roundTrip(ctx context.Context, r *http.Request, id []byte, body, revision string) (json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.upstream.String(), strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = r.Header.Clone()
	for _, k := range []string{"Content-Length", "Accept-Encoding", "Last-Event-Id", "Connection", "Keep-Alive",
		"Proxy-Connection", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"} {
		req.Header.Del(k)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if revision != "" {
		// The call's method headers would contradict the body, which a
		// stateless server refuses.
		req.Header.Set("Mcp-Protocol-Version", revision)
		req.Header.Set("Mcp-Method", methodToolsList)
		req.Header.Del("Mcp-Name")
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("tools/list: HTTP %s", resp.Status)
	}
	want, _ := wire.IDKey(id)
	var found *wire.Message
	take := func(data []byte) {
		if m, ok := wire.Decode(data); ok && m.IsResponse() {
			if k, _ := wire.IDKey(m.ID); k == want {
				found = m
			}
		}
	}
	body2 := io.LimitReader(resp.Body, maxListBody)
	if wire.MediaType(resp.Header.Get("Content-Type")) == "text/event-stream" {
		sc := eventstream.NewScanner(func(ev *eventstream.Event) {
			if found == nil && ev.IsMessage() {
				take(bytes.Clone(ev.Data))
			}
		})
		buf := make([]byte, 32<<10)
		for found == nil {
			n, err := body2.Read(buf)
			_, _ = sc.Write(buf[:n])
			if err != nil {
				break
			}
		}
	} else {
		data, err := io.ReadAll(body2)
		if err != nil {
			return nil, err
		}
		take(data)
	}
	switch {
	case found == nil:
		return nil, errors.New("no response to tools/list")
	case found.Result == nil:
		return nil, fmt.Errorf("tools/list: error %s", found.Error)
	}
	return found.Result, nil
}

// upstreamTransport is the default transport to the upstream server:
// http.DefaultTransport's settings, keeping as many idle connections to
// the upstream as the whole pool. Every request goes to that one host;
// with net/http's default of 2 per host, most calls made at once would
// dial a connection and close it after.
func upstreamTransport() http.RoundTripper {
	rt, ok := http.DefaultTransport.(*http.Transport)
	if !ok { // a program replaced it: its choice
		return http.DefaultTransport
	}
	rt = rt.Clone()
	rt.MaxIdleConnsPerHost = max(rt.MaxIdleConns, 100)
	return rt
}

// rewrite sends every request to the upstream endpoint.
func (h *httpProxy) rewrite(pr *httputil.ProxyRequest) {
	u := *h.upstream
	if u.RawQuery == "" {
		u.RawQuery = pr.In.URL.RawQuery
	}
	pr.Out.URL = &u
	// The client's Host, not the upstream's: a server that refuses
	// foreign hosts (DNS rebinding) must still see the name the client
	// used.
	pr.Out.Host = pr.In.Host
	pr.SetXForwarded()
	// The proxy reads the bodies: they must come back uncompressed (the
	// transport asks for gzip itself and undoes it).
	pr.Out.Header.Del("Accept-Encoding")
	// A body read whole (see readBody) is forwarded as the bytes in memory
	// it is, not in the wrapper ReverseProxy puts around the client's body:
	// the transport sees through the former only, and then sends the
	// headers and the body in one write instead of two.
	if pr.In.GetBody != nil {
		if body, err := pr.In.GetBody(); err == nil {
			pr.Out.Body = body
		}
	}
}

// modifyResponse reads what the proxy needs of a response as it passes:
// a new session's locale, a session ended, the tools of a tools/list
// result, the notifications/tools/list_changed of a stream. A JSON response
// to a request is read whole before it is sent, so that a failure reading
// it is answered with a JSON-RPC error; a stream is read as it passes.
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
			key = "s" + id
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
		// The tap may replace an event, or add one: the length the server
		// gave no longer holds.
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
		if m, ok := wire.Decode(data); ok && h.response(x, m) && x.explain != nil && ok2xx(resp) {
			if answer := h.p.answer(x.explain, m); answer != nil {
				data = answer
				resp.ContentLength = int64(len(data))
				resp.Header.Set("Content-Length", strconv.Itoa(len(data)))
			}
		}
		resp.Body = io.NopCloser(bytes.NewReader(data))
	}
	return nil
}

// listScope is the cacheScope of a tools/list result, "" for none.
func listScope(result []byte) string {
	scope := ""
	wire.Members(result, func(k, v []byte) {
		if string(k) == "cacheScope" {
			scope = wire.Str(v)
		}
	})
	return scope
}

// ok2xx reports whether resp is a success: only then does it carry a
// JSON-RPC response the client reads (an HTTP error is the transport's).
func ok2xx(resp *http.Response) bool { return resp.StatusCode/100 == 2 }

// response reads a message of the upstream server passing to the client
// in the response to x: the tools of a tools/list result are learned, a
// notifications/tools/list_changed makes the session's listing stale. It
// reports whether m is the response to x's request.
func (h *httpProxy) response(x *exchange, m *wire.Message) bool {
	if m.Method == methodListChanged {
		key := x.key
		if key == "" && x.revision != "" {
			key = publicKey
		}
		if sess := h.existing(key); sess != nil {
			sess.mu.Lock()
			sess.stale = true
			sess.mu.Unlock()
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
			// No authorization and no session: kept only for a list the
			// server says any client may share.
			if listScope(m.Result) != "public" {
				return true
			}
			key = publicKey
		}
		sess := h.session(key)
		if next, ok := sess.tools.learn(h.p, m.Result, x.first); ok && next == "" {
			sess.listed()
		}
	}
	return true
}

// tap reads the events of a stream as they pass (see response). When the
// stream of a request fails before the request's response has passed, or
// ends without it and without an event id to resume from, the tap ends the
// stream with a JSON-RPC error response, so that the call does not hang.
// The stream of a call forwarded with issues (see explain) is passed an
// event at a time until its response: each event is held until its end,
// so that a rejection is replaced whole by selfheal's answer.
func (h *httpProxy) tap(body io.ReadCloser, x *exchange) io.ReadCloser {
	t := &sseTap{body: body, x: x, holding: x.explain != nil}
	t.sc = eventstream.NewScanner(func(ev *eventstream.Event) {
		if ev.ID != "" {
			t.resumable = true
		}
		if !ev.IsMessage() {
			return
		}
		m, ok := wire.Decode(ev.Data)
		if !ok || !h.response(x, m) {
			return
		}
		t.answered = true
		if t.holding {
			t.holding = false
			if answer := h.p.answer(x.explain, m); answer != nil {
				var b bytes.Buffer
				_ = eventstream.WriteEvent(&b, ev.ID, answer) // a bytes.Buffer does not fail
				t.replaced = b.Bytes()
			}
		}
	})
	return t
}

// sseTap is the body of a stream the proxy reads as it passes.
type sseTap struct {
	body      io.ReadCloser
	x         *exchange
	sc        *eventstream.Scanner
	answered  bool   // the request's response has passed
	resumable bool   // an event had an id
	tail      []byte // the bytes to send once the stream has ended
	end       error  // what Read returns once tail is sent; nil while the stream runs

	// holding: the events are held until they end (see tap); held are the
	// bytes of the event being read, out those ready to be sent, replaced
	// the event that takes the place of the one being read.
	holding   bool
	held, out []byte
	replaced  []byte
	buf       []byte
}

func (t *sseTap) Read(p []byte) (int, error) {
	if len(t.out) > 0 {
		n := copy(p, t.out)
		t.out = t.out[n:]
		return n, nil
	}
	if t.end != nil {
		if len(t.tail) == 0 {
			return 0, t.end
		}
		n := copy(p, t.tail)
		t.tail = t.tail[n:]
		return n, nil
	}
	var n int
	var err error
	if t.holding {
		if t.buf == nil {
			t.buf = make([]byte, 32<<10)
		}
		var m int
		m, err = t.body.Read(t.buf)
		t.hold(t.buf[:m])
		n = copy(p, t.out)
		t.out = t.out[n:]
	} else {
		n, err = t.body.Read(p)
		_, _ = t.sc.Write(p[:n])
	}
	if err == nil {
		return n, nil
	}
	// The stream has ended: what was held goes as it is.
	t.out = append(t.out, t.held...)
	t.held = nil
	t.end = io.EOF
	if t.x.id != nil && !t.answered && (!errors.Is(err, io.EOF) || !t.resumable) {
		var b bytes.Buffer
		if t.sc.Pending() {
			// Whatever was cut short becomes an event of a type that MCP
			// clients ignore, rather than half a message.
			b.WriteString("\nevent: selfheal-discarded\n\n")
		}
		_ = eventstream.WriteEvent(&b, "", wire.ErrorResponse(t.x.id, wire.CodeInternalError, "selfheal proxy: the MCP server ended its response before answering"))
		t.tail = b.Bytes()
	} else if !errors.Is(err, io.EOF) {
		t.end = err
	}
	if n == 0 && len(t.out) > 0 {
		n = copy(p, t.out)
		t.out = t.out[n:]
	}
	return n, nil
}

// hold scans data a line at a time, holding the bytes of each event until
// its end: then they go to out, or the event replacing them does. Once the
// request's response has passed, the rest goes to out as it comes.
func (t *sseTap) hold(data []byte) {
	for len(data) > 0 {
		if !t.holding {
			t.out = append(t.out, data...)
			_, _ = t.sc.Write(data)
			return
		}
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			i = len(data) - 1
		}
		line := data[:i+1]
		data = data[i+1:]
		t.held = append(t.held, line...)
		_, _ = t.sc.Write(line)
		switch {
		case t.replaced != nil:
			t.out = append(t.out, t.replaced...)
			t.replaced, t.held = nil, t.held[:0]
		case !t.holding || t.sc.Between():
			t.out = append(t.out, t.held...)
			t.held = t.held[:0]
		}
	}
}

func (t *sseTap) Close() error { return t.body.Close() }

// upstreamError answers a request the upstream server did not answer
// (unreachable, failed, or its response could not be read): a JSON-RPC
// error with HTTP 502 for a request, a plain 502 otherwise.
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

// logUpstream logs a failure of the upstream server, once a minute at
// most: a server that is down must not flood the log.
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
