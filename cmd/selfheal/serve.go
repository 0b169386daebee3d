package main

import (
	"context"
	"encoding/json"
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
)

// What a proxy listening on a network gives each client at most, so that
// slow or many clients cannot hold it: the flags' defaults.
const (
	// defaultReadTimeout bounds the reading of a request, headers and body,
	// from its first byte: a client sending a byte at a time is cut then.
	defaultReadTimeout = 30 * time.Second
	// defaultIdleTimeout is how long a kept-alive connection waits for its
	// next request.
	defaultIdleTimeout = 2 * time.Minute
	// defaultUpstreamTimeout is how long the upstream server may stay
	// silent: before its response's headers, and between two reads of
	// its body. A call that streams progress is never cut; a frozen server
	// leaves its client a JSON-RPC error then.
	defaultUpstreamTimeout = 5 * time.Minute
	// defaultBodyMemory bounds the bytes of request bodies being read or
	// held at once, across every request.
	defaultBodyMemory = 128 << 20
	// heldBodyBytes is the most of one body the proxy holds: its HTTP
	// handler checks bodies of up to 16 MiB and streams larger ones.
	heldBodyBytes = 16<<20 + 1
	// budgetWait is how long a request whose body does not fit in the
	// budget waits for room before it is answered 503.
	budgetWait = 10 * time.Second
	// headerTimeout bounds the reading of a request's headers.
	headerTimeout = 10 * time.Second
	// fdReserve are the file descriptors kept for everything but client
	// connections: the upstream's connections, listeners, logs.
	fdReserve = 128
	// fdPerSession are the descriptors a session's process takes in
	// command mode (its three pipes and the process's handle).
	fdPerSession = 4
	// maxCommandSessions is proxy.CommandServer's bound on sessions
	// (processes).
	maxCommandSessions = 1000
	// defaultWarm is --warm's default: one process of the server waits
	// started, so that the next session's first answer costs no process
	// start (700 ms for a Node server), for the memory of one idle process
	// (see bench/README.md). More would start servers that may never be
	// used, and a server with side effects at its start would have them
	// early; a burst of sessions starts the rest at once anyway.
	defaultWarm = 1
)

// serveLimits are the network bounds of selfheal proxy --listen.
type serveLimits struct {
	readTimeout, idleTimeout time.Duration
	bodyMemory               int64
	maxConns                 int // 0: no bound
}

// bodyBudget bounds the bytes of request bodies read or held at once (see
// defaultBodyMemory). A request with a Content-Length takes its share
// before the handler runs, and waits up to budgetWait for it (503 after);
// one without takes its bytes as they are read, waiting for room. Each
// gives them back when its handler returns. When a load has passed (no
// body held), the memory is handed back to the system.
type bodyBudget struct {
	size int64
	wait time.Duration // budgetWait; a test shortens it
	sem  *semaphore.Weighted
	// held is the bytes taken now; peaked is set when it went past a
	// quarter of the budget, so that the memory is returned afterwards.
	held   atomic.Int64
	peaked atomic.Bool
	// freeing is set while the memory is being returned.
	freeing atomic.Bool
}

func newBodyBudget(size int64) *bodyBudget {
	return &bodyBudget{size: size, wait: budgetWait, sem: semaphore.NewWeighted(size)}
}

// wrap applies the budget to h's requests. (The read deadline of a body
// is the server's ReadTimeout: net/http lifts it when the body has been
// read to its end, before the response, so that its background read of
// the connection cannot cancel a long response; after a failed read it
// stays, and the server, discarding what is left of the body, cannot be
// held by the same slow client.)
func (b *bodyBudget) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			h.ServeHTTP(w, r)
			return
		}
		var taken int64
		if n := min(r.ContentLength, heldBodyBytes, b.size); n > 0 {
			// Only a request that must wait for room needs the bound on
			// its wait (a timer): the others take their share at once.
			if !b.sem.TryAcquire(n) && !b.acquireWithin(r.Context(), n) {
				serviceUnavailable(w, "Service Unavailable: the proxy holds as many request bodies as it may; try again")
				return
			}
			taken = n
			b.took(n)
		}
		body := &budgetBody{ReadCloser: r.Body, b: b, ctx: r.Context(), taken: taken}
		r.Body = body
		defer body.release()
		h.ServeHTTP(w, r)
	})
}

// acquireWithin takes n bytes of the budget, waiting for them up to b.wait
// or until ctx ends; it reports whether it took them.
func (b *bodyBudget) acquireWithin(ctx context.Context, n int64) bool {
	ctx, cancel := context.WithTimeout(ctx, b.wait)
	defer cancel()
	return b.sem.Acquire(ctx, n) == nil
}

// took notes n more bytes taken.
func (b *bodyBudget) took(n int64) {
	if b.held.Add(n) > b.size/4 {
		b.peaked.Store(true)
	}
}

