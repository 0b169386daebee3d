//go:build unix

package sessions

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/selfheal/selfheal/mcp/proxy/internal/eventstream"
)

// Progress notifications go to the stream of the request that carries
// their token, before its response, even with a GET stream open.
func TestCommandsProgress(t *testing.T) {
	_, url := commands(t, fakeCmd, nil)

	t.Run("go-sdk client", func(t *testing.T) {
		var mu sync.Mutex
		var got []string
		three := make(chan struct{})
		cs := connect(t, url, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, fmt.Sprint(r.Params.ProgressToken, " ", r.Params.Progress))
			if len(got) == 3 {
				close(three)
			}
		}})
		defer cs.Close()
		params := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{}}
		params.SetProgressToken("tok-1")
		res, err := cs.CallTool(ctxHang(t), params)
		if err != nil {
			t.Fatal(err)
		}
		if callText(t, res) != "done" {
			t.Fatalf("result %s", mustJSON(t, res))
		}
		select {
		case <-three:
		case <-time.After(hang):
			t.Fatal("the progress notifications did not all arrive")
		}
		mu.Lock()
		defer mu.Unlock()
		if want := []string{"tok-1 1", "tok-1 2", "tok-1 3"}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("progress %q, want %q", got, want)
		}
	})

	t.Run("by hand, with a GET stream open", func(t *testing.T) {
		sid := initialize(t, url)
		get := events(do(t, url, "GET", sid, "text/event-stream", ""))
		resp := do(t, url, "POST", sid, both, `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":7}}}`)
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" || resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %s", resp.StatusCode, ct)
		}
		post := events(resp)
		for i := 1; i <= 3; i++ {
			m := next(t, post, "progress")
			if !strings.Contains(m, `"method":"notifications/progress"`) || !strings.Contains(m, `"progress":`+strconv.Itoa(i)) {
				t.Fatalf("event %d: %s", i, m)
			}
		}
		if m := next(t, post, "response"); !strings.Contains(m, `"id":"c1"`) || !strings.Contains(m, `"done"`) {
			t.Fatalf("response %s", m)
		}
		ends(t, post, "the POST stream")
		// The GET stream got none of it: the next thing on it is this.
		resp = do(t, url, "POST", sid, jsonOnly, call("2", "notify"))
		if b := rpcErrorOf(t, resp); !strings.Contains(string(b.Result), "notified") {
			t.Fatalf("notify: %+v", b)
		}
		if m := next(t, get, "GET"); !strings.Contains(m, `"notifications/message"`) {
			t.Fatalf("GET stream: %s", m)
		}
	})
}

// The server's requests reach the client on the GET stream, and the
// client's response reaches the server.
func TestCommandsServerRequest(t *testing.T) {
	_, url := commands(t, fakeCmd, nil)

	t.Run("go-sdk client", func(t *testing.T) {
		//lint:ignore SA1019 roots/list is a server-to-client request the proxy must still relay while the protocol keeps it
		cs := connect(t, url, nil, &mcp.Root{URI: "file:///work", Name: "work"})
		defer cs.Close()
		res, err := cs.CallTool(ctxHang(t), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(callText(t, res), "file:///work") {
			t.Fatalf("result %s", mustJSON(t, res))
		}
	})

	t.Run("by hand", func(t *testing.T) {
		sid := initialize(t, url)
		get := events(do(t, url, "GET", sid, "text/event-stream", ""))
		answer := make(chan rpcBody, 1)
		go func() {
			answer <- rpcErrorOf(t, do(t, url, "POST", sid, jsonOnly, call("5", "ask")))
		}()
		if m := next(t, get, "the server's request"); !strings.Contains(m, `"id":"ask-1"`) || !strings.Contains(m, `"roots/list"`) {
			t.Fatalf("GET stream: %s", m)
		}
		resp := do(t, url, "POST", sid, both, `{"jsonrpc":"2.0","id":"ask-1","result":{"roots":[{"uri":"file:///by-hand"}]}}`)
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("the client's response: %d", resp.StatusCode)
		}
		select {
		case b := <-answer:
			if string(b.ID) != "5" || !strings.Contains(string(b.Result), "file:///by-hand") {
				t.Fatalf("call: %+v", b)
			}
		case <-time.After(hang):
			t.Fatal("no answer")
		}
		// A second GET stream is refused while one is open.
		if resp := do(t, url, "GET", sid, "text/event-stream", ""); resp.StatusCode != http.StatusConflict {
			t.Fatalf("second GET: %d", resp.StatusCode)
		}
	})
}

