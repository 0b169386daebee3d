package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/proxy"
)

// writeArgs are the arguments of the upstream's write_file tool.
type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// upstream is a go-sdk Streamable HTTP server with two tools: write_file,
// which counts its calls, and progress, which sends two progress
// notifications before its result.
type upstream struct {
	srv    *httptest.Server
	calls  atomic.Int64
	auth   atomic.Value // the Authorization header of the last request
	server *mcp.Server
}

func newUpstream(t *testing.T, opts *mcp.StreamableHTTPOptions) *upstream {
	t.Helper()
	u := &upstream{}
	u.server = mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1"}, nil)
	mcp.AddTool(u.server, &mcp.Tool{Name: "write_file", Description: "Write a file."},
		func(ctx context.Context, req *mcp.CallToolRequest, in writeArgs) (*mcp.CallToolResult, any, error) {
			u.calls.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wrote " + in.Path}}}, nil, nil
		})
	mcp.AddTool(u.server, &mcp.Tool{Name: "progress", Description: "Report progress."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				for i := 1; i <= 2; i++ {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 2, Message: "step"})
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return u.server }, opts)
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.auth.Store(r.Header.Get("Authorization"))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *upstream) url(t *testing.T) *url.URL {
	t.Helper()
	v, err := url.Parse(u.srv.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// front serves the proxy's handler for upstream u.
func front(t *testing.T, u *upstream, opts ...proxy.Option) *httptest.Server {
	t.Helper()
	p, err := proxy.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewServer(p.HTTPHandler(u.url(t)))
	t.Cleanup(s.Close)
	return s
}

// connect is a go-sdk client session with the server at endpoint.
func connect(t *testing.T, endpoint string, opts *mcp.ClientOptions, hc *http.Client) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v1"}, opts)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func listTools(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return string(mustMarshal(t, res))
}

// TestHTTPProxy runs the go-sdk client through the proxy in front of a
// go-sdk server, with each of the server's response forms.
func TestHTTPProxy(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *mcp.StreamableHTTPOptions
	}{
		{"sessions, event streams", nil},
		{"sessions, JSON responses", &mcp.StreamableHTTPOptions{JSONResponse: true}},
		{"stateless, JSON responses", &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstream(t, tc.opts)
			fr := front(t, u)
			direct := connect(t, u.srv.URL+"/mcp", nil, nil)
			via := connect(t, fr.URL+"/mcp", nil, nil)

			if got, want := listTools(t, via), listTools(t, direct); got != want {
				t.Errorf("tools/list through the proxy:\n%s\nwant (direct):\n%s", got, want)
			}
			bad := callTool(t, via, "write_file", map[string]any{"path": "a.txt", "content": 7})
			// The server rejects it; the answer takes the place of its own,
			// and keeps what it said.
			said := callTool(t, direct, "write_file", map[string]any{"path": "a.txt", "content": 7})
			if !bad.IsError || !strings.Contains(text(bad), `<validation_error action="write_file">`) ||
				!strings.Contains(text(bad), `<field name="content">`) ||
				!strings.Contains(text(bad), "<server_message>"+text(said)+"</server_message>") {
				t.Errorf("bad call: isError %v, text:\n%s\nthe server's own answer: %s", bad.IsError, text(bad), text(said))
			}
			if sc, _ := bad.StructuredContent.(map[string]any); sc == nil || sc["serverMessage"] != text(said) {
				t.Errorf("structured content %v", bad.StructuredContent)
			}
			if n := u.calls.Load(); n != 0 {
				t.Errorf("the bad call ran (%d calls)", n)
			}
			args := map[string]any{"path": "a.txt", "content": "hi"}
			got, want := callTool(t, via, "write_file", args), callTool(t, direct, "write_file", args)
			if g, w := string(mustMarshal(t, got)), string(mustMarshal(t, want)); g != w {
				t.Errorf("valid call through the proxy: %s, want (direct) %s", g, w)
			}
			if n := u.calls.Load(); n != 2 {
				t.Errorf("the server ran %d calls, want 2", n)
			}
		})
	}
}

