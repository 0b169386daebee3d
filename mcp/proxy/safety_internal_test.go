package proxy

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestHTTPDefaults: a proxy built with no option has the bounds of
// "selfheal proxy --listen", and HTTPHandler applies them: the upstream's
// silence is bounded (its transport's header wait, and the silence cut),
// and the handler is wrapped in the guard. A negative value turns a bound
// off; a positive one is kept.
func TestHTTPDefaults(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	c := p.cfg
	if c.readTimeout != 30*time.Second || c.upstreamSilence != 5*time.Minute || c.bodyMemory != 128<<20 || c.maxRequests != 10000 {
		t.Errorf("defaults: read %v, silence %v, body memory %d, requests %d", c.readTimeout, c.upstreamSilence, c.bodyMemory, c.maxRequests)
	}
	g, ok := p.HTTPHandler(&url.URL{Scheme: "http", Host: "127.0.0.1:1"}).(*httpGuard)
	if !ok || g.budget == nil {
		t.Fatalf("HTTPHandler is not guarded: %T", g)
	}
	cut, ok := g.h.(*httpProxy).client.Transport.(*silentCut)
	if !ok || cut.silence != 5*time.Minute || cut.rt.(*http.Transport).ResponseHeaderTimeout != 5*time.Minute {
		t.Errorf("the upstream transport does not bound its silence: %#v", g.h.(*httpProxy).client.Transport)
	}

	p, _ = New(WithReadTimeout(-1), WithUpstreamSilence(-1), WithBodyMemory(-1), WithMaxRequests(-1))
	if g := p.guardHTTP(http.NotFoundHandler()).(*httpGuard); g.budget != nil {
		t.Error("WithBodyMemory(-1) left a budget")
	}
	if _, cut := silentTransport(nil, p.cfg.upstreamSilence).(*silentCut); cut {
		t.Error("WithUpstreamSilence(-1) left the cut")
	}
	p, _ = New(WithReadTimeout(time.Second), WithMaxRequests(3))
	if p.cfg.readTimeout != time.Second || p.cfg.maxRequests != 3 {
		t.Errorf("options not kept: %v %d", p.cfg.readTimeout, p.cfg.maxRequests)
	}
}

// TestBodyBudget: bodies share one budget. A request whose body does not
// fit waits for room and gets 503 when none comes in time; once the
// holder is done, the next fits. A body without a Content-Length takes its
// bytes as they are read; every byte is given back.
func TestBodyBudget(t *testing.T) {
	p, _ := New(WithBodyMemory(100))
	entered := make(chan struct{})
	gate := make(chan struct{})
	g := p.guardHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, err := io.ReadAll(r.Body)
		if err != nil {
			bodyError(w, err)
			return
		}
		if r.Header.Get("Hold") != "" {
			entered <- struct{}{}
			<-gate
		}
		io.WriteString(w, "read "+strconv.Itoa(len(data)))
	})).(*httpGuard)
	g.wait = 50 * time.Millisecond
	g.share = 100 // the test's clients are one address (see TestClientShare)
	srv := httptest.NewServer(g)
	defer srv.Close()

	post := func(body string, chunked, hold bool) (int, string) {
		var r io.Reader = strings.NewReader(body)
		if chunked {
			r = io.MultiReader(r) // no length known: sent chunked
		}
		req, _ := http.NewRequest(http.MethodPost, srv.URL, r)
		if hold {
			req.Header.Set("Hold", "1")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return 0, ""
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}

	held := make(chan string)
	go func() { _, s := post(strings.Repeat("a", 80), false, true); held <- s }()
	<-entered
	if g.held.Load() != 80 {
		t.Errorf("held %d bytes, want 80", g.held.Load())
	}
	if code, body := post(strings.Repeat("b", 50), false, false); code != http.StatusServiceUnavailable || !strings.Contains(body, `"code":-32000`) {
		t.Errorf("over the budget: %d %s", code, body)
	}
	if code, body := post(strings.Repeat("c", 20), false, false); code != 200 || body != "read 20" {
		t.Errorf("within the budget: %d %s", code, body)
	}
	close(gate)
	if s := <-held; s != "read 80" {
		t.Errorf("the held request: %s", s)
	}
	if code, body := post(strings.Repeat("d", 90), true, false); code != 200 || body != "read 90" {
		t.Errorf("chunked: %d %s", code, body)
	}
	if n := g.held.Load(); n != 0 {
		t.Errorf("%d bytes still held", n)
	}
}

// TestMaxRequests: past the bound, a request gets 503 at once; one that
// ends makes room.
func TestMaxRequests(t *testing.T) {
	p, _ := New(WithMaxRequests(1))
	entered, gate := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(p.guardHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Hold") != "" {
			entered <- struct{}{}
			<-gate
		}
		io.WriteString(w, "ok")
	})))
	defer srv.Close()
	get := func(hold bool) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		if hold {
			req.Header.Set("Hold", "1")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return 0, ""
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}
	done := make(chan int)
	go func() { code, _ := get(true); done <- code }()
	<-entered
	if code, body := get(false); code != http.StatusServiceUnavailable || !strings.Contains(body, "as many requests as it may") {
		t.Errorf("over the bound: %d %s", code, body)
	}
	close(gate)
	if code := <-done; code != 200 {
		t.Errorf("the held request: %d", code)
	}
	if code, body := get(false); code != 200 || body != "ok" {
		t.Errorf("after the held one: %d %s", code, body)
	}
}

// TestSlowBody: a client that sends its headers and then part of its body
// and stops is cut at the read deadline: the handler's read fails, and
// the connection is not held.
func TestSlowBody(t *testing.T) {
	p, _ := New(WithReadTimeout(100 * time.Millisecond))
	readErr := make(chan error, 1)
	srv := httptest.NewServer(p.guardHTTP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		readErr <- err
	})))
	defer srv.Close()
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n0123456789")
	if err := <-readErr; err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Errorf("the slow body was read: %v", err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second)) // bounds a failing test only
	if _, err := bufio.NewReader(c).ReadString('\n'); err != nil && !strings.Contains(err.Error(), "EOF") && !strings.Contains(err.Error(), "reset") {
		t.Errorf("the connection is held: %v", err)
	}
}

// TestUpstreamConnsKept: the calls made at once reuse the connections to
// the upstream that the calls before them left idle: 16 at once, ten
// times over, open 16 connections, not a new one for most calls (136 with
// the transport's default of 2 idle connections per host). A few more are
// allowed: a call may ask for one before the transport has put back in the
// pool the connection of a call that has just ended.
func TestUpstreamConnsKept(t *testing.T) {
	var opened atomic.Int64
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "ok")
	}))
	up.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	up.Start()
	defer up.Close()
	client := &http.Client{Transport: silentTransport(nil, time.Minute)}
	defer client.CloseIdleConnections()
	const conc = 16
	for range 10 {
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range conc {
			wg.Go(func() {
				<-start
				resp, err := client.Post(up.URL, "application/json", strings.NewReader(`{}`))
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			})
		}
		close(start)
		wg.Wait()
	}
	if n := opened.Load(); n > 3*conc {
		t.Errorf("%d connections opened for %d calls at once, ten times", n, conc)
	}
}
