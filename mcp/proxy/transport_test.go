package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/proxy"
)

// The tools of the transport table's server, as a real server lists them.
const transportTools = `{"tools":[` +
	`{"name":"write_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"},"dryRun":{"type":"boolean"}},"required":["path","content"]}},` +
	`{"name":"read_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}},` +
	`{"name":"search","inputSchema":{"type":"object","properties":{"query":{"type":"string"},"page_size":{"type":"integer"}},"required":["query"]}},` +
	`{"name":"edit_file","inputSchema":{"type":"object","properties":{"path":{"type":"string","minLength":1},"edits":{"type":"array","items":{"type":"object"}}},"required":["path","edits"]}}]}`

// Decisions, as the client sees them.
const (
	passed    = "passed"    // the server's answer, byte for byte
	explained = "explained" // selfheal's validation_error, with what the server said
	answered  = "answered"  // selfheal's validation_error; the server never saw the call
	guarded   = "guarded"   // the guard's tool_error; the server never saw the call
)

// transportCalls is the table every transport runs: a call, what the
// server answers it, and the decision the client must see.
var transportCalls = []struct {
	name, tool, args string
	reply            string // the server's "result" or "error" member
	guard            bool   // under a guard that admits one call, after one call
	want             string
	wantPaths        []string // the paths of the issues explained or answered
}{
	{name: "valid", tool: "write_file", args: `{"path":"/a","content":"x"}`,
		reply: `"result":{"content":[{"type":"text","text":"wrote /a"}]}`, want: passed},
	{name: "near miss", tool: "write_file", args: `{"path":"/a","content":"x","dryrun":true}`,
		want: answered, wantPaths: []string{"(root)"}},
	{name: "schema-bad, accepted", tool: "search", args: `{"query":"q","page_size":"10"}`,
		reply: `"result":{"content":[{"type":"text","text":"3 results"}]}`, want: passed},
	{name: "schema-bad, refused", tool: "write_file", args: `{"path":"/a"}`,
		reply: `"error":{"code":-32602,"message":"MCP error -32602: Input validation error: expected string, received undefined at content"}`,
		want:  explained, wantPaths: []string{"content"}},
	{name: "a crash a missing field caused", tool: "write_file", args: `{"path":"/a"}`,
		reply: `"result":{"content":[{"type":"text","text":"TypeError: Cannot read properties of undefined (reading 'length')"}],"isError":true}`,
		want:  explained, wantPaths: []string{"content"}},
	{name: "refused, naming a tolerated field", tool: "search", args: `{"query":"q","page_size":"10"}`,
		reply: `"result":{"content":[{"type":"text","text":"page_size must be a number"}],"isError":true}`,
		want:  explained, wantPaths: []string{"page_size"}},
	{name: "network error, quoted number", tool: "search", args: `{"query":"q","page_size":"10"}`,
		reply: `"result":{"content":[{"type":"text","text":"fetch failed: getaddrinfo ENOTFOUND api.example.com"}],"isError":true}`, want: passed},
	{name: "missing file, extra key", tool: "read_file", args: `{"path":"/missing","encoding":"utf8"}`,
		reply: `"result":{"content":[{"type":"text","text":"Error: ENOENT: no such file or directory, open '/missing'"}],"isError":true}`, want: passed},
	{name: "deep arguments, bad top-level field", tool: "edit_file",
		args:  `{"path":"","edits":[{"free":` + strings.Repeat("[", 80) + strings.Repeat("]", 80) + `}]}`,
		reply: `"result":{"content":[{"type":"text","text":"Invalid arguments"}],"isError":true}`, want: explained, wantPaths: []string{"path"}},
	{name: "deep arguments, nothing wrong above the limit", tool: "edit_file",
		args:  `{"path":"/a","edits":[{"free":` + strings.Repeat("[", 80) + strings.Repeat("]", 80) + `}]}`,
		reply: `"error":{"code":-32602,"message":"too deep"}`, want: passed},
	{name: "guarded", tool: "write_file", args: `{"path":"/a","content":"x"}`, guard: true,
		reply: `"result":{"content":[{"type":"text","text":"wrote /a"}]}`, want: guarded},
}

