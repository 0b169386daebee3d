//go:build unix

package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Two clients use the same ids and progress tokens at once on one process:
// each request has an id (and token) of the proxy's own in the process,
// and each client gets its own answer and progress under its own id and
// token, byte for byte.
func TestStatelessIDs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func() *exec.Cmd
		// complete is what a result of the fake gains in the answer.
		complete string
	}{
		{"2026-07-28 server", fakeModern, ""},
		{"bridged 2025 server", fakeCmd, `,"resultType":"complete"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, url := commands(t, tc.start, func(c *Server) { c.poolMax = 1 })
			// The ids as a client writes them, each a string and a number
			// of one key, in both clients.
			streams := make([]<-chan string, 2)
			for i, id := range []string{`1`, `1.0`} {
				body := req26(id, "tools/call", `"name":"steps","arguments":{}`)
				body = strings.Replace(body, `"_meta":{`, `"_meta":{"progressToken":"tok",`, 1)
				resp := do26(t, url, both, body, nil)
				if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
					t.Fatalf("client %d: %d %s", i, resp.StatusCode, resp.Header.Get("Content-Type"))
				}
				streams[i] = events(resp)
				if got, want := next(t, streams[i], "progress 1"), `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":1,"total":2}}`; got != want {
					t.Fatalf("client %d:\n%s\nwant\n%s", i, got, want)
				}
			}
			if n := len(c.poolOf()); n != 1 {
				t.Fatalf("%d processes", n)
			}
			text26(t, do26(t, url, jsonOnly, req26(`"r"`, "test/release", ""), nil))
			for i, id := range []string{`1`, `1.0`} {
				if got, want := next(t, streams[i], "progress 2"), `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":2,"total":2}}`; got != want {
					t.Fatalf("client %d:\n%s\nwant\n%s", i, got, want)
				}
				if got, want := next(t, streams[i], "the result"), `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"stepped"}]`+tc.complete+`}}`; got != want {
					t.Fatalf("client %d:\n%s\nwant\n%s", i, got, want)
				}
				ends(t, streams[i], "the stream")
			}
		})
	}
}

// cancelState is what the fake server reports of the calls of hang and of
// the cancellations it got: the ids as it got them.
type cancelState struct {
	Hung, Cancelled []json.RawMessage
}

func cancelsOf(t *testing.T, url string) cancelState {
	t.Helper()
	var b struct{ Result cancelState }
	if err := json.Unmarshal([]byte(text26(t, do26(t, url, jsonOnly, req26(`"s"`, "test/cancelled", ""), nil))), &b); err != nil {
		t.Fatal(err)
	}
	return b.Result
}

