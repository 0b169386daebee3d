package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// The HTTP proxy's default bounds, those of "selfheal proxy --listen".
const (
	defaultReadTimeout     = 30 * time.Second
	defaultUpstreamSilence = 5 * time.Minute
	defaultBodyMemory      = 128 << 20
	defaultMaxRequests     = 10000
	// heldBodyBytes is the most of one body the proxy holds.
	heldBodyBytes = maxCheckedBody + 1
	// budgetWait is how long a body waits for room in the budget (then 503).
	budgetWait = 10 * time.Second
	// minBodyRate and rateGrace: after rateGrace a body must have come at
	// minBodyRate bytes a second on average, or its connection is cut. 1
	// KiB/s is far below any real link, yet a connection trickling a large
	// body holds its place for seconds, not the whole read timeout.
	minBodyRate = 1024
	rateGrace   = 2 * time.Second
	// clientShare: one client (IP address) holds at most 1/clientShare of
	// the budget, so that one cannot take what all share.
	clientShare = 4
)

// WithReadTimeout bounds how long a client of the HTTP proxy may take to
// send a request's body, from when the handler gets it; within it, the body
// must also come at 1 KiB/s on average after its first 2 seconds, so that
// a client trickling bytes holds its connection for seconds. 30 seconds by
// default; d < 0 turns both off. Bound the headers with the http.Server's
// ReadHeaderTimeout (see [Proxy.HTTPHandler]).
func WithReadTimeout(d time.Duration) Option {
	return func(c *config) { c.readTimeout = d }
}

// WithUpstreamSilence bounds how long the upstream server of
// [Proxy.HTTPHandler] may stay silent: before its response's headers
// (WithTransport's transport keeps its own ResponseHeaderTimeout) and
// between two reads of its response to a POST; past it the client gets a
// JSON-RPC error, so that no call hangs on a frozen server. Progress keeps
// a call alive, and a GET stream is never cut. Before a stdio server
// ([Proxy.CommandHandler]) it bounds how long a request may get nothing
// from it. 5 minutes by default; d < 0 turns it off over HTTP.
func WithUpstreamSilence(d time.Duration) Option {
	return func(c *config) { c.upstreamSilence = d }
}

// WithBodyMemory bounds the bytes of request bodies the HTTP proxy reads
// or holds at once, for all clients together: a body holds what has come,
// not what it declares; one that does not fit waits up to 10 seconds for
// room, then gets 503. One client (an IP address) holds at most a quarter
// (503 at once past it): behind a reverse proxy all clients share one
// quarter, so give it a larger budget. 128 MiB by default; n < 0: none.
func WithBodyMemory(n int64) Option {
	return func(c *config) { c.bodyMemory = n }
}

// WithMaxRequests bounds the requests the HTTP proxy serves at once,
// streams included: past it, a request gets 503 at once, so that a flood
// of clients costs a bounded number of goroutines and buffers. 10,000 by
// default; n < 0 turns it off.
func WithMaxRequests(n int) Option {
	return func(c *config) { c.maxRequests = n }
}

// guardHTTP wraps h, any handler the proxy serves, in its HTTP safety: Host
// and Origin (403), requests at once (503), the body's read deadline and
// the body-memory budget (503). Everything else is h's.
func (p *Proxy) guardHTTP(h http.Handler) http.Handler {
	g := &httpGuard{p: p, h: h, wait: budgetWait, clients: map[string]int64{}, budget: p.bodies}
	if g.budget != nil {
		g.share = p.cfg.bodyMemory / clientShare
	}
	return g
}

type httpGuard struct {
	p      *Proxy
	h      http.Handler
	active atomic.Int64 // requests under way
	// budget is the body-memory budget (nil: none); held is taken now;
	// peaked: held went past a quarter, so memory is returned after.
	budget          *semaphore.Weighted
	wait            time.Duration // budgetWait; a test shortens it
	held            atomic.Int64
	peaked, freeing atomic.Bool
	// clients is the bytes each client holds (no entry: none); share is
	// the most one may hold.
	mu      sync.Mutex
	clients map[string]int64
	share   int64
}