// TestHTTPProgress: notifications on a request's stream pass as they come.
func TestHTTPProgress(t *testing.T) {
	u := newUpstream(t, nil)
	fr := front(t, u)
	var mu sync.Mutex
	var got []float64
	via := connect(t, fr.URL+"/mcp", &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, req.Params.Progress)
			mu.Unlock()
		},
	}, nil)
	listTools(t, via)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	params := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{}}
	params.SetProgressToken("tok")
	res, err := via.CallTool(ctx, params)
	if err != nil || text(res) != "done" {
		t.Fatalf("progress call: %v, %v", res, err)
	}
	deadline := time.Now().Add(wait)
	for {
		mu.Lock()
		n := fmt.Sprint(got)
		mu.Unlock()
		if n == "[1 2]" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("progress received: %s, want [1 2]", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHTTPReplicas: a replica that did not relay the session's listing
// lists the tools itself, with the client's headers, and checks the call.
func TestHTTPReplicas(t *testing.T) {
	u := newUpstream(t, nil)
	a, b := front(t, u), front(t, u)
	var n atomic.Int64
	lb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := a.URL
		if n.Add(1)%2 == 0 {
			target = b.URL
		}
		rp := &proxyTo{target}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(lb.Close) // after the session is closed (cleanups run last first)
	hc := &http.Client{Transport: authTransport{"Bearer s3cret"}}
	via := connect(t, lb.URL+"/mcp", nil, hc)
	listTools(t, via)
	for i := range 4 { // two calls through each replica
		bad := callTool(t, via, "write_file", map[string]any{"path": 1})
		if !bad.IsError || !strings.Contains(text(bad), "<validation_error") {
			t.Errorf("call %d: isError %v, text:\n%s", i, bad.IsError, text(bad))
		}
	}
	if c := u.calls.Load(); c != 0 {
		t.Errorf("%d bad calls reached the server", c)
	}
	if got := u.auth.Load(); got != "Bearer s3cret" {
		t.Errorf("the server saw Authorization %q", got)
	}
}

// proxyTo forwards a request to another server, as a load balancer does.
type proxyTo struct{ base string }

func (p *proxyTo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, p.base+r.URL.Path, r.Body)
	req.Header = r.Header.Clone()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		w.Write(buf[:n])
		w.(http.Flusher).Flush()
		if err != nil {
			return
		}
	}
}

type authTransport struct{ auth string }

func (a authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", a.auth)
	return http.DefaultTransport.RoundTrip(r)
}

// post sends one JSON-RPC message to endpoint, as a client without
// sessions does, and returns the response's content type and body.
func post(t *testing.T, endpoint, accept, body string) (status int, contentType, respBody string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	client := &http.Client{Timeout: wait}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(data)
}

// TestHTTPAnswerForm: the proxy answers in the form the client accepts
// (WithStrict: before forwarding; by default the server answers first, in
// the form it chooses).
func TestHTTPAnswerForm(t *testing.T) {
	u := newUpstream(t, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	fr := front(t, u, proxy.WithStrict(true))
	const bad = `{"jsonrpc":"2.0","id":"x1","method":"tools/call","params":{"name":"write_file","arguments":{"path":"a"}}}`
	for _, tc := range []struct {
		accept, contentType, prefix string
	}{
		{"application/json, text/event-stream", "application/json", `{"jsonrpc":"2.0","id":"x1","result":{"content":[{"type":"text","text":"<validation_error action=\"write_file\">`},
		{"application/*", "application/json", `{"jsonrpc":"2.0","id":"x1","result":`},
		{"text/event-stream", "text/event-stream", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"x1\",\"result\":"},
	} {
		status, ct, body := post(t, fr.URL+"/mcp", tc.accept, bad)
		if status != 200 || ct != tc.contentType || !strings.HasPrefix(body, tc.prefix) {
			t.Errorf("Accept %q: %d %q\n%s\nwant %q, prefix %q", tc.accept, status, ct, body, tc.contentType, tc.prefix)
		}
		if tc.contentType == "text/event-stream" && (!strings.HasSuffix(body, "}\n\n") || strings.Count(body, "data: ") != 1) {
			t.Errorf("Accept %q: not one event:\n%q", tc.accept, body)
		}
	}
	if n := u.calls.Load(); n != 0 {
		t.Errorf("%d bad calls reached the server", n)
	}
}

// TestHTTPUpstreamDown: a call the server cannot take gets a JSON-RPC
// error at once, never a hang.
func TestHTTPUpstreamDown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	p, err := proxy.New()
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewServer(p.HTTPHandler(&url.URL{Scheme: "http", Host: addr, Path: "/mcp"}))
	defer s.Close()
	status, ct, body := post(t, s.URL, "application/json, text/event-stream",
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"write_file","arguments":{}}}`)
	want := `{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"selfheal proxy: the MCP server cannot be reached"}}`
	if status != http.StatusBadGateway || ct != "application/json" || body != want {
		t.Errorf("got %d %q %s\nwant 502 application/json %s", status, ct, body, want)
	}
}

// TestHTTPStreamCutShort: a server that fails in the middle of a request's
// stream; the client gets the events that passed, then an error response.
func TestHTTPStreamCutShort(t *testing.T) {
	for _, tc := range []struct {
		name, sent, want string
	}{
		{"between events",
			"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n",
			"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n" +
				"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":-32603,\"message\":\"selfheal proxy: the MCP server ended its response before answering\"}}\n\n"},
		{"in an event",
			"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"res",
			"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"res\nevent: selfheal-discarded\n\n" +
				"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":-32603,\"message\":\"selfheal proxy: the MCP server ended its response before answering\"}}\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(200)
				io.WriteString(w, tc.sent)
				w.(http.Flusher).Flush()
				conn, _, err := http.NewResponseController(w).Hijack()
				if err == nil {
					conn.Close() // the connection breaks mid-stream
				}
			}))
			defer up.Close()
			p, err := proxy.New()
			if err != nil {
				t.Fatal(err)
			}
			u, _ := url.Parse(up.URL)
			s := httptest.NewServer(p.HTTPHandler(u))
			defer s.Close()
			_, ct, body := post(t, s.URL, "application/json, text/event-stream",
				`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x","arguments":{}}}`)
			if ct != "text/event-stream" || body != tc.want {
				t.Errorf("got %q\n%q\nwant\n%q", ct, body, tc.want)
			}
		})
	}
}