// A client's notifications/cancelled reaches the process that serves the
// request it names, under the proxy's id for it, when it comes from the
// client with the same Authorization; a client that goes before its
// answer cancels its request too. Another client's cancellation of the
// same id is dropped.
func TestStatelessCancel(t *testing.T) {
	for _, start := range []func() *exec.Cmd{fakeModern, fakeCmd} {
		c, url := commands(t, start, func(c *Server) { c.poolMax = 1 })
		bearer := func(token string) http.Header { return http.Header{"Authorization": {"Bearer " + token}} }
		hung := func(n int) cancelState {
			var st cancelState
			waitFor(t, "the server got hang", func() bool { st = cancelsOf(t, url); return len(st.Hung) == n })
			return st
		}
		ctx, stop := context.WithCancel(ctxHang(t))
		answer := async26(ctx, url, both, call26("7", "hang", "{}"), bearer("a"))
		first := hung(1).Hung[0]
		if !strings.HasPrefix(string(first), `"selfheal-proxy/`) {
			t.Fatalf("the server got the id %s", first)
		}
		cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"no more"}}`
		// Not the client's: dropped. (A cancellation passed on is written
		// before its POST is answered, hence before the next request.)
		if resp := do26(t, url, both, cancel, bearer("b")); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("the cancellation: %d", resp.StatusCode)
		}
		if got := cancelsOf(t, url).Cancelled; len(got) != 0 {
			t.Fatalf("another client's cancellation reached the server: %s", got)
		}
		if resp := do26(t, url, both, cancel, bearer("a")); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("the cancellation: %d", resp.StatusCode)
		}
		waitFor(t, "the server got the cancellation", func() bool { return len(cancelsOf(t, url).Cancelled) > 0 })
		if got := cancelsOf(t, url); mustJSONRaw(got.Cancelled) != mustJSONRaw([]json.RawMessage{first}) {
			t.Fatalf("the server got the cancellations %s of %s", mustJSONRaw(got.Cancelled), first)
		}
		stop()
		if a := await26(t, answer); !errors.Is(a.err, context.Canceled) {
			t.Fatalf("the cancelled request: %+v", a)
		}

		// The client goes.
		ctx, stop = context.WithCancel(ctxHang(t))
		answer = async26(ctx, url, both, call26("8", "hang", "{}"), nil)
		second := hung(2).Hung[1]
		stop()
		await26(t, answer)
		waitFor(t, "the server got the cancellation", func() bool { return len(cancelsOf(t, url).Cancelled) == 2 })
		if got := cancelsOf(t, url).Cancelled[1]; string(got) != string(second) {
			t.Fatalf("the server got the cancellation of %s, not %s", got, second)
		}
		waitFor(t, "the request forgotten", func() bool {
			return locked(c.poolOf()[0], func() bool { return len(c.poolOf()[0].waiters) == 0 })
		})
	}
}

// A process that exits fails the requests it was serving with a JSON-RPC
// error, and the next request gets another process.
func TestStatelessCrash(t *testing.T) {
	c, url := commands(t, fakeModern, nil)
	pid := text26(t, do26(t, url, jsonOnly, req26("1", "test/pid", ""), nil))
	old := c.poolOf()[0]
	got := text26(t, do26(t, url, jsonOnly, call26("2", "crash", "{}"), nil))
	if want := `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error: the MCP server exited before it answered"}}`; got != want {
		t.Fatalf("crash:\n%s\nwant\n%s", got, want)
	}
	reaped(t, old)
	if again := text26(t, do26(t, url, jsonOnly, req26("1", "test/pid", ""), nil)); again == pid {
		t.Fatalf("the same process: %s", again)
	}
	if n := len(c.poolOf()); n != 1 {
		t.Fatalf("%d processes", n)
	}
}

// A server that leaves server/discover unanswered (as a hand-written one
// that drops what it does not know) is asked initialize, and bridged. One
// that answers nothing fails the request that waited for it, within the
// handshake bound, and is stopped; the next request tries again.
func TestStatelessNoDiscover(t *testing.T) {
	// Long enough for the process to start and answer initialize: the
	// test waits it out once, for server/discover.
	c, url := commands(t, fakeCmdWith("nodiscover"), func(c *Server) { c.handshake = time.Second })
	got := text26(t, do26(t, url, jsonOnly, call26("1", "echo", `{"text":"hi"}`), nil))
	if want := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}],"resultType":"complete"}}`; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if era := locked2(c, func() *upstreamEra { return c.era }); era == nil || !era.bridge {
		t.Fatalf("the era: %+v", era)
	}

	c, url = commands(t, fakeCmdWith("mute"), func(c *Server) { c.handshake = 50 * time.Millisecond })
	for range 2 {
		got := text26(t, do26(t, url, jsonOnly, call26("1", "echo", `{"text":"hi"}`), nil))
		if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error: the MCP server answered neither server/discover nor initialize within 50ms"}}`; got != want {
			t.Fatalf("got\n%s\nwant\n%s", got, want)
		}
		waitFor(t, "the process stopped", func() bool { return len(c.poolOf()) == 0 && locked2(c, func() int { return c.live }) == 0 })
		if era := locked2(c, func() *upstreamEra { return c.era }); era != nil {
			t.Fatalf("the era: %+v", era)
		}
	}
}