func (g *httpGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if g.p.forbidden(w, r) {
		return
	}
	if max := g.p.cfg.maxRequests; max > 0 {
		if g.active.Add(1) > int64(max) {
			g.active.Add(-1)
			serviceUnavailable(w, "Service Unavailable: the proxy serves as many requests as it may; try again")
			return
		}
		defer g.active.Add(-1)
	}
	if r.Body == nil || r.Body == http.NoBody || g.budget == nil && g.p.cfg.readTimeout <= 0 {
		g.h.ServeHTTP(w, r)
		return
	}
	b := &guardedBody{ReadCloser: r.Body, g: g, ctx: r.Context(), client: clientOf(r)}
	if d := g.p.cfg.readTimeout; d > 0 {
		b.start = time.Now()
		b.end = b.start.Add(d)
		b.deadline = earlier(b.end, b.start.Add(rateGrace))
		// A writer that cannot set one (a test's recorder) keeps the
		// server's deadlines.
		if http.NewResponseController(w).SetReadDeadline(b.deadline) == nil {
			b.w = w
		}
	}
	r.Body = b
	defer b.release()
	g.h.ServeHTTP(w, r)
}

func (g *httpGuard) size() int64 { return max(g.p.cfg.bodyMemory, 0) }

// acquireWithin takes n of sem, waiting up to wait or until ctx ends.
func acquireWithin(ctx context.Context, sem *semaphore.Weighted, n int64, wait time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	return sem.Acquire(ctx, n) == nil
}

// claim notes n more bytes held by client, unless past its share.
func (g *httpGuard) claim(client string, n int64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.clients[client]+n > g.share {
		return false
	}
	g.clients[client] += n
	return true
}

func (g *httpGuard) unclaim(client string, n int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.clients[client] -= n; g.clients[client] <= 0 {
		delete(g.clients, client)
	}
}