// TestHTTPGuard: the limits are shared by the sessions of the handler, per
// tool; WithLimitBy splits them per header value.
func TestHTTPGuard(t *testing.T) {
	u := newUpstream(t, nil)
	fr := front(t, u, proxy.WithGuard(guard.Limits{Rate: 1e-6, Burst: 2}),
		proxy.WithLimitBy(func(r *http.Request) string { return r.Header.Get("Authorization") }))
	args := map[string]any{"path": "a", "content": "b"}
	alice := connect(t, fr.URL, nil, &http.Client{Transport: authTransport{"alice"}})
	alice2 := connect(t, fr.URL, nil, &http.Client{Transport: authTransport{"alice"}})
	bob := connect(t, fr.URL, nil, &http.Client{Transport: authTransport{"bob"}})
	for _, cs := range []*mcp.ClientSession{alice, alice2, bob} {
		listTools(t, cs)
	}
	var got []string
	for _, cs := range []*mcp.ClientSession{alice, alice2, alice2, bob, bob, bob} {
		res := callTool(t, cs, "write_file", args)
		switch {
		case !res.IsError:
			got = append(got, "ok")
		case strings.Contains(text(res), "RATE_LIMITED") && strings.Contains(text(res), "retry_after"):
			got = append(got, "RATE_LIMITED")
		default:
			got = append(got, text(res))
		}
	}
	want := "[ok ok RATE_LIMITED ok ok RATE_LIMITED]"
	if fmt.Sprint(got) != want {
		t.Errorf("answers %v, want %s", got, want)
	}
}

// TestHTTPDeleteForgetsSession: a session ended with DELETE is refused by
// the server afterwards, through the proxy.
func TestHTTPDelete(t *testing.T) {
	u := newUpstream(t, nil)
	fr := front(t, u)
	via := connect(t, fr.URL+"/mcp", nil, nil)
	listTools(t, via)
	id := via.ID()
	if err := via.Close(); err != nil { // DELETE
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, fr.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a request of the deleted session: HTTP %d, want 404", resp.StatusCode)
	}
}

func TestHTTPHandlerPanicsOnBadURL(t *testing.T) {
	p, _ := proxy.New()
	for _, raw := range []string{"", "/mcp", "ftp://host/mcp", "http:///mcp"} {
		u, _ := url.Parse(raw)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("HTTPHandler(%q) did not panic", raw)
				}
			}()
			p.HTTPHandler(u)
		}()
	}
}

var _ = json.Valid

// The proxy keeps its connections to the upstream between calls, as many
// as the calls made at once: net/http's default of 2 idle connections per
// host would dial and close one for most of 16 calls at once, each time.
func TestHTTPUpstreamConnsKept(t *testing.T) {
	var opened atomic.Int64
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	up.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	up.Start()
	defer up.Close()
	u, _ := url.Parse(up.URL)
	p, err := proxy.New()
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(p.HTTPHandler(u))
	defer front.Close()
	const conc = 16
	for range 10 {
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range conc {
			wg.Go(func() {
				<-start
				req, _ := http.NewRequest("POST", front.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := front.Client().Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("status %d", resp.StatusCode)
				}
			})
		}
		close(start)
		wg.Wait()
	}
	// A call may ask for a connection before the one of a call that has
	// just ended is back in the pool: a few more than 16, never one per
	// call (160).
	if n := opened.Load(); n > 3*conc {
		t.Errorf("%d connections to the upstream for %d calls at once, ten times", n, conc)
	}
}