// A request whose server sends nothing for it within the silence bound is
// answered with a JSON-RPC error, and the server is told it is cancelled.
// A process that does not read its input for that long is stopped.
func TestStatelessSilence(t *testing.T) {
	c, url := commands(t, fakeModern, func(c *Server) { c.silent = 500 * time.Millisecond; c.poolMax = 1 })
	got := text26(t, do26(t, url, jsonOnly, call26("1", "hang", "{}"), nil))
	if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Request timed out: the MCP server sent nothing for this request in 500ms; it is cancelled"}}`; got != want {
		t.Fatalf("hang:\n%s\nwant\n%s", got, want)
	}
	waitFor(t, "the server got the cancellation", func() bool { return len(cancelsOf(t, url).Cancelled) == 1 })
	if st := cancelsOf(t, url); string(st.Cancelled[0]) != string(st.Hung[0]) {
		t.Fatalf("cancelled %s, hung %s", st.Cancelled[0], st.Hung[0])
	}

	// The process reads no more: a request larger than the pipe to it
	// fills the pipe, and is not written whole.
	p := c.poolOf()[0]
	text26(t, do26(t, url, jsonOnly, req26("2", "test/deaf", ""), nil)) // timed out
	big := req26("3", "test/big", `"pad":"`+strings.Repeat("x", 1<<20)+`"`)
	got = text26(t, do26(t, url, jsonOnly, big, nil))
	if want := `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error: the MCP server did not read its input for 500ms"}}`; got != want {
		t.Fatalf("the big request:\n%s\nwant\n%s", got, want)
	}
	reaped(t, p)
	reaped(t, p)
}

// wireStr is the Go string of a raw JSON string.
func wireStr(raw []byte) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// What a client of revision 2026-07-28 gets refused over HTTP: GET and
// DELETE (no session to act on), a revision the server does not serve,
// initialize, a request whose headers disagree with its body.
func TestStatelessRefusals(t *testing.T) {
	_, url := commands(t, fakeModern, nil)
	for _, method := range []string{"GET", "DELETE"} {
		req, _ := http.NewRequestWithContext(ctxHang(t), method, url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Method Not Allowed: ` + method + ` is not part of protocol revision 2026-07-28, which has no sessions; server-to-client messages use subscriptions/listen"}}`
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" || string(data) != want {
			t.Fatalf("%s: %d %q %s", method, resp.StatusCode, resp.Header.Get("Allow"), data)
		}
	}
	later := strings.ReplaceAll(req26("1", "ping", ""), "2026-07-28", "2027-01-01")
	resp := do26(t, url, both, later, http.Header{"Mcp-Protocol-Version": {"2027-01-01"}})
	data, _ := io.ReadAll(resp.Body)
	if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version: 2027-01-01","data":{"requested":"2027-01-01","supported":["2026-07-28"]}}}`; resp.StatusCode != http.StatusBadRequest || string(data) != want {
		t.Fatalf("a later revision: %d %s\nwant 400 %s", resp.StatusCode, data, want)
	}
	resp = do26(t, url, both, req26("1", "initialize", `"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"raw","version":"1"}`), nil)
	data, _ = io.ReadAll(resp.Body)
	if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: initialize is not part of protocol revision 2026-07-28; use server/discover"}}`; resp.StatusCode != http.StatusNotFound || string(data) != want {
		t.Fatalf("initialize: %d %s\nwant 404 %s", resp.StatusCode, data, want)
	}
	resp = do26(t, url, both, call26("2", "echo", `{"text":"hi"}`), http.Header{"Mcp-Name": {"deploy"}})
	data, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !strings.HasPrefix(string(data), `{"jsonrpc":"2.0","id":2,"error":{"code":-32020,"message":"Bad Request: the request headers and body disagree: the body carries params.name=\"echo\" but the Mcp-Name header names \"deploy\""`) {
		t.Fatalf("Mcp-Name: %d %s", resp.StatusCode, data)
	}
}