// clientOf is r's IP address, without its port.
func clientOf(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// bodyError answers a body that could not be read: 503 when the budget had
// no room (the client may retry), else 400.
func bodyError(w http.ResponseWriter, err error) {
	if errors.Is(err, relay.ErrNoRoom) {
		serviceUnavailable(w, "Service Unavailable: the proxy holds as many request bodies as it may; try again")
		return
	}
	http.Error(w, "selfheal proxy: cannot read the request body", http.StatusBadRequest)
}

func (g *httpGuard) took(n int64) {
	if g.held.Add(n) > g.size()/4 {
		g.peaked.Store(true)
	}
}

// give returns n bytes; when none are held after a peak, the memory goes
// back to the system.
func (g *httpGuard) give(n int64) {
	g.budget.Release(n)
	if g.held.Add(-n) == 0 && g.peaked.Load() && g.freeing.CompareAndSwap(false, true) {
		g.peaked.Store(false)
		go func() {
			defer g.freeing.Store(false)
			debug.FreeOSMemory()
		}()
	}
}

// guardedBody is a request body read under the guard: its bytes are taken
// from the budget as they come, and its read deadline moves with them.
type guardedBody struct {
	io.ReadCloser
	g      *httpGuard
	ctx    context.Context
	client string              // see clientOf
	w      http.ResponseWriter // non-nil while a read deadline is set
	// start counts the rate from; end is the read timeout's deadline;
	// deadline is the one set now.
	start, end, deadline time.Time
	read                 int64
	taken                int64
	once                 sync.Once
}

func (b *guardedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	if need := min(b.read, heldBodyBytes, b.g.size()) - b.taken; need > 0 && b.g.budget != nil {
		if !b.g.claim(b.client, need) {
			return n, fmt.Errorf("%w: the client holds its share of the budget", relay.ErrNoRoom)
		}
		// Only a read that must wait for room needs a timer.
		if !b.g.budget.TryAcquire(need) {
			waited := time.Now()
			if !acquireWithin(b.ctx, b.g.budget, need, b.g.wait) {
				b.g.unclaim(b.client, need)
				return n, relay.ErrNoRoom
			}
			// The wait is the proxy's: the rate is counted without it.
			b.start = b.start.Add(time.Since(waited))
		}
		b.taken += need
		b.g.took(need)
	}
	if b.w != nil && b.deadline.Before(b.end) && err == nil {
		b.keepUp()
	}
	if errors.Is(err, io.EOF) {
		// Lifted once the body has come: net/http then reads the
		// connection in the background, and a deadline passing would
		// cancel a long response. After a failed read it stays, so that
		// discarding the rest is not held by the same slow client.
		if b.w != nil {
			_ = http.NewResponseController(b.w).SetReadDeadline(time.Time{})
			b.w = nil
		}
	}
	return n, err
}

// keepUp moves the read deadline to when the bytes read would fall under
// minBodyRate, in whole seconds (at most once per KiB read).
func (b *guardedBody) keepUp() {
	ahead := time.Duration(min(b.read, 1<<40)/minBodyRate) * time.Second
	next := earlier(b.end, b.start.Add(rateGrace+ahead))
	if next.After(b.deadline) {
		b.deadline = next
		_ = http.NewResponseController(b.w).SetReadDeadline(next)
	}
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func (b *guardedBody) release() {
	b.once.Do(func() {
		if b.taken > 0 {
			b.g.unclaim(b.client, b.taken)
			b.g.give(b.taken)
		}
	})
}

func serviceUnavailable(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", "1")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(wire.ErrorResponse(nil, -32000, msg))
}

// silentTransport bounds the upstream's silence: before the headers by
// ResponseHeaderTimeout (the proxy's own transport only; WithTransport's
// keeps its settings), and each read of a POST response's body.
func silentTransport(rt http.RoundTripper, silence time.Duration) http.RoundTripper {
	if rt == nil {
		rt = upstreamTransport()
		if t, ok := rt.(*http.Transport); ok && silence > 0 {
			t.ResponseHeaderTimeout = silence
		}
	}
	if silence <= 0 {
		return rt
	}
	return &silentCut{rt: rt, silence: silence}
}

type silentCut struct {
	rt      http.RoundTripper
	silence time.Duration
}

func (s *silentCut) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.rt.RoundTrip(r)
	// A GET stream may be quiet for hours: only a POST's response is awaited.
	if err != nil || r.Method != http.MethodPost || resp.Body == nil || resp.Body == http.NoBody {
		return resp, err
	}
	b := &silenceBody{ReadCloser: resp.Body, silence: s.silence, start: time.Now()}
	b.timer = time.AfterFunc(s.silence, b.check)
	resp.Body = b
	return resp, nil
}

// errSilent ends a body read once the server has sent nothing for too long.
var errSilent = errors.New("the MCP server sent nothing for too long")

// silenceBody closes a response body silent for too long, so that a read
// on a frozen server ends with errSilent. A read only notes when it got
// bytes; the timer checks that note when it fires, so that a response
// costs one timer, not a reset per read.
type silenceBody struct {
	io.ReadCloser
	silence time.Duration
	start   time.Time
	heard   atomic.Int64 // when bytes last came, as time since start
	timer   *time.Timer
	cut     atomic.Bool
	ended   atomic.Bool // the body has ended or been closed: no more checks
}

// check cuts the body if nothing came for the whole silence, else waits
// for the rest of it.
func (b *silenceBody) check() {
	if b.ended.Load() {
		return
	}
	quiet := time.Since(b.start) - time.Duration(b.heard.Load())
	if quiet < b.silence {
		b.timer.Reset(b.silence - quiet)
		return
	}
	b.cut.Store(true)
	b.ReadCloser.Close()
}

func (b *silenceBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.cut.Load() {
		return n, fmt.Errorf("%w (%v)", errSilent, b.silence)
	}
	if err != nil {
		b.ended.Store(true)
		b.timer.Stop()
	} else if n > 0 {
		b.heard.Store(int64(time.Since(b.start)))
	}
	return n, err
}

func (b *silenceBody) Close() error {
	b.ended.Store(true)
	b.timer.Stop()
	return b.ReadCloser.Close()
}
