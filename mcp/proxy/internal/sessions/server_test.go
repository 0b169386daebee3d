//go:build unix

package sessions

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/mcp/proxy/internal/eventstream"
	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// hang bounds every wait of these tests: a deadline that only a hang
// reaches, never a timing assertion.
const hang = 20 * time.Second

// The fake server: the test binary run again as a child, speaking
// newline-delimited JSON-RPC by hand, for what examples/mcpserver does not
// do (progress, requests to the client, crashing, hanging, ignoring the
// end of its input).
const fakeEnv = "SELFHEAL_FAKE_MCP"

// TestCommandsFakeServer is not a test: it is the fake server, when the
// Server tests start the test binary as their child.
func TestCommandsFakeServer(t *testing.T) {
	if os.Getenv(fakeEnv) != "1" {
		t.Skip("the fake MCP server of the Server tests, run as their child")
	}
	fakeServer(os.Stdin, os.Stdout)
	os.Exit(0)
}

// fakeCmd returns the command of a fake server.
func fakeCmd() *exec.Cmd { return fakeCmdWith("")() }

// fakeCmdWith returns the start function of a fake server with options,
// a comma-separated list (see fakeOptsEnv).
func fakeCmdWith(opts string) func() *exec.Cmd {
	return func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCommandsFakeServer$")
		cmd.Env = append(os.Environ(), fakeEnv+"=1", fakeOptsEnv+"="+opts)
		cmd.Stderr = os.Stderr
		return cmd
	}
}

// fakeOptsEnv holds the fake server's options: "paged" lists its tools
// two a page, last first (echo on the last page), with cursors; "notools"
// declares no tools capability; "holdlist" answers no tools/list until the
// client sends the notification test/unhold or it gets SIGUSR2; "modern" answers
// server/discover as a server of revision 2026-07-28 (without it, with {}
// as any method it does not know: a server of the session era);
// "nodiscover" never answers server/discover (as a server that drops what
// it does not know); "mute" answers nothing at all.
const fakeOptsEnv = "SELFHEAL_FAKE_OPTS"

// fakeTools is the fake server's tools/list result.
const fakeTools = `{"tools":[
{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},
{"name":"progress","inputSchema":{"type":"object"}},
{"name":"notify","inputSchema":{"type":"object"}},
{"name":"ask","inputSchema":{"type":"object"}},
{"name":"wait","inputSchema":{"type":"object"}},
{"name":"crash","inputSchema":{"type":"object"}},
{"name":"hang","inputSchema":{"type":"object"}},
{"name":"stubborn","inputSchema":{"type":"object"}},
{"name":"flood","inputSchema":{"type":"object"}},
{"name":"steps","inputSchema":{"type":"object"}}]}`

type fakeMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// fakeServer serves in and out until in ends (or forever, once told to
// be stubborn).
func fakeServer(in io.Reader, out io.Writer) {
	var mu sync.Mutex
	write := func(v any) {
		data, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		mu.Lock()
		defer mu.Unlock()
		out.Write(append(data, '\n'))
	}
	result := func(id json.RawMessage, res string) {
		write(fakeMsg{JSONRPC: "2.0", ID: id, Result: json.RawMessage(res)})
	}
	text := func(id json.RawMessage, s string) {
		data, _ := json.Marshal(s)
		result(id, `{"content":[{"type":"text","text":`+string(data)+`}]}`)
	}
	var (
		stateMu  sync.Mutex
		answers  = map[string]chan json.RawMessage{} // the server's requests awaiting the client's response
		released = make(chan struct{})
		stubborn bool
		// hung are the ids of the calls of hang, cancelled those of the
		// cancellations received.
		hung, cancelled []json.RawMessage
		lists           atomic.Int64 // the tools/list requests received
		unhold          = make(chan struct{})
		opts            = map[string]bool{}
	)
	for _, o := range strings.Split(os.Getenv(fakeOptsEnv), ",") {
		opts[o] = true
	}
	// flood waits for SIGUSR1, which must not kill the process if it
	// comes early.
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	// holdlist's listings are answered at test/unhold, or at SIGUSR2: a
	// signal reaches the server while a call holds the session's messages
	// behind it.
	var unholdOnce sync.Once
	usr2 := make(chan os.Signal, 1)
	signal.Notify(usr2, syscall.SIGUSR2)
	go func() { <-usr2; unholdOnce.Do(func() { close(unhold) }) }()
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if opts["mute"] {
			continue
		}
		var m fakeMsg
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			// Nested past encoding/json's 10,000 levels: read with the
			// proxy's own scanner, a call is answered with how deep its
			// arguments go, so that a test sees what reached the server.
			if d, ok := wire.Decode(sc.Bytes()); ok && d.ID != nil && d.Method == "tools/call" {
				var name string
				var args []byte
				wire.Members(d.Params, func(k, v []byte) {
					switch string(k) {
					case "name":
						name = wire.Str(v)
					case "arguments":
						args = v
					}
				})
				text(json.RawMessage(bytes.Clone(d.ID)), fmt.Sprintf("%s: arguments nested %d deep", name, nesting(args)))
			}
			continue
		}
		if m.Method == "" { // the client's response to the server's request
			stateMu.Lock()
			ch := answers[string(m.ID)]
			stateMu.Unlock()
			if ch != nil {
				if m.Result == nil { // an error: the client refused
					m.Result = m.Error
				}
				ch <- m.Result
			}
			continue
		}
		switch m.Method {
		case "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			json.Unmarshal(m.Params, &p)
			caps := `{"tools":{}}`
			if opts["notools"] {
				caps = `{"logging":{}}`
			}
			result(m.ID, `{"protocolVersion":"`+p.ProtocolVersion+`","capabilities":`+caps+`,"serverInfo":{"name":"fake","version":"`+strconv.Itoa(os.Getpid())+`"}}`)
		case "tools/list":
			lists.Add(1)
			var p struct {
				Cursor string `json:"cursor"`
			}
			json.Unmarshal(m.Params, &p)
			page := fakeTools
			if opts["paged"] {
				var all struct{ Tools []json.RawMessage }
				json.Unmarshal([]byte(fakeTools), &all)
				slices.Reverse(all.Tools)
				from, _ := strconv.Atoi(p.Cursor)
				to := min(from+2, len(all.Tools))
				next := ""
				if to < len(all.Tools) {
					next = `,"nextCursor":"` + strconv.Itoa(to) + `"`
				}
				page = `{"tools":` + mustJSONRaw(all.Tools[from:to]) + next + `}`
			}
			if opts["holdlist"] {
				go func(id json.RawMessage) { <-unhold; result(id, page) }(m.ID)
			} else {
				result(m.ID, page)
			}
		case "server/discover":
			switch {
			case opts["nodiscover"]:
			case opts["modern"]:
				result(m.ID, `{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"1"}},"ttlMs":0,"cacheScope":"private","resultType":"complete"}`)
			default:
				result(m.ID, `{}`)
			}
		case "test/seen": // the request as the server got it
			line, _ := json.Marshal(sc.Text())
			result(m.ID, `{"line":`+string(line)+`}`)
		case "test/deaf": // reads nothing more, and answers nothing
			select {}
		case "test/pid":
			result(m.ID, `{"pid":`+strconv.Itoa(os.Getpid())+`}`)
		case "test/cancelled": // the ids of the hung calls, and of the cancellations
			stateMu.Lock()
			result(m.ID, `{"hung":`+mustJSONRaw(hung)+`,"cancelled":`+mustJSONRaw(cancelled)+`}`)
			stateMu.Unlock()
		case "notifications/cancelled":
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			json.Unmarshal(m.Params, &p)
			stateMu.Lock()
			cancelled = append(cancelled, p.RequestID)
			stateMu.Unlock()
		case "test/lists":
			result(m.ID, `{"lists":`+strconv.FormatInt(lists.Load(), 10)+`}`)
		case "test/unhold":
			unholdOnce.Do(func() { close(unhold) })
		case "test/release": // a notification, or a request
			close(released)
			if m.ID != nil {
				result(m.ID, `{}`)
			}
		case "tools/call":
			var p struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
				Meta      struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
			}
			json.Unmarshal(m.Params, &p)
			switch p.Name {
			case "echo":
				text(m.ID, fmt.Sprint(p.Arguments["text"]))
			case "progress":
				for i := 1; i <= 3; i++ {
					write(fakeMsg{JSONRPC: "2.0", Method: "notifications/progress",
						Params: json.RawMessage(`{"progressToken":` + string(p.Meta.ProgressToken) + `,"progress":` + strconv.Itoa(i) + `,"total":3}`)})
				}
				text(m.ID, "done")
			case "notify":
				write(fakeMsg{JSONRPC: "2.0", Method: "notifications/message", Params: json.RawMessage(`{"level":"info","data":"hello"}`)})
				text(m.ID, "notified")
			case "ask":
				ch := make(chan json.RawMessage, 1)
				stateMu.Lock()
				answers[`"ask-1"`] = ch
				stateMu.Unlock()
				write(fakeMsg{JSONRPC: "2.0", ID: json.RawMessage(`"ask-1"`), Method: "roots/list", Params: json.RawMessage(`{}`)})
				go func(id json.RawMessage) { text(id, string(<-ch)) }(m.ID)
			case "wait": // with a text, answered with it
				answer := "released"
				if t, ok := p.Arguments["text"].(string); ok {
					answer = t
				}
				go func(id json.RawMessage) { <-released; text(id, answer) }(m.ID)
			case "steps": // progress, then more once released, then the result
				progress := func(i int) {
					write(fakeMsg{JSONRPC: "2.0", Method: "notifications/progress",
						Params: json.RawMessage(`{"progressToken":` + string(p.Meta.ProgressToken) + `,"progress":` + strconv.Itoa(i) + `,"total":2}`)})
				}
				progress(1)
				go func(id json.RawMessage) { <-released; progress(2); text(id, "stepped") }(m.ID)
			case "flood": // reading nothing meanwhile
				<-usr1
				for range 2000 {
					write(fakeMsg{JSONRPC: "2.0", Method: "notifications/message", Params: json.RawMessage(`{"level":"info","data":"flood"}`)})
				}
				text(m.ID, "flooded")
			case "crash":
				os.Exit(3)
			case "hang":
				stateMu.Lock()
				hung = append(hung, m.ID)
				stateMu.Unlock()
			case "stubborn":
				stateMu.Lock()
				stubborn = true
				stateMu.Unlock()
				text(m.ID, "stubborn")
			}
		default:
			if m.ID != nil {
				result(m.ID, `{}`)
			}
		}
	}
	stateMu.Lock()
	s := stubborn
	stateMu.Unlock()
	if s {
		select {} // until killed
	}
}

