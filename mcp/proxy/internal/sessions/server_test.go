//go:build unix

package sessions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

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
		{"params true", `{"jsonrpc":"2.0","id":1.0,"method":"tools/call","params":true}`, `{"jsonrpc":"2.0","id":1.0,` + scalar},
		// The TypeScript SDK drops these three without a word (issue 39).
		{"params null", `{"jsonrpc":"2.0","id":58,"method":"tools/list","params":null}`, `{"jsonrpc":"2.0","id":58,` + scalar},
		{"_meta a string", `{"jsonrpc":"2.0","id":59,"method":"tools/list","params":{"_meta":"x"}}`,
			`{"jsonrpc":"2.0","id":59,"error":{"code":-32602,"message":"Invalid params: params._meta must be an object"}}`},
		{"_meta 100,000 deep", `{"jsonrpc":"2.0","id":60,"method":"tools/list","params":{"_meta":{"a":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}}}`,
			`{"jsonrpc":"2.0","id":60,"error":{"code":-32602,"message":"Invalid params: params._meta nests deeper than 64 levels"}}`},
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

	t.Run("an id with a fraction", func(t *testing.T) {
		resp := do(t, url, "POST", sid, jsonOnly, `{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}`)
		data, _ := io.ReadAll(resp.Body)
		if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a request's id must be a string or an integer"}}`; resp.StatusCode != http.StatusBadRequest || string(data) != want {
			t.Fatalf("%d %s\nwant 400 %s", resp.StatusCode, data, want)
		}
	})

	t.Run("params absent or an object pass", func(t *testing.T) {
		for _, body := range []string{`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{}}}`, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`} {
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

// A request the server never answers (it may drop one without a word)
// ends at the silence bound with a JSON-RPC error under its id, in JSON
// and in a stream, and its id is free again: issue 39 saw the POST wait
// for ever and the id refused for the rest of the session.
func TestCommandsSilentRequest(t *testing.T) {
	_, url := commands(t, fakeCmd, func(c *Server) { c.silent = 300 * time.Millisecond })
	sid := initialize(t, url)
	const hang = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hang","arguments":{}}}`
	const want = `{"jsonrpc":"2.0","id":7,"error":{"code":-32001,"message":"Request timed out: the MCP server sent nothing for this request in 300ms"}}`
	for i := range 2 { // the second: the id is free again
		resp := do(t, url, "POST", sid, jsonOnly, hang)
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || string(data) != want {
			t.Fatalf("JSON %d: %d %s\nwant %s", i, resp.StatusCode, data, want)
		}
	}
	stream := events(do(t, url, "POST", sid, both, hang))
	if m := next(t, stream, "the answer"); m != want {
		t.Fatalf("stream: %s\nwant %s", m, want)
	}
	ends(t, stream, "the stream")
}