// transports are the ways a call reaches the proxy. Each sends the lines
// (one JSON-RPC request each) in order and returns the client's response
// to the last one.
var transports = []struct {
	name string
	send func(t *testing.T, p *proxy.Proxy, srv *tableServer, lines []string) string
}{
	{"stdio", sendStdio},
	{"HTTP upstream", func(t *testing.T, p *proxy.Proxy, srv *tableServer, lines []string) string {
		return sendHTTP(t, p, srv, lines, false, false)
	}},
	{"HTTP upstream, stream", func(t *testing.T, p *proxy.Proxy, srv *tableServer, lines []string) string {
		return sendHTTP(t, p, srv, lines, false, true)
	}},
	{"batch", func(t *testing.T, p *proxy.Proxy, srv *tableServer, lines []string) string {
		return sendHTTP(t, p, srv, lines, true, false)
	}},
	{"batch, stream", func(t *testing.T, p *proxy.Proxy, srv *tableServer, lines []string) string {
		return sendHTTP(t, p, srv, lines, true, true)
	}},
	{"HTTP command", sendCommand},
}

// TestTransports: every transport makes the same decision for each call
// of the table.
func TestTransports(t *testing.T) {
	for _, tr := range transports {
		for _, tc := range transportCalls {
			t.Run(tr.name+"/"+tc.name, func(t *testing.T) {
				opts := []proxy.Option{proxy.WithLogger(slog.New(slog.DiscardHandler))}
				if tc.guard {
					opts = append(opts, proxy.WithGuard(guard.Limits{Rate: 1e-6, Burst: 1}))
				}
				p, err := proxy.New(opts...)
				if err != nil {
					t.Fatal(err)
				}
				srv := &tableServer{reply: tc.reply}
				req := func(id string) string {
					return `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/call","params":{"name":"` + tc.tool + `","arguments":` + tc.args + `}}`
				}
				lines := []string{req("call")}
				if tc.guard {
					lines = []string{req("first"), req("call")}
				}
				got := tr.send(t, p, srv, lines)
				decision, paths := decisionOf(t, got, `{"jsonrpc":"2.0","id":"call",`+tc.reply+`}`)
				if decision != tc.want || !slices.Equal(paths, tc.wantPaths) {
					t.Errorf("%s %v, want %s %v\n%q", decision, paths, tc.want, tc.wantPaths, got)
				}
				if seen, want := srv.calls.Load(), int64(len(lines)); (tc.want == answered || tc.want == guarded) && seen != want-1 || (tc.want == passed || tc.want == explained) && seen != want {
					t.Errorf("the server saw %d calls of %d", seen, want)
				}
			})
		}
	}
}

// decisionOf reads the client's response: the server's own (passed), or
// one of the proxy's, and the paths of its issues.
func decisionOf(t *testing.T, got, server string) (string, []string) {
	t.Helper()
	if got == server {
		return passed, nil
	}
	var resp struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent struct {
				Issues []struct {
					Path []any `json:"path"`
				} `json:"issues"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(got), &resp); err != nil || len(resp.Result.Content) == 0 {
		return "neither the server's answer nor the proxy's", nil
	}
	text := resp.Result.Content[0].Text
	var paths []string
	for _, is := range resp.Result.StructuredContent.Issues {
		p := "(root)"
		if len(is.Path) > 0 {
			b, _ := json.Marshal(is.Path)
			p = strings.Trim(strings.ReplaceAll(string(b), `"`, ""), "[]")
		}
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	switch {
	case strings.Contains(text, "RATE_LIMITED"):
		return guarded, nil
	case strings.HasPrefix(text, "<validation_error") && strings.Contains(text, "<server_message>"):
		return explained, paths
	case strings.HasPrefix(text, "<validation_error"):
		return answered, paths
	}
	return "another answer", nil
}

// tableServer is an MCP server in a few lines: it lists transportTools and
// answers every call with reply.
type tableServer struct {
	reply string
	calls atomic.Int64
}

