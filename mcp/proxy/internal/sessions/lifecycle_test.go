//go:build unix

package sessions

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

// The server exits with a request pending: the request gets a JSON-RPC
// error, the session is gone.
func TestCommandsServerCrash(t *testing.T) {
	c, url := commands(t, fakeCmd, nil)

	t.Run("by hand", func(t *testing.T) {
		sid := initialize(t, url)
		s := c.lookup(sid)
		get := events(do(t, url, "GET", sid, "text/event-stream", ""))
		pending := events(do(t, url, "POST", sid, both, call("1", "hang")))
		crash := events(do(t, url, "POST", sid, both, call("2", "crash")))
		for _, tc := range []struct {
			ch <-chan string
			id string
		}{{pending, "1"}, {crash, "2"}} {
			var b rpcBody
			json.Unmarshal([]byte(next(t, tc.ch, "error")), &b)
			if string(b.ID) != tc.id || b.Error.Code != -32000 || !strings.Contains(b.Error.Message, "exited") {
				t.Fatalf("request %s: %+v", tc.id, b)
			}
			ends(t, tc.ch, "POST stream")
		}
		ends(t, get, "GET stream")
		reaped(t, s)
		if resp := do(t, url, "POST", sid, both, call("3", "echo")); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("after the crash: %d", resp.StatusCode)
		}
	})

	t.Run("go-sdk client", func(t *testing.T) {
		cs := connect(t, url, nil)
		defer cs.Close()
		_, err := cs.CallTool(ctxHang(t), &mcp.CallToolParams{Name: "crash", Arguments: map[string]any{}})
		if err == nil || !strings.Contains(err.Error(), "exited") {
			t.Fatalf("crash: %v", err)
		}
	})
}

// DELETE with a request pending: the request gets its error, the process
// exits (or is killed when it does not).
func TestCommandsDelete(t *testing.T) {
	c, url := commands(t, fakeCmd, func(c *Server) { c.grace = 100 * time.Millisecond })
	for _, stubborn := range []bool{false, true} {
		t.Run(fmt.Sprint("stubborn ", stubborn), func(t *testing.T) {
			sid := initialize(t, url)
			s := c.lookup(sid)
			if stubborn {
				rpcErrorOf(t, do(t, url, "POST", sid, jsonOnly, call("0", "stubborn")))
			}
			pending := events(do(t, url, "POST", sid, both, call("1", "hang")))
			if resp := do(t, url, "DELETE", sid, "", ""); resp.StatusCode != http.StatusOK {
				t.Fatalf("DELETE: %d", resp.StatusCode)
			}
			reaped(t, s)
			var b rpcBody
			json.Unmarshal([]byte(next(t, pending, "error")), &b)
			if string(b.ID) != "1" || b.Error.Code != -32000 || !strings.Contains(b.Error.Message, "DELETE") {
				t.Fatalf("pending request: %+v", b)
			}
			ends(t, pending, "POST stream")
			if resp := do(t, url, "DELETE", sid, "", ""); resp.StatusCode != http.StatusNotFound {
				t.Fatalf("DELETE again: %d", resp.StatusCode)
			}
		})
	}
}

// A session with nothing under way ends after the idle time.
func TestCommandsIdle(t *testing.T) {
	c, url := commands(t, fakeCmd, func(c *Server) { c.idle = 50 * time.Millisecond })
	sid := initialize(t, url)
	s := c.lookup(sid)
	reaped(t, s)
	if c.lookup(sid) != nil {
		t.Fatal("the idle session is still known")
	}
}