// give returns n bytes; when none are held after a peak, the memory the
// bodies took goes back to the system, at most one at a time.
func (b *bodyBudget) give(n int64) {
	b.sem.Release(n)
	if b.held.Add(-n) == 0 && b.peaked.Load() && b.freeing.CompareAndSwap(false, true) {
		b.peaked.Store(false)
		go func() {
			defer b.freeing.Store(false)
			debug.FreeOSMemory()
		}()
	}
}

// budgetBody is a request body read under a bodyBudget.
type budgetBody struct {
	io.ReadCloser
	b     *bodyBudget
	ctx   context.Context
	read  int64
	taken int64
	once  sync.Once
}

func (bb *budgetBody) Read(p []byte) (int, error) {
	n, err := bb.ReadCloser.Read(p)
	bb.read += int64(n)
	if need := min(bb.read, heldBodyBytes, bb.b.size) - bb.taken; need > 0 {
		if aerr := bb.b.sem.Acquire(bb.ctx, need); aerr != nil {
			return n, fmt.Errorf("selfheal proxy: no room for the request body: %w", aerr)
		}
		bb.taken += need
		bb.b.took(need)
	}
	return n, err
}

// release gives the body's bytes back, once.
func (bb *budgetBody) release() {
	bb.once.Do(func() {
		if bb.taken > 0 {
			bb.b.give(bb.taken)
		}
	})
}

// serviceUnavailable answers 503 with a JSON-RPC error, as the proxy's
// other refusals.
func serviceUnavailable(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", "1")
	w.WriteHeader(http.StatusServiceUnavailable)
	quoted, _ := json.Marshal(msg) // a string always encodes; %q would write Go's escapes, not JSON's
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":%s}}`, quoted)
}

// connLimit is a listener that serves at most max connections at once.
// Past it, a new connection is answered 503 and closed at once, rather
// than left for accept to fail on the file-descriptor limit.
type connLimit struct {
	net.Listener
	max  int
	open atomic.Int64
}

func (l *connLimit) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) > int64(l.max) {
			l.open.Add(-1)
			refuseConn(c)
			continue
		}
		return &limitedConn{Conn: c, l: l}, nil
	}
}

// refuseConn answers a connection over the limit and closes it, without
// waiting for a client that does not read.
func refuseConn(c net.Conn) {
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = io.WriteString(c, "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n")
	_ = c.Close()
}

// limitedConn counts itself out of its connLimit when closed.
type limitedConn struct {
	net.Conn
	l    *connLimit
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}

// maxConns is how many client connections fit under the process's limit
// of open files, less a reserve and, in command mode, the descriptors of
// sessions' processes (sessions of them at most); 0 when the limit is not
// known.
func maxConns(sessions int) int {
	limit := openFileLimit()
	if limit <= 0 {
		return 0
	}
	return max(limit-fdReserve-sessions*fdPerSession, 16)
}

// timedTransport bounds how long an upstream server may stay silent (see
// defaultUpstreamTimeout): rt's response headers, and each read of the
// body of a response to a POST.
func timedTransport(rt *http.Transport, silence time.Duration) http.RoundTripper {
	rt = rt.Clone()
	rt.ResponseHeaderTimeout = silence
	// Every request goes to one host: it may keep the idle connections of
	// the whole pool (100 in http.DefaultTransport), not 2, the default per
	// host, with which most of the calls made at once dial a connection
	// and close it after (at 16 calls at once, 14 % of the proxy's CPU).
	rt.MaxIdleConnsPerHost = max(rt.MaxIdleConns, 100)
	return &silentCut{rt: rt, silence: silence}
}

type silentCut struct {
	rt      http.RoundTripper
	silence time.Duration
}

func (s *silentCut) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.rt.RoundTrip(r)
	// A GET stream carries what the server sends on its own, and may be
	// quiet for hours: only the response to a POST is awaited.
	if err != nil || r.Method != http.MethodPost || resp.Body == nil || resp.Body == http.NoBody {
		return resp, err
	}
	resp.Body = newSilenceBody(resp.Body, s.silence)
	return resp, nil
}

// errSilent is the error a body read returns once the server has sent
// nothing for too long.
var errSilent = errors.New("the MCP server sent nothing for too long")

// silenceBody closes a response body that stays silent for too long, so
// that a read waiting on a frozen server ends with errSilent. A read only
// notes when it got bytes; the timer, when it fires, checks that note and
// waits again for what is left of the silence, so that the reads of a
// response touch no timer (a response that passes within the silence
// costs one timer, not one reset per read).
type silenceBody struct {
	io.ReadCloser
	silence time.Duration
	start   time.Time
	heard   atomic.Int64 // when bytes last came, as time since start
	timer   *time.Timer
	cut     atomic.Bool
	ended   atomic.Bool // the body has ended or been closed: no more checks
}

func newSilenceBody(body io.ReadCloser, silence time.Duration) *silenceBody {
	b := &silenceBody{ReadCloser: body, silence: silence, start: time.Now()}
	b.timer = time.AfterFunc(silence, b.check)
	return b
}

// check runs when the timer fires: it cuts the body if nothing came for
// the whole silence, else waits for the rest of it.
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