// A tool whose inputSchema declares x-mcp-header (route: a string, an
// integer and a boolean mirrored in Mcp-Param headers), behind the proxy,
// for clients of revision 2026-07-28: a call whose headers disagree with its
// arguments is refused with 400 and -32020, as the TypeScript SDK v2 server
// refuses it, before any process sees it; one whose headers agree is served.
// The first call comes before any listing: the proxy lists the tools itself
// to learn the declarations. A server of either era; the go-sdk client,
// which writes the headers itself, is served; a client of the session era is
// not asked for any header.
func TestStatelessParamHeaders(t *testing.T) {
	refused := func(header, body string) string {
		b, _ := json.Marshal(body) // a string always encodes
		return `{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Bad Request: the request headers and body disagree: ` + string(b[1:len(b)-1]) + `","data":{"mismatch":{"body":` + string(b) + `,"header":"` + header + `"}}}}`
	}
	for _, era := range []string{"2026", "2025"} {
		t.Run(era, func(t *testing.T) {
			// The go-sdk names itself in each result of revision
			// 2026-07-28; a bridged result is the session's.
			result := `{"content":`
			if era == "2026" {
				result = `{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"sdk-2026","version":"1"}},"content":`
			}
			served := func(text string) string {
				b, _ := json.Marshal(text) // a string always encodes
				return `{"jsonrpc":"2.0","id":1,"result":` + result + `[{"type":"text","text":` + string(b) + `}],"resultType":"complete"}}`
			}
			c, url := commands(t, sdkCmd(era), nil)
			for _, tc := range []struct {
				name, tool, args string
				headers          map[string]string
				status           int
				want             string
			}{
				{"a header missing", "route", `{"region":"test-value"}`, nil,
					400, refused("Mcp-Param-Region", `the body carries region="test-value" but the Mcp-Param-Region header is absent`)},
				{"a string", "route", `{"region":"eu-west"}`, map[string]string{"Mcp-Param-Region": "eu-west"},
					200, served(`{"region":"eu-west"}`)},
				{"another string", "route", `{"region":"eu-west"}`, map[string]string{"Mcp-Param-Region": "us-east"},
					400, refused("Mcp-Param-Region", `the Mcp-Param-Region header decodes to "us-east" but the body carries region="eu-west"`)},
				{"Base64", "route", `{"region":"日本"}`, map[string]string{"Mcp-Param-Region": "=?base64?5pel5pys?="},
					200, served(`{"region":"日本"}`)},
				{"Base64 badly padded", "route", `{"region":"Hello"}`, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8?="},
					400, refused("Mcp-Param-Region", `the Mcp-Param-Region header carries an invalid Base64 sentinel value`)},
				{"Base64 without its suffix: literal", "route", `{"region":"=?base64?SGVsbG8="}`, map[string]string{"Mcp-Param-Region": "=?base64?SGVsbG8="},
					200, served(`{"region":"=?base64?SGVsbG8="}`)},
				{"an integer", "route", `{"region":"r","priority":3}`, map[string]string{"Mcp-Param-Region": "r", "Mcp-Param-Priority": "3.0"},
					200, served(`{"region":"r","priority":3}`)},
				{"another integer", "route", `{"region":"r","priority":3}`, map[string]string{"Mcp-Param-Region": "r", "Mcp-Param-Priority": "4"},
					400, refused("Mcp-Param-Priority", `the Mcp-Param-Priority header decodes to "4" but the body carries priority=3`)},
				{"a boolean", "route", `{"region":"r","urgent":true}`, map[string]string{"Mcp-Param-Region": "r", "Mcp-Param-Urgent": "true"},
					200, served(`{"region":"r","urgent":true}`)},
				{"a boolean missing", "route", `{"region":"r","urgent":false}`, map[string]string{"Mcp-Param-Region": "r"},
					400, refused("Mcp-Param-Urgent", `the body carries urgent=false but the Mcp-Param-Urgent header is absent`)},
				{"optional arguments absent or null", "route", `{"region":"r","priority":null}`, map[string]string{"Mcp-Param-Region": "r"},
					200, served(`{"region":"r","priority":null}`)},
				{"a tool without declarations", "echo", `{"text":"hi"}`, nil, 200, served("hi")},
			} {
				h := http.Header{}
				for k, v := range tc.headers {
					h.Set(k, v)
				}
				resp := do26(t, url, jsonOnly, call26("1", tc.tool, tc.args), h)
				data, err := io.ReadAll(resp.Body)
				if err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/json" || string(data) != tc.want {
					t.Errorf("%s: got  %d %s %s\nwant %d %s", tc.name, resp.StatusCode, resp.Header.Get("Content-Type"), data, tc.status, tc.want)
				}
			}
			if complete := locked2(c, func() bool { return c.params.complete }); !complete {
				t.Error("the proxy's own listing did not complete")
			}

			// The go-sdk client writes the headers from its listing.
			cs := connect26(t, url, nil)
			if _, err := cs.ListTools(ctxHang(t), nil); err != nil {
				t.Fatal(err)
			}
			res, err := cs.CallTool(ctxHang(t), &mcp.CallToolParams{Name: "route", Arguments: map[string]any{"region": "日本", "priority": 7, "urgent": false}})
			if err != nil || res.IsError || callText(t, res) != `{"priority":7,"region":"日本","urgent":false}` {
				t.Fatalf("the go-sdk client's call: %v %s", err, mustJSON(t, res))
			}

			// A client of the session era sends no Mcp-Param header.
			sid := initialize(t, url)
			resp := do(t, url, "POST", sid, jsonOnly, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"route","arguments":{"region":"old"}}}`)
			data, _ := io.ReadAll(resp.Body)
			if want := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"region\":\"old\"}"}]}}`; resp.StatusCode != 200 || string(data) != want {
				t.Fatalf("the 2025 call: %d %s\nwant %s", resp.StatusCode, data, want)
			}
		})
	}
}