// Close ends every session and refuses what comes after.
func TestCommandsClose(t *testing.T) {
	var calls []string
	var mu sync.Mutex
	r := ProxyRelay(false, 0)
	r.LimitBy = func(r *http.Request) string {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, r.Header.Get(headerSessionID))
		return "k"
	}
	c, url := commandsOf(t, r, fakeCmd, nil)
	var all []*session
	var pending []<-chan string
	for range 3 {
		sid := initialize(t, url)
		s := c.lookup(sid)
		if s.limitBy != "k" {
			t.Fatalf("limitBy %q", s.limitBy)
		}
		all = append(all, s)
		pending = append(pending, events(do(t, url, "POST", sid, both, call("1", "hang"))))
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for i, s := range all {
		reaped(t, s)
		var b rpcBody
		json.Unmarshal([]byte(next(t, pending[i], "error")), &b)
		if b.Error.Code != -32000 {
			t.Fatalf("pending request: %+v", b)
		}
	}
	resp := do(t, url, "POST", "", both, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("after Close: %d", resp.StatusCode)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 3 {
		t.Fatalf("WithLimitBy's function called %d times for 3 sessions", len(calls))
	}
	for i, s := range all {
		if calls[i] != s.id {
			t.Errorf("WithLimitBy's function saw session %q, want %q", calls[i], s.id)
		}
	}
}

// A server that writes a flood of notifications without reading its
// input, while a POST's body waits to be written to it and that POST's
// stream is the only one open: the stream is not waited for, so the flood
// passes, the body is read, and every request is answered.
func TestCommandsNoDeadlock(t *testing.T) {
	c, url := commands(t, fakeCmd, nil)
	sid := initialize(t, url)
	s := c.lookup(sid)
	registered := func(key string) {
		t.Helper()
		for deadline := time.Now().Add(hang); ; time.Sleep(time.Millisecond) {
			s.mu.Lock()
			ok := s.waiters[key] != nil
			s.mu.Unlock()
			if ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("request %s not under way", key)
			}
		}
	}
	answers := make(chan string, 3)
	post := func(accept, body string) {
		go func() {
			resp := do(t, url, "POST", sid, accept, body)
			data, _ := io.ReadAll(resp.Body)
			answers <- string(data)
		}()
	}
	post(jsonOnly, call("1", "flood")) // the server stops reading
	registered("n1")
	// A body larger than the pipe to the server: Serve holds it, unwritten.
	post(jsonOnly, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`+strings.Repeat("x", 1<<20)+`"}}}`)
	registered("n2")
	post(both, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"3"}}}`) // its body waits behind the other
	registered("n3")
	if err := s.proc.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		select {
		case a := <-answers:
			if !strings.Contains(a, `"result"`) {
				t.Fatalf("answer %.200s", a)
			}
		case <-time.After(hang):
			t.Fatal("deadlock")
		}
	}
}

// Once closed, a Server leaves no goroutine behind: neither the
// sessions' relays nor their streams.
func TestCommandsNoLeak(t *testing.T) {
	http.DefaultClient.CloseIdleConnections()
	// Goroutines are compared by identity (goleak), not counted: only
	// those this test started and left behind fail it.
	started := goleak.IgnoreCurrent()
	func() {
		c := New(ProxyRelay(false, 0), fakeCmd, 0)
		srv := httptest.NewServer(c)
		defer srv.Close()
		// One session ended by DELETE, one by its process, one left open
		// with its GET stream and a request pending.
		for _, end := range []string{"delete", "crash", "open"} {
			sid := initialize(t, srv.URL)
			get := events(do(t, srv.URL, "GET", sid, "text/event-stream", ""))
			switch end {
			case "delete":
				do(t, srv.URL, "DELETE", sid, "", "").Body.Close()
				ends(t, get, "GET")
			case "crash":
				rpcErrorOf(t, do(t, srv.URL, "POST", sid, jsonOnly, call("1", "crash")))
				ends(t, get, "GET")
			case "open":
				events(do(t, srv.URL, "POST", sid, both, call("1", "hang")))
			}
		}
		c.Close()
	}()

	http.DefaultClient.CloseIdleConnections()
	err := goleak.Find(started)
	for deadline := time.Now().Add(hang); err != nil && time.Now().Before(deadline); {
		err = goleak.Find(started)
	}
	if err != nil {
		t.Fatal(err)
	}
}
