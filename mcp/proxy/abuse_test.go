package proxy_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/mcp/proxy"
)

// retained is the heap that survives a collection, in bytes.
func retained() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestInventedSessionIDs (issue 39, fault 3): tools/calls with session ids
// a client invented cost the proxy a bounded, small state per id, not the
// id's text. An id that cannot be a server's (too long, not visible ASCII,
// two of them) is answered 400 before anything reaches the server; one at
// the bound is kept by its hash. The proxy of main kept every id whole:
// 500 ids of 64 KiB held 32 MB and got the server's 404.
func TestInventedSessionIDs(t *testing.T) {
	u := newUpstream(t, nil)
	srv := front(t, u)
	client := &http.Client{Timeout: wait}
	send := func(ids ...string) int {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp",
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"a","content":"b"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for _, id := range ids {
			req.Header.Add("Mcp-Session-Id", id)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	id := func(i, size int) string {
		s := []byte(strings.Repeat("x", size))
		for j := 0; j < 8; j++ {
			s[j] = "0123456789abcdef"[(i>>(4*j))&15]
		}
		return string(s)
	}

	for _, tc := range []struct {
		name string
		ids  []string
	}{
		{"too long", []string{id(0, 1025)}},
		{"a space", []string{"abc def"}},
		{"a tab", []string{"abc\tdef"}},
		{"not ASCII", []string{"abcdé"}},
		{"two ids", []string{"abc", "def"}},
	} {
		if got := send(tc.ids...); got != http.StatusBadRequest {
			t.Errorf("%s: HTTP %d, want 400", tc.name, got)
		}
	}
	if n := u.calls.Load(); n != 0 {
		t.Errorf("the server ran %d calls of refused ids", n)
	}

	send(id(0, 16)) // the proxy's own first allocations
	before := retained()
	const long = 500
	for i := range long {
		if got := send(id(i, 64<<10)); got != http.StatusBadRequest {
			t.Fatalf("an id of 64 KiB: HTTP %d, want 400", got)
		}
	}
	afterLong := retained()
	const atBound = 4000
	for i := range atBound {
		if got := send(id(i, maxSessionID)); got != http.StatusNotFound {
			t.Fatalf("an id of %d bytes the server never gave: HTTP %d, want the server's 404", maxSessionID, got)
		}
	}
	after := retained()
	if held := afterLong - before; held > 1<<20 {
		t.Errorf("%d ids of 64 KiB: %d bytes held, want under 1 MiB", long, held)
	}
	// An entry is a 65-byte key and an empty session (about 300 bytes with
	// the map's slot); the id itself would be 1 KiB more.
	if per := (after - afterLong) / atBound; per > maxSessionID/2 {
		t.Errorf("%d ids of %d bytes: %d bytes held per id, want under %d", atBound, maxSessionID, per, maxSessionID/2)
	}
	t.Logf("held: %d bytes for %d refused ids of 64 KiB, %d bytes per id of %d bytes",
		afterLong-before, long, (after-afterLong)/atBound, maxSessionID)
}

// maxSessionID is the longest Mcp-Session-Id the proxy accepts.
const maxSessionID = 1024

// sseWithLength is an MCP server that answers a tools/call in an event
// stream carrying a Content-Length, as the TypeScript SDK's server may: the
// arguments of its one tool must be an object, and a call whose arguments
// are not gets a JSON-RPC error -32602 in the stream.
func sseWithLength(t *testing.T) *url.URL {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var msg string
		switch req.Method {
		case "tools/list":
			msg = `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"tools":[{"name":"read_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]}}`
		case "tools/call":
			msg = `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32602,"message":"MCP error -32602: Invalid arguments for tool read_file"}}`
		default:
			msg = `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{}}`
		}
		event := "event: message\ndata: " + msg + "\n\n"
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Length", strconv.Itoa(len(event)))
		_, _ = io.WriteString(w, event)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL + "/mcp")
	return u
}

// TestSSEWithLength (issue 39, fault 1): a server answers in an event
// stream with a Content-Length, and the proxy replaces the event with its
// longer explanation: the client gets the whole of it, for every kind of
// arguments that is not an object, and no hang. Before dc4df86 the
// server's length was kept: a truncated event, and the client waiting.
func TestSSEWithLength(t *testing.T) {
	p, err := proxy.New(proxy.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p.HTTPHandler(sseWithLength(t)))
	defer srv.Close()
	for _, args := range []string{`[]`, `null`, `"s"`, `1`, `true`} {
		t.Run(args, func(t *testing.T) {
			status, ctype, body := post(t, srv.URL+"/mcp", "application/json, text/event-stream",
				`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","arguments":`+args+`}}`)
			if status != http.StatusOK || ctype != "text/event-stream" {
				t.Fatalf("HTTP %d %s\n%s", status, ctype, body)
			}
			data, ok := strings.CutPrefix(strings.TrimSpace(body), "event: message\ndata: ")
			if !ok {
				t.Fatalf("not one event:\n%s", body)
			}
			var resp struct {
				ID     int `json:"id"`
				Result struct {
					IsError bool `json:"isError"`
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(data), &resp); err != nil {
				t.Fatalf("the event is not whole: %v\n%s", err, data)
			}
			if resp.ID != 7 || !resp.Result.IsError || len(resp.Result.Content) == 0 ||
				!strings.Contains(resp.Result.Content[0].Text, "<server_message>MCP error -32602: Invalid arguments for tool read_file</server_message>") {
				t.Errorf("not the proxy's explanation with the server's message:\n%s", data)
			}
		})
	}
}