// respond is the server's response to one request, nil for a message that
// needs none.
func (s *tableServer) respond(msg []byte) []byte {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(msg, &m) != nil || m.ID == nil {
		return nil
	}
	switch m.Method {
	case "tools/list":
		return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + transportTools + `}`)
	case "initialize":
		return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"table","version":"1"}}}`)
	case "tools/call":
		s.calls.Add(1)
		return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,` + s.reply + `}`)
	}
	return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`)
}

// sendStdio runs the proxy over pipes between the test (the client) and
// the table's server.
func sendStdio(t *testing.T, p *proxy.Proxy, srv *tableServer, lines []string) string {
	clientR, clientW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	serverR, serverW := io.Pipe()
	toServerR, toServerW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.Serve(ctx, clientR, toClientW, serverR, toServerW) }()
	go func() {
		sc := bufio.NewScanner(toServerR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if out := srv.respond(sc.Bytes()); out != nil {
				serverW.Write(append(out, '\n'))
			}
		}
	}()
	defer func() {
		cancel()
		for _, c := range []io.Closer{clientW, serverW, toServerR, toClientR} {
			c.Close()
		}
		<-served
	}()
	go func() {
		for _, l := range lines {
			io.WriteString(clientW, l+"\n")
		}
	}()
	// The proxy may answer the last call (a guarded one) before the server
	// answers an earlier one: wait for a response to every line, so the
	// server's count is final when the test reads it.
	sc := bufio.NewScanner(toClientR)
	sc.Buffer(nil, 1<<20)
	var call string
	for n := 0; n < len(lines) && sc.Scan(); n++ {
		if strings.Contains(sc.Text(), `"id":"call"`) {
			call = sc.Text()
		}
	}
	if call == "" {
		t.Fatal("no response to the call")
	}
	return call
}

// sendHTTP POSTs each line to HTTPHandler in front of the table's server,
// alone or as the one member of a batch; the server answers with a JSON
// body, or with a stream of one event per response.
func sendHTTP(t *testing.T, p *proxy.Proxy, srv *tableServer, lines []string, batch, stream bool) string {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var members []json.RawMessage
		single := json.Unmarshal(body, &members) != nil
		if single {
			members = []json.RawMessage{body}
		}
		var out [][]byte
		for _, m := range members {
			if r := srv.respond(m); r != nil {
				out = append(out, r)
			}
		}
		switch {
		case stream && r.Header.Get("Mcp-Method") == "" && !bytes.Contains(body, []byte(`"tools/list"`)):
			w.Header().Set("Content-Type", "text/event-stream")
			for _, o := range out {
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", o)
			}
		case single:
			w.Header().Set("Content-Type", "application/json")
			w.Write(out[0])
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Write(append(append([]byte("["), bytes.Join(out, []byte(","))...), ']'))
		}
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL + "/mcp")
	front := httptest.NewServer(p.HTTPHandler(u))
	defer front.Close()
	var got string
	for _, l := range lines {
		if batch {
			l = "[" + l + "]"
		}
		req, _ := http.NewRequest(http.MethodPost, front.URL+"/mcp", strings.NewReader(l))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got = string(data)
	}
	if stream && strings.HasPrefix(got, "event:") || strings.HasPrefix(got, "data:") {
		// The events' data: the response to the call.
		for l := range strings.SplitSeq(got, "\n") {
			if d, ok := strings.CutPrefix(l, "data: "); ok && strings.Contains(d, `"id":"call"`) {
				return d
			}
		}
		t.Fatalf("no event answers the call: %s", got)
	}
	if batch {
		var members []json.RawMessage
		if err := json.Unmarshal([]byte(got), &members); err != nil || len(members) != 1 {
			t.Fatalf("a batch of one call got %s", got)
		}
		got = string(members[0])
	}
	return got
}

// TestMain makes the test binary the table's server when the HTTP command
// transport starts it: SELFHEAL_TABLE_REPLY is its reply, and it writes a
// line to SELFHEAL_TABLE_CALLS for each call it gets.
func TestMain(m *testing.M) {
	reply, ok := os.LookupEnv("SELFHEAL_TABLE_REPLY")
	if !ok {
		os.Exit(m.Run())
	}
	calls, err := os.OpenFile(os.Getenv("SELFHEAL_TABLE_CALLS"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		os.Exit(1)
	}
	srv := &tableServer{reply: reply}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		before := srv.calls.Load()
		out := srv.respond(sc.Bytes())
		if srv.calls.Load() != before {
			calls.WriteString("call\n")
		}
		if out != nil {
			os.Stdout.Write(append(out, '\n'))
		}
	}
	os.Exit(0)
}

// sendCommand serves the table's server, this test binary started as a
// stdio process, with CommandHandler, and posts each line in a session of
// its own (revision 2025-11-25), as a client of that revision does.
func sendCommand(t *testing.T, p *proxy.Proxy, srv *tableServer, lines []string) string {
	calls := filepath.Join(t.TempDir(), "calls")
	c, err := p.CommandHandler(func() *exec.Cmd {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "SELFHEAL_TABLE_REPLY="+srv.reply, "SELFHEAL_TABLE_CALLS="+calls)
		return cmd
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(c)
	defer func() {
		front.Close()
		c.Close()
		data, _ := os.ReadFile(calls)
		srv.calls.Store(int64(bytes.Count(data, []byte("\n"))))
	}()
	var session string
	post := func(body string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, front.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			session = id
		}
		data, _ := io.ReadAll(resp.Body)
		for l := range strings.SplitSeq(string(data), "\n") {
			if d, ok := strings.CutPrefix(l, "data: "); ok && d != "" { // not the priming event
				return d
			}
		}
		return string(data)
	}
	post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"table","version":"1"}}}`)
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var got string
	for _, l := range lines {
		got = post(l)
	}
	return got
}
