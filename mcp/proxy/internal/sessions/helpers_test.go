//go:build unix

package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/selfheal/selfheal/mcp/proxy/internal/eventstream"
	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

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