// Messages sent while no stream is open wait for the GET stream.
func TestCommandsBacklog(t *testing.T) {
	_, url := commands(t, fakeCmd, nil)
	sid := initialize(t, url)
	for i := range 3 {
		b := rpcErrorOf(t, do(t, url, "POST", sid, jsonOnly, call(strconv.Itoa(i+1), "notify")))
		if !strings.Contains(string(b.Result), "notified") {
			t.Fatalf("notify: %+v", b)
		}
	}
	get := events(do(t, url, "GET", sid, "text/event-stream", ""))
	for range 3 {
		if m := next(t, get, "backlog"); !strings.Contains(m, `"notifications/message"`) {
			t.Fatalf("GET stream: %s", m)
		}
	}
}

// A client that goes away from the JSON answer of its POST: the request is
// forgotten, its response dropped when it comes, and the session goes on.
// (The stream of a POST is kept for the client to resume it: see
// TestCommandsResume.)
func TestCommandsClientGone(t *testing.T) {
	c, url := commands(t, fakeCmd, nil)
	sid := initialize(t, url)
	s := c.lookup(sid)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(call("1", "wait")))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", jsonOnly)
	req.Header.Set(headerSessionID, sid)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	waitFor(t, "the request under way", func() bool { return locked(s, func() bool { return s.waiters["n1"] != nil }) })
	cancel()
	<-done
	waitFor(t, "the request forgotten", func() bool { return locked(s, func() bool { return len(s.waiters) == 0 }) })
	do(t, url, "POST", sid, both, `{"jsonrpc":"2.0","method":"test/release"}`)
	// Its response is dropped; the session goes on.
	b := rpcErrorOf(t, do(t, url, "POST", sid, jsonOnly, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"again"}}}`))
	if string(b.ID) != "2" || !strings.Contains(string(b.Result), "again") {
		t.Fatalf("the next call: %+v", b)
	}
}

// sse returns the events of a stream, with their ids, those without data
// too; the channel closes at the end of the stream.
func sse(resp *http.Response) <-chan string {
	ch := make(chan string, 100)
	go func() {
		defer close(ch)
		sc := eventstream.NewScanner(func(ev *eventstream.Event) { ch <- "id " + ev.ID + ": " + string(ev.Data) })
		io.Copy(sc, resp.Body)
	}()
	return ch
}

// dropped POSTs body on a stream, reads n of its events, and goes away.
func dropped(t *testing.T, url, sid, body string, n int) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", both)
	req.Header.Set(headerSessionID, sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ch := sse(resp)
	var got []string
	for range n {
		got = append(got, next(t, ch, "an event before the drop"))
	}
	return got
}

// resumed GETs the stream of the event last.
func resumed(t *testing.T, url, sid, last string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctxHang(t), "GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(headerSessionID, sid)
	req.Header.Set("Last-Event-ID", last)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// streamOf checks a stream's events, to its end.
func streamOf(t *testing.T, resp *http.Response, want ...string) {
	t.Helper()
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(resp.Body)
		t.Fatalf("%d %s", resp.StatusCode, data)
	}
	ch := sse(resp)
	for i, w := range want {
		if got := next(t, ch, fmt.Sprint("event ", i)); got != w {
			t.Fatalf("event %d: %s\nwant %s", i, got, w)
		}
	}
	ends(t, ch, "the stream")
}

// SSE events carry ids ("stream-event"), a POST's stream starts with one
// that has no data (protocol 2025-11-25), and a GET with Last-Event-ID
// resumes the stream of that event: the events after it that were kept,
// then what comes.
func TestCommandsResume(t *testing.T) {
	c, url := commands(t, fakeCmd, nil)
	const (
		steps     = `{"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{"name":"steps","arguments":{},"_meta":{"progressToken":"t1"}}}`
		progress1 = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":1,"total":2}}`
		progress2 = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":2,"total":2}}`
		stepped   = `{"jsonrpc":"2.0","id":"r1","result":{"content":[{"type":"text","text":"stepped"}]}}`
		release   = `{"jsonrpc":"2.0","method":"test/release"}`
	)
	kept := func(s *session, n int) {
		t.Helper()
		waitFor(t, "the proxy sees the client go", func() bool { return locked(s, func() bool { return len(s.kept) == n }) })
	}

	t.Run("a POST stream dropped during the call", func(t *testing.T) {
		sid := initialize(t, url)
		s := c.lookup(sid)
		if got := dropped(t, url, sid, steps, 2); fmt.Sprint(got) != fmt.Sprint([]string{"id 1-1: ", "id 1-2: " + progress1}) {
			t.Fatalf("before the drop: %q", got)
		}
		kept(s, 1)
		do(t, url, "POST", sid, both, release) // the rest comes while no client is there
		streamOf(t, resumed(t, url, sid, "1-2"), "id 1-3: "+progress2, "id 1-4: "+stepped)
		// An ended stream is kept: from its first event, all of it again.
		streamOf(t, resumed(t, url, sid, "1-1"), "id 1-2: "+progress1, "id 1-3: "+progress2, "id 1-4: "+stepped)
		for _, last := range []string{"9-1", "1-5", "x", "1"} {
			resp := resumed(t, url, sid, last)
			data, _ := io.ReadAll(resp.Body)
			want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: no stream to resume from Last-Event-ID \"` + last + `\""}}`
			if resp.StatusCode != http.StatusBadRequest || string(data) != want {
				t.Errorf("Last-Event-ID %s: %d %s\nwant 400 %s", last, resp.StatusCode, data, want)
			}
		}
	})

	t.Run("the GET stream", func(t *testing.T) {
		sid := initialize(t, url)
		s := c.lookup(sid)
		notified := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hello"}}`
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set(headerSessionID, sid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		get := sse(resp)
		rpcErrorOf(t, do(t, url, "POST", sid, jsonOnly, call("1", "notify")))
		if got := next(t, get, "GET"); got != "id 1-1: "+notified {
			t.Fatalf("GET: %s", got)
		}
		cancel()
		resp.Body.Close()
		waitFor(t, "the proxy sees the GET go", func() bool { return locked(s, func() bool { return s.get == nil }) })
		rpcErrorOf(t, do(t, url, "POST", sid, jsonOnly, call("2", "notify"))) // kept for the next GET
		again := resumed(t, url, sid, "1-1")
		ch := sse(again)
		if got := next(t, ch, "resumed GET"); got != "id 1-2: "+notified {
			t.Fatalf("resumed GET: %s", got)
		}
		if resp := do(t, url, "GET", sid, "text/event-stream", ""); resp.StatusCode != http.StatusConflict {
			t.Fatalf("another GET: %d", resp.StatusCode)
		}
	})

	t.Run("bounds", func(t *testing.T) {
		c, url := commands(t, fakeCmd, func(c *Server) { c.replay, c.kept = 2, 1 })
		sid := initialize(t, url)
		s := c.lookup(sid)
		progress := func(i int) string {
			return `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":` + strconv.Itoa(i) + `,"total":3}}`
		}
		done := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}]}}`
		streamOf(t, do(t, url, "POST", sid, both, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":7}}}`),
			"id 1-1: ", "id 1-2: "+progress(1), "id 1-3: "+progress(2), "id 1-4: "+progress(3), "id 1-5: "+done)
		kept(s, 1)
		// 2 events kept of 4.
		streamOf(t, resumed(t, url, sid, "1-1"), "id 1-4: "+progress(3), "id 1-5: "+done)
		// 1 stream kept: stream 2 (its client gone before the answer)
		// pushes stream 1 out, and stream 3 stream 2, whose response is
		// then dropped.
		dropped(t, url, sid, call("2", "wait"), 1)
		waitFor(t, "stream 1 forgotten", func() bool { return locked(s, func() bool { return s.resumable[1] == nil }) })
		if resp := resumed(t, url, sid, "1-4"); resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("stream 1 resumed: %d", resp.StatusCode)
		}
		dropped(t, url, sid, call("3", "wait"), 1)
		waitFor(t, "stream 2 forgotten", func() bool { return locked(s, func() bool { return s.resumable[2] == nil && s.waiters["n2"] == nil }) })
		do(t, url, "POST", sid, both, release)
		streamOf(t, resumed(t, url, sid, "3-1"), `id 3-2: {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"released"}]}}`)
		if resp := resumed(t, url, sid, "2-1"); resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("stream 2 resumed: %d", resp.StatusCode)
		}
	})

	t.Run("go-sdk client", func(t *testing.T) {
		rt := &cutter{}
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		// Resumption is of revision 2025-11-25 (2026-07-28 dropped it).
		cs, err := client.Connect(ctxHang(t), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: rt}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		s := c.lookup(cs.ID())
		type answer struct {
			res *mcp.CallToolResult
			err error
		}
		answers := make(chan answer, 1)
		go func() {
			res, err := cs.CallTool(ctxHang(t), &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
			answers <- answer{res, err}
		}()
		// The call's stream, cut after its first event, is kept with its
		// request pending (beside the initialize request's, ended).
		var first string
		waitFor(t, "the proxy sees the stream cut", func() bool {
			return locked(s, func() bool {
				for _, st := range s.kept {
					if len(st.pending) > 0 {
						first = st.eventID(1)
						return true
					}
				}
				return false
			})
		})
		do(t, url, "POST", cs.ID(), both, release)
		select {
		case a := <-answers:
			if a.err != nil || callText(t, a.res) != "released" {
				t.Fatalf("the call: %v %s", a.err, mustJSON(t, a.res))
			}
		case <-time.After(hang):
			t.Fatal("no answer")
		}
		rt.mu.Lock()
		defer rt.mu.Unlock()
		if len(rt.resumes) != 1 || rt.resumes[0] != first {
			t.Fatalf("the client resumed from %q, want [%s]", rt.resumes, first)
		}
	})
}

// cutter is a client transport that cuts the stream of the first call of
// "wait" after its first event, as a broken connection would, and notes
// the Last-Event-ID of each GET.
type cutter struct {
	mu      sync.Mutex
	cut     bool
	resumes []string
}

func (c *cutter) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	c.mu.Lock()
	if id := req.Header.Get("Last-Event-ID"); id != "" {
		c.resumes = append(c.resumes, id)
	}
	cut := !c.cut && req.Method == "POST" && bytes.Contains(body, []byte(`"name":"wait"`))
	c.cut = c.cut || cut
	c.mu.Unlock()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil && cut {
		resp.Body = &cutBody{r: resp.Body}
	}
	return resp, err
}

// cutBody passes a stream up to the end of its first event, then fails.
type cutBody struct {
	r    io.ReadCloser
	seen []byte
	done bool
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.ErrUnexpectedEOF
	}
	n, err := b.r.Read(p)
	b.seen = append(b.seen, p[:n]...)
	if i := bytes.Index(b.seen, []byte("\n\n")); i >= 0 {
		b.done = true
		b.r.Close() // the connection goes
		return n - (len(b.seen) - (i + 2)), nil
	}
	return n, err
}

func (b *cutBody) Close() error { return b.r.Close() }