// When the server's tools change (notifications/tools/list_changed, on the
// subscription of a client), what the proxy knows of their declarations is
// forgotten, and learned again for the next call, which is still judged.
func TestStatelessParamHeadersChanged(t *testing.T) {
	c, url := commands(t, sdkCmd("2026"), func(c *Server) { c.poolMax = 1 })
	missing := func() {
		t.Helper()
		resp := do26(t, url, jsonOnly, call26("1", "route", `{"region":"x"}`), nil)
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 400 || !strings.Contains(string(data), `"code":-32020`) {
			t.Fatalf("a header missing: %d %s", resp.StatusCode, data)
		}
	}
	missing()
	if decls, known := c.params.lookup("route"); !known || len(decls) != 3 {
		t.Fatalf("route: %v %v", decls, known)
	}
	changed := make(chan struct{}, 1)
	cs := connect26(t, url, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	if res, err := cs.CallTool(ctxHang(t), &mcp.CallToolParams{Name: "grow", Arguments: map[string]any{}}); err != nil || callText(t, res) != "grew" {
		t.Fatalf("grow: %v %s", err, mustJSON(t, res))
	}
	select {
	case <-changed:
	case <-time.After(hang):
		t.Fatal("notifications/tools/list_changed did not come")
	}
	// The proxy read the notification before the client did.
	if decls, known := c.params.lookup("route"); known {
		t.Fatalf("route still known: %v", decls)
	}
	missing()
	if decls, known := c.params.lookup("route"); !known || len(decls) != 3 {
		t.Fatalf("route learned again: %v %v", decls, known)
	}
}
