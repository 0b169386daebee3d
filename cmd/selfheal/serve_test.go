package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestBodyBudget: bodies share one budget. A request whose body does not
// fit waits for room and gets 503 when none comes in time; once the
// holder is done, the next fits. A body without a Content-Length takes its
// bytes as they are read; every byte is given back.
func TestBodyBudget(t *testing.T) {
	b := newBodyBudget(100)
	b.wait = 50 * time.Millisecond
	entered := make(chan struct{})
	gate := make(chan struct{})
	h := b.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if r.Header.Get("Hold") != "" {
			entered <- struct{}{}
			<-gate
		}
		io.WriteString(w, "read "+strconv.Itoa(len(data)))
	}))
	srv := httptest.NewServer(h)
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
	if b.held.Load() != 80 {
		t.Errorf("held %d bytes, want 80", b.held.Load())
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
	if n := b.held.Load(); n != 0 {
		t.Errorf("%d bytes still held", n)
	}
}

// TestConnLimit: past its bound, the listener answers a new connection
// 503 and closes it; a connection that ends makes room.
func TestConnLimit(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &connLimit{Listener: ln, max: 2}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
	go srv.Serve(cl)
	defer srv.Close()

	get := func(c net.Conn) string {
		t.Helper()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			return "write: " + err.Error()
		}
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			return "read: " + err.Error()
		}
		return strings.TrimSpace(line)
	}
	dial := func() net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b := dial(), dial()
	defer b.Close()
	for _, c := range []net.Conn{a, b} {
		if got := get(c); got != "HTTP/1.1 200 OK" {
			t.Fatalf("within the bound: %q", got)
		}
	}
	c := dial()
	if got := get(c); got != "HTTP/1.1 503 Service Unavailable" {
		t.Errorf("over the bound: %q", got)
	}
	c.Close()
	a.Close()
	// The server sees a's end when it next reads it: poll, bounded.
	deadline := time.Now().Add(10 * time.Second)
	for {
		d := dial()
		got := get(d)
		d.Close()
		if got == "HTTP/1.1 200 OK" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no room after a connection ended: %q", got)
		}
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
	client := &http.Client{Transport: timedTransport(http.DefaultTransport.(*http.Transport), time.Minute)}
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