// commands serves a Server of start on an httptest server; tune may
// lower its bounds before it serves. The httptest server and the Server are
// closed at the end of the test.
func commands(t *testing.T, start func() *exec.Cmd, tune func(*Server)) (*Server, string) {
	t.Helper()
	return commandsOf(t, ProxyRelay(false, 0), start, tune)
}

// commandsOf is commands with the relay r.
func commandsOf(t *testing.T, r *relay.Relay, start func() *exec.Cmd, tune func(*Server)) (*Server, string) {
	t.Helper()
	c := New(r, start, 0)
	if tune != nil {
		tune(c)
	}
	srv := httptest.NewServer(c)
	t.Cleanup(func() {
		c.Close()
		srv.Close()
	})
	return c, srv.URL
}

// lookup returns the session of id, or nil.
func (c *Server) lookup(id string) *session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessions[id]
}

// connect opens a session with the go-sdk client, of revision 2025-11-25
// (the go-sdk's client speaks 2026-07-28 by default, which has no
// sessions: see pool_test.go).
//
//lint:ignore SA1019 roots/list is a server-to-client request the proxy must still relay while the protocol keeps it
func connect(t *testing.T, url string, opts *mcp.ClientOptions, roots ...*mcp.Root) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	//lint:ignore SA1019 roots/list is a server-to-client request the proxy must still relay while the protocol keeps it
	client.AddRoots(roots...)
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func ctxHang(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	t.Cleanup(cancel)
	return ctx
}

func callText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// reaped waits for a session's process to be reaped and checks that it is
// gone.
func reaped(t *testing.T, s *session) {
	t.Helper()
	select {
	case <-s.proc.exited:
	case <-time.After(hang):
		t.Fatal("the session's process was not reaped")
	}
	if err := syscall.Kill(s.proc.cmd.Process.Pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the process %d is still there: %v", s.proc.cmd.Process.Pid, err)
	}
}

// buildExample builds examples/mcpserver, a go-sdk stdio server.
func buildExample(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcpserver")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/selfheal/selfheal/examples/mcpserver").CombinedOutput()
	if err != nil {
		t.Fatalf("go build examples/mcpserver: %v\n%s", err, out)
	}
	return bin
}

