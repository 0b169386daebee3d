//go:build unix

package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk server: the test binary run again as a child, a go-sdk v1.8
// server over stdio. With sdkEnv "2026" it speaks both eras, as the go-sdk
// does by default; with "2025", only the session era (its
// SupportedProtocolVersions).
const sdkEnv = "SELFHEAL_SDK_MCP"

// TestCommandsSDKServer is not a test: it is the go-sdk server, when the
// tests start the test binary as their child.
func TestCommandsSDKServer(t *testing.T) {
	era := os.Getenv(sdkEnv)
	if era == "" {
		t.Skip("the go-sdk MCP server of the Server tests, run as their child")
	}
	opts := &mcp.ServerOptions{}
	if era == "2025" {
		opts.SupportedProtocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "sdk-" + era, Version: "1"}, opts)
	type echoIn struct {
		Text string `json:"text"`
	}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "says the text again"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return text(in.Text), nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "count", Description: "reports its progress, then says the text"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		for i := 1; i <= 2; i++ {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: 2}); err != nil {
				return nil, nil, err
			}
		}
		return text(in.Text), nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "grow", Description: "adds the tool grown"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		mcp.AddTool(srv, &mcp.Tool{Name: "grown"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return text("grown"), nil, nil
		})
		return text("grew"), nil, nil
	})
	// route mirrors three arguments in Mcp-Param headers; it says the
	// arguments it got.
	srv.AddTool(&mcp.Tool{Name: "route", InputSchema: json.RawMessage(routeSchema)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text(string(req.Params.Arguments)), nil
	})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		os.Exit(1)
	}
	os.Exit(0)
}

// sdkCmd returns the start function of a go-sdk server of era.
func sdkCmd(era string) func() *exec.Cmd {
	return func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCommandsSDKServer$")
		cmd.Env = append(os.Environ(), sdkEnv+"="+era)
		cmd.Stderr = os.Stderr
		return cmd
	}
}

// connect26 connects the go-sdk client as it connects by default: revision
// 2026-07-28, with server/discover.
func connect26(t *testing.T, url string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	cs, err := client.Connect(ctxHang(t), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("the client speaks %s", v)
	}
	if id := cs.ID(); id != "" {
		t.Fatalf("a session %q", id)
	}
	return cs
}