// The example server (go-sdk, stdio only) behind a Server, driven by the
// go-sdk client over Streamable HTTP.
func TestCommandsExampleServer(t *testing.T) {
	bin := buildExample(t)
	c, url := commands(t, func() *exec.Cmd { return exec.Command(bin) }, nil)

	t.Run("tools/list as over stdio", func(t *testing.T) {
		direct := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		ds, err := direct.Connect(ctxHang(t), &mcp.CommandTransport{Command: exec.Command(bin)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ds.Close()
		want, err := ds.ListTools(ctxHang(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		cs := connect(t, url, nil)
		defer cs.Close()
		got, err := cs.ListTools(ctxHang(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		g, w := mustJSON(t, got.Tools), mustJSON(t, want.Tools)
		if g != w {
			t.Fatalf("tools over HTTP:\n%s\nover stdio:\n%s", g, w)
		}
		if len(got.Tools) != 4 {
			t.Fatalf("%d tools", len(got.Tools))
		}
	})

	t.Run("bad and valid calls", func(t *testing.T) {
		cs := connect(t, url, nil)
		defer cs.Close()
		if _, err := cs.ListTools(ctxHang(t), nil); err != nil {
			t.Fatal(err)
		}
		res, err := cs.CallTool(ctxHang(t), &mcp.CallToolParams{Name: "billing.get_invoice", Arguments: map[string]any{"id": "nope", "dryrun": true}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(callText(t, res), "<validation_error") {
			t.Fatalf("bad call: isError %v, %q", res.IsError, callText(t, res))
		}
		res, err = cs.CallTool(ctxHang(t), &mcp.CallToolParams{Name: "billing.get_invoice", Arguments: map[string]any{"id": "inv_2026_0001"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || !strings.Contains(string(mustJSON(t, res.StructuredContent)), `"inv_2026_0001"`) {
			t.Fatalf("valid call: isError %v, %s", res.IsError, mustJSON(t, res))
		}
	})

	t.Run("DELETE ends the process", func(t *testing.T) {
		cs := connect(t, url, nil)
		s := c.lookup(cs.ID())
		if s == nil {
			t.Fatalf("no session %q", cs.ID())
		}
		if err := cs.Close(); err != nil { // DELETE
			t.Fatal(err)
		}
		reaped(t, s)
		if c.lookup(cs.ID()) != nil {
			t.Fatal("the session is still known")
		}
		resp := do(t, url, "POST", cs.ID(), "application/json, text/event-stream", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("a request of the ended session: %d", resp.StatusCode)
		}
	})

	t.Run("unknown or missing session", func(t *testing.T) {
		for _, tc := range []struct {
			method, id string
			want       int
		}{
			{"POST", "0123456789abcdef0123456789abcdef", http.StatusNotFound},
			{"GET", "nope", http.StatusNotFound},
			{"DELETE", "nope", http.StatusNotFound},
			{"POST", "", http.StatusBadRequest},
			{"GET", "", http.StatusBadRequest},
			{"DELETE", "", http.StatusBadRequest},
		} {
			resp := do(t, url, tc.method, tc.id, "application/json, text/event-stream", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
			body := rpcErrorOf(t, resp)
			if resp.StatusCode != tc.want || body.Error.Code == 0 || string(body.ID) != "null" {
				t.Errorf("%s with session %q: %d %+v, want %d and a JSON-RPC error", tc.method, tc.id, resp.StatusCode, body, tc.want)
			}
		}
	})

	t.Run("10 sessions in parallel, a process each", func(t *testing.T) {
		const n = 10
		var wg sync.WaitGroup
		sessions := make([]*session, n)
		errs := make(chan error, n)
		for i := range n {
			wg.Go(func() {
				cs := connect(t, url, nil)
				defer cs.Close()
				sessions[i] = c.lookup(cs.ID())
				if _, err := cs.ListTools(ctxHang(t), nil); err != nil {
					errs <- err
					return
				}
				id := fmt.Sprintf("inv_2026_%04d", i%6+1) // the store has 6
				res, err := cs.CallTool(ctxHang(t), &mcp.CallToolParams{Name: "billing.get_invoice", Arguments: map[string]any{"id": id}})
				if err != nil {
					errs <- err
					return
				}
				if res.IsError || !strings.Contains(string(mustJSON(t, res.StructuredContent)), id) {
					errs <- fmt.Errorf("session %d: %s", i, mustJSON(t, res))
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		pids := map[int]bool{}
		for i, s := range sessions {
			if s == nil {
				t.Fatalf("session %d unknown", i)
			}
			reaped(t, s)
			pids[s.proc.cmd.Process.Pid] = true
		}
		if len(pids) != n {
			t.Fatalf("%d processes for %d sessions", len(pids), n)
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// do sends one HTTP request to the endpoint, with a session id when sid is
// not "".
func do(t *testing.T, url, method, sid, accept, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctxHang(t), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if sid != "" {
		req.Header.Set(headerSessionID, sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

type rpcBody struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// String shows a body as text in failures.
func (b rpcBody) String() string {
	return fmt.Sprintf("{id %s result %s error %d %q}", b.ID, b.Result, b.Error.Code, b.Error.Message)
}

// rpcErrorOf reads a JSON body.
func rpcErrorOf(t *testing.T, resp *http.Response) rpcBody {
	t.Helper()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var b rpcBody
	if err := json.Unmarshal(data, &b); err != nil {
		t.Fatalf("%d %q: %v", resp.StatusCode, data, err)
	}
	return b
}

// events returns the messages of an event stream, in order; the channel
// closes at the end of the stream. An event without data (the one that
// starts a stream, with its first id) carries none, as MCP clients read it.
func events(resp *http.Response) <-chan string {
	ch := make(chan string, 100)
	go func() {
		defer close(ch)
		sc := eventstream.NewScanner(func(ev *eventstream.Event) {
			if ev.IsMessage() && len(ev.Data) > 0 {
				ch <- string(ev.Data)
			}
		})
		io.Copy(sc, resp.Body)
	}()
	return ch
}

// next returns the next message of a stream.
func next(t *testing.T, ch <-chan string, what string) string {
	t.Helper()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the stream ended", what)
		}
		return m
	case <-time.After(hang):
		t.Fatalf("%s: nothing came", what)
	}
	return ""
}

// ends checks that a stream ends with nothing more.
func ends(t *testing.T, ch <-chan string, what string) {
	t.Helper()
	select {
	case m, ok := <-ch:
		if ok {
			t.Fatalf("%s: unexpected %s", what, m)
		}
	case <-time.After(hang):
		t.Fatalf("%s: the stream did not end", what)
	}
}

const (
	both     = "application/json, text/event-stream"
	jsonOnly = "application/json"
)

// initialize opens a session by hand and returns its id.
func initialize(t *testing.T, url string) string {
	t.Helper()
	resp := do(t, url, "POST", "", jsonOnly, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	b := rpcErrorOf(t, resp)
	sid := resp.Header.Get(headerSessionID)
	if resp.StatusCode != http.StatusOK || b.Result == nil || len(sid) != 32 {
		t.Fatalf("initialize: %d %+v, session %q", resp.StatusCode, b, sid)
	}
	resp = do(t, url, "POST", sid, both, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d", resp.StatusCode)
	}
	return sid
}

func call(id, tool string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
}

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

// JSON answers, batches, bodies over several lines.
func TestCommandsJSONAndBatch(t *testing.T) {
	_, url := commands(t, fakeCmd, nil)
	sid := initialize(t, url)

	resp := do(t, url, "POST", sid, jsonOnly, "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"tools/call\",\r\n  \"params\": {\"name\": \"echo\", \"arguments\": {\"text\": \"two\\nlines\"}}\n}\n")
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q", ct)
	}
	if b := rpcErrorOf(t, resp); string(b.ID) != "1" || !strings.Contains(string(b.Result), `two\nlines`) {
		t.Fatalf("echo: %+v", b)
	}

	batch := `[` + call(`"a"`, "notify") + `,{"jsonrpc":"2.0","method":"notifications/whatever"},{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}}]`
	resp = do(t, url, "POST", sid, jsonOnly, batch)
	data, _ := io.ReadAll(resp.Body)
	var answers []rpcBody
	if err := json.Unmarshal(data, &answers); err != nil || len(answers) != 2 || string(answers[0].ID) != `"a"` || string(answers[1].ID) != `"b"` {
		t.Fatalf("batch: %s (%v)", data, err)
	}

	resp = do(t, url, "POST", sid, both, strings.ReplaceAll(strings.ReplaceAll(batch, `"a"`, `"c"`), `"b"`, `"d"`))
	ids := map[string]bool{}
	for m := range events(resp) {
		var b rpcBody
		json.Unmarshal([]byte(m), &b)
		if b.Result != nil {
			ids[string(b.ID)] = true
		}
	}
	if !ids[`"c"`] || !ids[`"d"`] || len(ids) != 2 {
		t.Fatalf("the stream's responses: %v", ids)
	}

	// A call the schema calls bad and the server accepts: the server
	// decides, its result passes.
	do(t, url, "POST", sid, jsonOnly, `{"jsonrpc":"2.0","id":"l","method":"tools/list"}`).Body.Close()
	b := rpcErrorOf(t, do(t, url, "POST", sid, jsonOnly, call("9", "echo")))
	if strings.Contains(string(b.Result), "validation_error") || strings.Contains(string(b.Result), `"isError":true`) {
		t.Fatalf("accepted call: %s", b.Result)
	}

	// With WithStrict, the proxy answers it, through the same routing.
	_, url = commandsOf(t, ProxyRelay(true, 0), fakeCmd, nil)
	sid = initialize(t, url)
	do(t, url, "POST", sid, jsonOnly, `{"jsonrpc":"2.0","id":"l","method":"tools/list"}`).Body.Close()
	b = rpcErrorOf(t, do(t, url, "POST", sid, jsonOnly, call("9", "echo")))
	if !strings.Contains(string(b.Result), "validation_error") || !strings.Contains(string(b.Result), `"isError":true`) {
		t.Fatalf("bad call: %s", b.Result)
	}
}

// What the transport refuses, and how.
func TestCommandsRefusals(t *testing.T) {
	c, url := commands(t, fakeCmd, func(c *Server) { c.maxBody = 1 << 10; c.maxBatch = 3 })
	sid := initialize(t, url)
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, tc := range []struct {
		name, method, sid, ctype, accept, body string
		want, code                             int
	}{
		{"PUT", "PUT", sid, "application/json", both, ping, http.StatusMethodNotAllowed, -32000},
		{"GET without text/event-stream", "GET", sid, "", jsonOnly, "", http.StatusNotAcceptable, -32000},
		{"not JSON's media type", "POST", sid, "text/plain", both, ping, http.StatusUnsupportedMediaType, -32000},
		{"too large", "POST", sid, "application/json", both, `{"jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("x", 2<<10) + `"}`, http.StatusRequestEntityTooLarge, -32000},
		{"not JSON", "POST", sid, "application/json", both, `{"jsonrpc":`, http.StatusBadRequest, -32700},
		{"not JSON-RPC", "POST", sid, "application/json", both, `{"hello":1}`, http.StatusBadRequest, -32700},
		{"an object id", "POST", sid, "application/json", both, `{"jsonrpc":"2.0","id":{},"method":"ping"}`, http.StatusBadRequest, -32600},
		{"empty batch", "POST", sid, "application/json", both, `[]`, http.StatusBadRequest, -32600},
		{"batch too long", "POST", sid, "application/json", both, "[" + strings.Repeat(`{"jsonrpc":"2.0","method":"x"},`, 3) + ping + "]", http.StatusBadRequest, -32600},
		{"initialize again", "POST", sid, "application/json", both, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, http.StatusBadRequest, -32600},
		{"initialize in a batch", "POST", "", "application/json", both, `[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}},` + ping + `]`, http.StatusBadRequest, -32600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(ctxHang(t), tc.method, url, strings.NewReader(tc.body))
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			req.Header.Set("Accept", tc.accept)
			if tc.sid != "" {
				req.Header.Set(headerSessionID, tc.sid)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b := rpcErrorOf(t, resp)
			if resp.StatusCode != tc.want || b.Error.Code != tc.code {
				t.Fatalf("%d %+v, want %d and code %d", resp.StatusCode, b, tc.want, tc.code)
			}
			if tc.want == http.StatusMethodNotAllowed && resp.Header.Get("Allow") != "GET, POST, DELETE" {
				t.Fatalf("Allow %q", resp.Header.Get("Allow"))
			}
		})
	}

	t.Run("a request id already under way", func(t *testing.T) {
		first := events(do(t, url, "POST", sid, both, call("77", "wait")))
		resp := do(t, url, "POST", sid, both, call("77", "echo"))
		if b := rpcErrorOf(t, resp); resp.StatusCode != http.StatusBadRequest || b.Error.Code != -32600 {
			t.Fatalf("%d %+v", resp.StatusCode, b)
		}
		do(t, url, "POST", sid, both, `{"jsonrpc":"2.0","method":"test/release"}`)
		if m := next(t, first, "first"); !strings.Contains(m, "released") {
			t.Fatalf("first: %s", m)
		}
	})

	t.Run("too many sessions", func(t *testing.T) {
		c.mu.Lock()
		c.maxSessions = c.live
		c.mu.Unlock()
		resp := do(t, url, "POST", "", both, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
		if b := rpcErrorOf(t, resp); resp.StatusCode != http.StatusServiceUnavailable || b.Error.Code != -32000 {
			t.Fatalf("%d %+v", resp.StatusCode, b)
		}
	})
}

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

// waitFor polls cond until it holds, for a while.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(hang); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %s", what, hang)
		}
	}
}

// locked calls f under the session's mu.
func locked[T any](s *session, f func() T) T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return f()
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
	before := runtime.NumGoroutine()
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
	for deadline := time.Now().Add(hang); runtime.NumGoroutine() > before; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
	}
}

// nesting returns how deeply a JSON value nests objects and arrays.
func nesting(raw []byte) int {
	depth, most := 0, 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			end := wire.SkipString(raw, i)
			if end < 0 {
				return most
			}
			i = end - 1
		case '{', '[':
			depth++
			most = max(most, depth)
		case '}', ']':
			depth--
		}
	}
	return most
}

// Arguments nested past any limit are the server's to judge, as in upstream
// mode: the body is read at any depth (encoding/json stops at 10,000), the
// call is forwarded unchecked in the default mode, and WithStrict refuses
// what it checks past the depth limit.
func TestCommandsDepth(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	echo := func(id, text string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"echo","arguments":{"text":` + text + `}}}`
	}
	result := func(text string) string {
		return `{"content":[{"type":"text","text":"` + text + `"}]}`
	}
	listed := func(t *testing.T, url string) string {
		t.Helper()
		sid := initialize(t, url)
		if b := rpcErrorOf(t, do(t, url, "POST", sid, jsonOnly, `{"jsonrpc":"2.0","id":"l","method":"tools/list"}`)); b.Result == nil {
			t.Fatalf("tools/list: %+v", b)
		}
		return sid
	}

	_, url := commands(t, fakeCmd, nil)
	sid := listed(t, url)
	for _, tc := range []struct{ name, body, want string }{
		{"10,000 deep", echo("1", deep(10000)), result("echo: arguments nested 10001 deep")},
		{"10,000 deep, over several lines", strings.Replace(echo("2", deep(10000)), `"id":2,`, "\n  \"id\": 2,\r\n", 1), result("echo: arguments nested 10001 deep")},
		{"70 deep, past the limit of 64", echo("3", deep(70)), result(deep(70))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := do(t, url, "POST", sid, jsonOnly, tc.body)
			b := rpcErrorOf(t, resp)
			if resp.StatusCode != http.StatusOK || string(b.Result) != tc.want {
				t.Fatalf("%d %+v\nwant the result %s", resp.StatusCode, b, tc.want)
			}
		})
	}
	t.Run("in a batch", func(t *testing.T) {
		data, _ := io.ReadAll(do(t, url, "POST", sid, jsonOnly, "[\n"+echo("4", deep(10000))+",\n"+echo("5", `"five"`)+"\n]").Body)
		want := `[{"jsonrpc":"2.0","id":4,"result":` + result("echo: arguments nested 10001 deep") + `},{"jsonrpc":"2.0","id":5,"result":` + result("five") + `}]`
		if string(data) != want {
			t.Fatalf("%s\nwant %s", data, want)
		}
	})

	t.Run("strict", func(t *testing.T) {
		_, url := commandsOf(t, ProxyRelay(true, 0), fakeCmd, nil)
		sid := listed(t, url)
		b := rpcErrorOf(t, do(t, url, "POST", sid, jsonOnly, echo("6", deep(70))))
		var res struct {
			IsError bool
			Content []struct{ Text string }
		}
		if err := json.Unmarshal(b.Result, &res); err != nil || !res.IsError || len(res.Content) != 1 ||
			!strings.HasPrefix(res.Content[0].Text, `<validation_error action="echo">`) {
			t.Fatalf("70 deep with WithStrict: %+v (%v)", b, err)
		}
	})
}

// validJSON is json.Valid at any depth.
func TestValidJSON(t *testing.T) {
	for _, tc := range []string{
		``, ` `, `{}`, `[]`, ` { } `, `[ ]`, `{"a":1}`, `{"a" : [1, 2.5e-3, -0, true, false, null, "x"]}`,
		`{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `{"a"}`, `{"a":}`, `{1:2}`, `[1 2]`, `{"a":1 "b":2}`, `[}`, `{]`,
		`"\u00e9\n\"\\\/\b\f\r\t"`, `"\x"`, `"\u12"`, `"\u12G4"`, "\"a\tb\"", "\"\xff\"", `"abc`,
		`01`, `-`, `-01`, `1.`, `.5`, `1e`, `1e+`, `1E-7`, `+1`, `0x10`, `tru`, `truex`, `nul`, `NaN`, `1 2`,
		`{"a":{"b":[{"c":[[]]}]}}`, `[[[]]`, `[[]]]`, `{"a":[}]`, "\t[1,\r\n2]\n",
	} {
		if got, want := wire.ValidJSON([]byte(tc)), json.Valid([]byte(tc)); got != want {
			t.Errorf("validJSON(%q) = %v, json.Valid says %v", tc, got, want)
		}
	}
	deep := []byte(strings.Repeat(`{"a":[`, 20000) + "1" + strings.Repeat("]}", 20000))
	if !wire.ValidJSON(deep) || json.Valid(deep) {
		t.Errorf("40,000 deep: validJSON %v (want true), json.Valid %v (its limit)", wire.ValidJSON(deep), json.Valid(deep))
	}
	if wire.ValidJSON(deep[:len(deep)-1]) {
		t.Error("40,000 deep, one brace short: valid")
	}
	if got := string(compactJSON([]byte(" {\n \"a b\" : [ 1 ,\r\n\t2 ] }\n"))); got != `{"a b":[1,2]}` {
		t.Errorf("compactJSON: %s", got)
	}
}

// FuzzValidJSON: validJSON agrees with json.Valid below its depth limit,
// and compactJSON with json.Compact.
func FuzzValidJSON(f *testing.F) {
	for _, seed := range []string{`{"a":[1,2,{"b":null}]}`, `[1,]`, `"\u00e9"`, `-1.5e+3`, ` [ ] `, `{"a" 1}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if nesting(data) >= 10000 {
			return
		}
		valid := wire.ValidJSON(data)
		if valid != json.Valid(data) {
			t.Fatalf("validJSON(%q) = %v, json.Valid says %v", data, valid, !valid)
		}
		if !valid {
			return
		}
		var b bytes.Buffer
		if err := json.Compact(&b, data); err != nil {
			t.Fatal(err)
		}
		if got := compactJSON(data); !bytes.Equal(got, bytes.TrimSpace(b.Bytes())) {
			t.Fatalf("compactJSON(%q) = %q, json.Compact gives %q", data, got, b.Bytes())
		}
	})
}

// A request whose params MCP cannot take is answered by the proxy under its
// id, at once: the TypeScript SDK's servers drop it without a word
// (@modelcontextprotocol/server-everything answers nothing to params [1]),
// and the fake server answers nothing to it either, so a forwarded one
// would hang.
func TestCommandsBadParams(t *testing.T) {
	c, url := commands(t, fakeCmd, nil)
	sid := initialize(t, url)
	const (
		array  = `"error":{"code":-32602,"message":"Invalid params: params must be an object, not an array"}}`
		scalar = `"error":{"code":-32600,"message":"Invalid Request: params must be an object"}}`
	)
	for _, tc := range []struct{ name, body, want string }{
		{"params [1]", `{"jsonrpc":"2.0","id":55,"method":"tools/call","params":[1]}`, `{"jsonrpc":"2.0","id":55,` + array},
		{"params []", `{"jsonrpc":"2.0","id":"a","method":"tools/list","params":[]}`, `{"jsonrpc":"2.0","id":"a",` + array},
		{"params 1", `{"jsonrpc":"2.0","id":56,"method":"tools/call","params":1}`, `{"jsonrpc":"2.0","id":56,` + scalar},
		{"params a string", `{"jsonrpc":"2.0","id":57,"method":"ping","params":"x"}`, `{"jsonrpc":"2.0","id":57,` + scalar},
		{"params true, an id 1.5", `{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":true}`, `{"jsonrpc":"2.0","id":1.5,` + scalar},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := do(t, url, "POST", sid, jsonOnly, tc.body)
			data, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || string(data) != tc.want {
				t.Fatalf("JSON: %d %s\nwant %s", resp.StatusCode, data, tc.want)
			}
			stream := events(do(t, url, "POST", sid, both, tc.body))
			if m := next(t, stream, "the answer"); m != tc.want {
				t.Fatalf("stream: %s\nwant %s", m, tc.want)
			}
			ends(t, stream, "the stream")
		})
	}

	t.Run("in a batch with a good call", func(t *testing.T) {
		data, _ := io.ReadAll(do(t, url, "POST", sid, jsonOnly, `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"two"}}}]`).Body)
		want := `[{"jsonrpc":"2.0","id":1,` + array + `,{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"two"}]}}]`
		if string(data) != want {
			t.Fatalf("%s\nwant %s", data, want)
		}
	})

	t.Run("params null or absent pass", func(t *testing.T) {
		for _, body := range []string{`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":null}`, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`} {
			if b := rpcErrorOf(t, do(t, url, "POST", sid, jsonOnly, body)); !strings.Contains(string(b.Result), `"name":"echo"`) {
				t.Fatalf("%s: %+v", body, b)
			}
		}
	})

	t.Run("initialize starts no process", func(t *testing.T) {
		resp := do(t, url, "POST", "", jsonOnly, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":["2025-11-25"]}`)
		data, _ := io.ReadAll(resp.Body)
		if want := `{"jsonrpc":"2.0","id":0,` + array; resp.StatusCode != http.StatusBadRequest || string(data) != want || resp.Header.Get(headerSessionID) != "" {
			t.Fatalf("%d %s (session %q)\nwant 400 %s", resp.StatusCode, data, resp.Header.Get(headerSessionID), want)
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.live != 1 {
			t.Fatalf("%d processes, want the first session's only", c.live)
		}
	})
}

func mustJSONRaw(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

// nearMiss is the answer to a call of echo that sends "texts" for "text":
// a near miss, answered before forwarding in every mode (the server would
// drop the key), once the proxy knows echo's schema. Its one line is one
// issue, at the field the key stands for.
const nearMiss = `{"content":[{"type":"text","text":"<validation_error action=\"echo\">\n  <field name=\"text\">Missing. You sent: the unknown key 'texts'. Expected a string.</field>\n  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>"}],"isError":true,"structuredContent":{"issues":[{"code":"unrecognized_keys","path":["text"],"expected":"string","keys":["texts"],"allowed":["text"],"check":"near_miss","source":"selfheal:typo"}]}}`

// unchecked is the fake server's answer to that call when it reaches it.
const unchecked = `{"content":[{"type":"text","text":"\u003cnil\u003e"}]}`

// lists returns how many tools/list requests the fake server of a session
// has received.
func lists(t *testing.T, url, sid string) string {
	t.Helper()
	return string(rpcErrorOf(t, do(t, url, "POST", sid, jsonOnly, `{"jsonrpc":"2.0","id":"n","method":"test/lists"}`)).Result)
}

// The proxy lists the tools itself (its relay, as over stdio: the server
// adds no listing of its own) when a call needs them, so that the first
// call is checked without a tools/list of the client's: every page, with
// ids of its own whose responses the client never sees; the call waits for
// the listing, for a while.
func TestCommandsListsAtInitialize(t *testing.T) {
	texts := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"texts":"hi"}}}`

	for _, opts := range []string{"", "paged"} {
		t.Run("by hand "+opts, func(t *testing.T) {
			_, url := commands(t, fakeCmdWith(opts), nil)
			sid := initialize(t, url)
			if b := rpcErrorOf(t, do(t, url, "POST", sid, jsonOnly, texts)); string(b.Result) != nearMiss {
				t.Fatalf("the first call: %+v\nwant the result %s", b, nearMiss)
			}
			want := `{"lists":1}`
			if opts == "paged" {
				want = `{"lists":5}` // 9 tools, 2 a page
			}
			if got := lists(t, url, sid); got != want {
				t.Fatalf("the server got %s, want %s", got, want)
			}
		})
	}

	t.Run("go-sdk client, streams", func(t *testing.T) {
		_, url := commands(t, fakeCmd, nil)
		cs := connect(t, url, nil)
		defer cs.Close()
		res, err := cs.CallTool(ctxHang(t), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"texts": "hi"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := mustJSON(t, res); !res.IsError || !strings.Contains(got, "Missing. You sent: the unknown key 'texts'") {
			t.Fatalf("the first call: %s", got)
		}
	})

	t.Run("no tools capability, no listing", func(t *testing.T) {
		_, url := commands(t, fakeCmdWith("notools"), nil)
		sid := initialize(t, url)
		if b := rpcErrorOf(t, do(t, url, "POST", sid, jsonOnly, texts)); string(b.Result) != unchecked {
			t.Fatalf("the call: %+v", b)
		}
		if got := lists(t, url, sid); got != `{"lists":0}` {
			t.Fatalf("the server got %s", got)
		}
	})

	t.Run("a call waits for the listing", func(t *testing.T) {
		c, url := commands(t, fakeCmdWith("holdlist"), nil)
		sid := initialize(t, url)
		s := c.lookup(sid)
		answer := make(chan rpcBody, 1)
		go func() { answer <- rpcErrorOf(t, do(t, url, "POST", sid, jsonOnly, texts)) }()
		for deadline := time.Now().Add(hang); ; time.Sleep(time.Millisecond) {
			s.mu.Lock()
			busy := s.busy
			s.mu.Unlock()
			if busy == 1 { // the call's POST is under way
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the call's POST did not arrive")
			}
		}
		// The session's messages wait behind the call, in order, as over
		// stdio: the listing is released by a signal.
		if err := s.proc.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
			t.Fatal(err)
		}
		select {
		case b := <-answer:
			if string(b.Result) != nearMiss {
				t.Fatalf("the call: %+v", b)
			}
		case <-time.After(hang):
			t.Fatal("no answer")
		}
	})

	t.Run("a listing that does not end holds no call", func(t *testing.T) {
		_, url := commandsOf(t, ProxyRelay(false, time.Millisecond), fakeCmdWith("holdlist"), nil)
		sid := initialize(t, url)
		// Unchecked: the server decides (the fake echoes a text it has not got).
		if b := rpcErrorOf(t, do(t, url, "POST", sid, jsonOnly, texts)); string(b.Result) != unchecked {
			t.Fatalf("the call during the listing: %+v", b)
		}
		do(t, url, "POST", sid, both, `{"jsonrpc":"2.0","method":"test/unhold"}`)
		// Once the listing has ended, calls are checked.
		for deadline := time.Now().Add(hang); ; {
			b := rpcErrorOf(t, do(t, url, "POST", sid, jsonOnly, texts))
			if string(b.Result) == nearMiss {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the call after the listing: %+v", b)
			}
		}
	})
}