// req26 is a request of revision 2026-07-28: params holds the members of
// its params before _meta ("" for none).
func req26(id, method, params string) string {
	p := meta2026
	if params != "" {
		p = params + "," + meta2026
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{` + p + `}}`
}

// call26 is a tools/call of revision 2026-07-28.
func call26(id, tool, args string) string {
	return req26(id, "tools/call", `"name":"`+tool+`","arguments":`+args)
}

// post26 POSTs a message of revision 2026-07-28 with the headers the
// revision requires, read from the body; those of h are added.
func post26(ctx context.Context, url, accept, body string, h http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	method := member([]byte(body), "method")
	req.Header.Set("Mcp-Method", string(method[1:len(method)-1]))
	params := member([]byte(body), "params")
	for _, field := range []string{"name", "uri"} {
		if v := member(params, field); v != nil {
			req.Header.Set("Mcp-Name", string(v[1:len(v)-1]))
		}
	}
	for k, vs := range h {
		req.Header[k] = vs
	}
	return http.DefaultClient.Do(req)
}

// do26 is post26 bounded by the tests' hang.
func do26(t *testing.T, url, accept, body string, h http.Header) *http.Response {
	t.Helper()
	resp, err := post26(ctxHang(t), url, accept, body, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// answer26 is the answer to a request posted by async26.
type answer26 struct {
	status      int
	contentType string
	body        string
	err         error
}

// async26 posts a request whose answer may take a while (the answer's
// headers come with its first message), under ctx, and delivers its
// answer, read whole.
func async26(ctx context.Context, url, accept, body string, h http.Header) <-chan answer26 {
	ch := make(chan answer26, 1)
	go func() {
		resp, err := post26(ctx, url, accept, body, h)
		if err != nil {
			ch <- answer26{err: err}
			return
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		ch <- answer26{resp.StatusCode, resp.Header.Get("Content-Type"), string(data), err}
	}()
	return ch
}

// await26 returns the answer async26 delivers.
func await26(t *testing.T, ch <-chan answer26) answer26 {
	t.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(hang):
		t.Fatal("no answer")
	}
	return answer26{}
}

// text26 returns the body of a JSON answer.
func text26(t *testing.T, resp *http.Response) string {
	t.Helper()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "application/json" {
		t.Fatalf("%d %s: %s", resp.StatusCode, ct, data)
	}
	if sid := resp.Header.Get(headerSessionID); sid != "" {
		t.Fatalf("a session %q", sid)
	}
	return string(data)
}

// poolOf returns the processes of the pool "" (no WithLimitBy).
func (c *Server) poolOf() []*session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*session(nil), c.pool[""]...)
}

// sessionCount is the number of sessions of 2025 clients.
func (c *Server) sessionCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sessions)
}

// A go-sdk server that speaks both eras, behind the proxy, for the go-sdk
// client that speaks 2026-07-28 (its default): no session, a process of the
// pool serves the client, progress reaches it under its own token; a 2025
// client at the same time gets its session as before.
func TestStatelessSDK(t *testing.T) {
	c, url := commands(t, sdkCmd("2026"), func(c *Server) { c.poolMax = 1 })

	progress := make(chan string, 10)
	cs := connect26(t, url, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- mustJSONRaw(req.Params)
		},
	})
	if era := locked2(c, func() *upstreamEra { return c.era }); era == nil || era.bridge || strings.Join(era.versions, ",") != "2026-07-28" {
		t.Fatalf("the era: %+v", era)
	}
	if got := cs.InitializeResult().ServerInfo; got == nil || got.Name != "sdk-2026" {
		t.Fatalf("the server: %+v", got)
	}
	res, err := cs.CallTool(ctxHang(t), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.IsError || callText(t, res) != "hi" {
		t.Fatalf("echo: %v %s", err, mustJSON(t, res))
	}
	tools, err := cs.ListTools(ctxHang(t), nil)
	if err != nil || len(tools.Tools) != 4 {
		t.Fatalf("tools/list: %v %s", err, mustJSON(t, tools))
	}
	// Listed through the process: the relay has learned the schemas.
	res, err = cs.CallTool(ctxHang(t), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"texts": "hi"}})
	if err != nil || !res.IsError || !strings.Contains(callText(t, res), "Missing. You sent: the unknown key 'texts'. Expected a string.") {
		t.Fatalf("the near miss: %v %s", err, mustJSON(t, res))
	}
	params := &mcp.CallToolParams{Name: "count", Arguments: map[string]any{"text": "counted"}}
	params.SetProgressToken("mine")
	res, err = cs.CallTool(ctxHang(t), params)
	if err != nil || callText(t, res) != "counted" {
		t.Fatalf("count: %v %s", err, mustJSON(t, res))
	}
	// The client's handler runs on a goroutine of its own, maybe after the
	// result is in: wait for each.
	for i := 1; i <= 2; i++ {
		if got, want := next(t, progress, "progress"), `{"progressToken":"mine","progress":`+strconv.Itoa(i)+`,"total":2}`; got != want {
			t.Fatalf("progress:\n%s\nwant\n%s", got, want)
		}
	}
	if n := len(c.poolOf()); n != 1 {
		t.Fatalf("%d processes", n)
	}

	// A method the server does not have: 404, as the SDKs' HTTP servers
	// answer it, whether the client accepts a stream or not.
	for _, accept := range []string{both, jsonOnly} {
		resp := do26(t, url, accept, req26("9", "nope/nope", ""), nil)
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != "application/json" || !strings.HasPrefix(string(data), `{"jsonrpc":"2.0","id":9,"error":{"code":-32601,`) {
			t.Fatalf("an unknown method: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), data)
		}
	}

	// A client of the session era meanwhile: a session, its own process.
	old := connect(t, url, nil)
	defer old.Close()
	if old.ID() == "" || c.sessionCount() != 1 {
		t.Fatalf("the 2025 client's session: %q, %d", old.ID(), c.sessionCount())
	}
	res, err = old.CallTool(ctxHang(t), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "old"}})
	if err != nil || callText(t, res) != "old" {
		t.Fatalf("echo of the 2025 client: %v %s", err, mustJSON(t, res))
	}
}

// locked2 reads the server's state under its lock.
func locked2[T any](c *Server, f func() T) T {
	c.mu.Lock()
	defer c.mu.Unlock()
	return f()
}

// A client of revision 2026-07-28 subscribes to the changes of the tools
// (subscriptions/listen): the subscription is served by a process like any
// request, and the server's notifications for it reach the client under
// its own request's id.
func TestStatelessListen(t *testing.T) {
	_, url := commands(t, sdkCmd("2026"), func(c *Server) { c.poolMax = 1 })
	changed := make(chan struct{}, 1)
	cs := connect26(t, url, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	res, err := cs.CallTool(ctxHang(t), &mcp.CallToolParams{Name: "grow", Arguments: map[string]any{}})
	if err != nil || callText(t, res) != "grew" {
		t.Fatalf("grow: %v %s", err, mustJSON(t, res))
	}
	select {
	case <-changed:
	case <-time.After(hang):
		t.Fatal("notifications/tools/list_changed did not come")
	}
}

// A go-sdk server that speaks only the session era, bridged for the go-sdk
// client of revision 2026-07-28: server/discover is answered from the
// initialize result, the proxy's own listing at initialization lets the
// first call be judged, and the results say resultType.
func TestStatelessBridgeSDK(t *testing.T) {
	c, url := commands(t, sdkCmd("2025"), nil)
	cs := connect26(t, url, nil)
	if era := locked2(c, func() *upstreamEra { return c.era }); era == nil || !era.bridge || strings.Join(era.versions, ",") != "2026-07-28" {
		t.Fatalf("the era: %+v", era)
	}
	if got := cs.InitializeResult().ServerInfo; got == nil || got.Name != "sdk-2025" {
		t.Fatalf("the server: %+v", got)
	}
	res, err := cs.CallTool(ctxHang(t), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"texts": "hi"}})
	if err != nil || !res.IsError || !strings.Contains(callText(t, res), "Missing. You sent: the unknown key 'texts'. Expected a string.") {
		t.Fatalf("the near miss: %v %s", err, mustJSON(t, res))
	}
	res, err = cs.CallTool(ctxHang(t), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.IsError || callText(t, res) != "hi" {
		t.Fatalf("echo: %v %s", err, mustJSON(t, res))
	}
	tools, err := cs.ListTools(ctxHang(t), nil)
	if err != nil || len(tools.Tools) != 4 {
		t.Fatalf("tools/list: %v %s", err, mustJSON(t, tools))
	}

	// On the wire: what revision 2026-07-28 requires of each result. The
	// go-sdk writes the cache fields in every revision: they are kept.
	got := text26(t, do26(t, url, jsonOnly, req26("1", "tools/list", ""), nil))
	if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"result":{"ttlMs":0,"cacheScope":"public","tools":[`) || !strings.HasSuffix(got, `}],"resultType":"complete"}}`) {
		t.Fatalf("tools/list: %s", got)
	}
	got = text26(t, do26(t, url, jsonOnly, call26(`"e"`, "echo", `{"text":"hi"}`), nil))
	if want := `{"jsonrpc":"2.0","id":"e","result":{"content":[{"type":"text","text":"hi"}],"resultType":"complete"}}`; got != want {
		t.Fatalf("echo:\n%s\nwant\n%s", got, want)
	}
}

// fakeModern starts the fake server as a server of revision 2026-07-28.
var fakeModern = fakeCmdWith("modern")

// The pool grows when every process is busy, up to its bound, past which
// the least busy one takes a request; a request takes an idle process
// rather than start one.
func TestStatelessPool(t *testing.T) {
	c, url := commands(t, fakeModern, func(c *Server) { c.poolMax = 2; c.poolIdle = time.Hour })
	text26(t, do26(t, url, jsonOnly, req26("0", "ping", ""), nil))
	var answers []<-chan answer26
	for i := range 3 {
		answers = append(answers, async26(ctxHang(t), url, both, call26(strconv.Itoa(i), "wait", `{"text":"w`+strconv.Itoa(i)+`"}`), nil))
		busy := i + 1
		waitFor(t, "the processes", func() bool {
			n := 0
			for _, p := range c.poolOf() {
				n += locked2(c, func() int { return p.load })
			}
			return n == busy
		})
	}
	if n := len(c.poolOf()); n != 2 {
		t.Fatalf("%d processes", n)
	}
	loads := func() string {
		var s []string
		for _, p := range c.poolOf() {
			s = append(s, strconv.Itoa(locked2(c, func() int { return p.load })))
		}
		return strings.Join(s, ",")
	}
	if got := loads(); got != "2,1" && got != "1,2" {
		t.Fatalf("the loads: %s", got)
	}
	// Each process its release: one request each.
	for _, p := range c.poolOf() {
		p.send([]byte(`{"jsonrpc":"2.0","method":"test/release"}` + "\n"))
	}
	for i, ch := range answers {
		// Alone, the answer comes as JSON.
		a := await26(t, ch)
		if want := `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"result":{"content":[{"type":"text","text":"w` + strconv.Itoa(i) + `"}]}}`; a.status != http.StatusOK || a.contentType != "application/json" || a.body != want {
			t.Fatalf("got %+v\nwant %s", a, want)
		}
	}
	waitFor(t, "idle", func() bool { return loads() == "0,0" })
	text26(t, do26(t, url, jsonOnly, req26("9", "ping", ""), nil))
	if n := len(c.poolOf()); n != 2 {
		t.Fatalf("%d processes", n)
	}
}

// Idle processes are stopped, and the next request starts one without
// asking the server again what it speaks.
func TestStatelessIdle(t *testing.T) {
	c, url := commands(t, fakeModern, func(c *Server) { c.poolIdle = time.Millisecond })
	text26(t, do26(t, url, jsonOnly, req26("1", "ping", ""), nil))
	era := locked2(c, func() *upstreamEra { return c.era })
	for range 2 {
		procs := c.poolOf()
		for _, p := range procs {
			reaped(t, p)
		}
		waitFor(t, "an empty pool", func() bool { return len(c.poolOf()) == 0 })
		if got := text26(t, do26(t, url, jsonOnly, req26("2", "ping", ""), nil)); got != `{"jsonrpc":"2.0","id":2,"result":{}}` {
			t.Fatalf("ping: %s", got)
		}
		if again := locked2(c, func() *upstreamEra { return c.era }); again != era {
			t.Fatalf("the era %p, then %p", era, again)
		}
	}
}

// For a server of the session era, the proxy answers server/discover from
// the initialize result, takes the stateless envelope out of what it
// forwards, fills in what the revision requires of results, and answers
// with an error what it cannot bridge.
func TestStatelessBridge(t *testing.T) {
	_, url := commands(t, fakeCmd, func(c *Server) { c.poolMax = 1 })
	pid := member(member([]byte(text26(t, do26(t, url, jsonOnly, req26("1", "test/pid", ""), nil))), "result"), "pid")
	got := text26(t, do26(t, url, jsonOnly, req26(`"d"`, "server/discover", ""), nil))
	if want := `{"jsonrpc":"2.0","id":"d","result":{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"` + string(pid) + `"}},"resultType":"complete","ttlMs":0,"cacheScope":"private"}}`; got != want {
		t.Fatalf("server/discover:\n%s\nwant\n%s", got, want)
	}
	seen := wireStr(member(member([]byte(text26(t, do26(t, url, jsonOnly, req26(`"s"`, "test/seen", `"x":1`), nil))), "result"), "line"))
	if !strings.HasPrefix(seen, `{"jsonrpc":"2.0","id":"selfheal-proxy/`) || !strings.HasSuffix(seen, `","method":"test/seen","params":{"x":1}}`) {
		t.Fatalf("the server got %s", seen)
	}
	body := strings.Replace(req26(`"s"`, "test/seen", ""), `"_meta":{`, `"_meta":{"progressToken":5,`, 1)
	seen = wireStr(member(member([]byte(text26(t, do26(t, url, jsonOnly, body, nil))), "result"), "line"))
	if !strings.Contains(seen, `"params":{"_meta":{"progressToken":"selfheal-proxy/`) || strings.Contains(seen, "io.modelcontextprotocol") {
		t.Fatalf("the server got %s", seen)
	}
	got = text26(t, do26(t, url, jsonOnly, req26("2", "tools/list", ""), nil))
	if !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo"`) || !strings.HasSuffix(got, `}],"ttlMs":0,"cacheScope":"private","resultType":"complete"}}`) {
		t.Fatalf("tools/list: %s", got)
	}
	got = text26(t, do26(t, url, jsonOnly, call26("3", "echo", `{"texts":"hi"}`), nil))
	if want := `{"jsonrpc":"2.0","id":3,"result":` + strings.TrimSuffix(nearMiss, "}") + `,"resultType":"complete"}}`; got != want {
		t.Fatalf("the near miss:\n%s\nwant\n%s", got, want)
	}
	got = text26(t, do26(t, url, jsonOnly, call26("4", "ask", "{}"), nil))
	if want := `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"{\"code\":-32601,\"message\":\"Method not found: roots/list: the client speaks protocol revision 2026-07-28 through selfheal proxy, without a session to carry the server's requests\"}"}],"resultType":"complete"}}`; got != want {
		t.Fatalf("ask:\n%s\nwant\n%s", got, want)
	}
	got = text26(t, do26(t, url, jsonOnly, req26("5", "subscriptions/listen", `"notifications":{"toolsListChanged":true}`), nil))
	if want := `{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found: subscriptions/listen: the MCP server behind this proxy speaks only protocol revision 2025-11-25 and earlier, which has no subscriptions"}}`; got != want {
		t.Fatalf("listen:\n%s\nwant\n%s", got, want)
	}
}

// Close ends the pool too: a request under way gets its error, the
// processes are reaped.
func TestStatelessClose(t *testing.T) {
	c, url := commands(t, fakeModern, func(c *Server) { c.poolMax = 1 })
	answer := async26(ctxHang(t), url, both, call26("1", "hang", "{}"), nil)
	waitFor(t, "the server got hang", func() bool { return len(cancelsOf(t, url).Hung) == 1 })
	procs := c.poolOf()
	c.Close()
	if a, want := await26(t, answer), `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error: the proxy is shutting down; the MCP server did not answer"}}`; a.status != http.StatusOK || a.body != want {
		t.Fatalf("got %+v\nwant 200 %s", a, want)
	}
	for _, p := range procs {
		reaped(t, p)
	}
	resp := do26(t, url, jsonOnly, req26("2", "ping", ""), nil)
	data, _ := io.ReadAll(resp.Body)
	if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Service Unavailable: the server is shutting down"}}`; resp.StatusCode != http.StatusServiceUnavailable || string(data) != want {
		t.Fatalf("after Close: %d %s", resp.StatusCode, data)
	}
}
