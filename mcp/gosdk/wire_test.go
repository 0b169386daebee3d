package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/testkit/golden"
	"github.com/selfheal/selfheal/mcp/gosdk"
	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/internal/wiretest"
)

// wireServers returns a server with every kind of answer AddTool writes
// and one with every kind the Middleware writes. Their guards refuse every
// call: the test holds the one slot of busy and took the one token of
// limited, whose rate is so slow that retry_after is at its cap.
func wireServers(t *testing.T) (added, middleware *mcp.Server) {
	busy := guard.New(guard.Limits{MaxActive: 1, MaxQueued: guard.NoQueue})
	release, te := busy.Acquire(context.Background())
	if te != nil {
		t.Fatal(te)
	}
	t.Cleanup(release)
	limited := guard.New(guard.Limits{Rate: 1e-6, Burst: 1})
	if _, te := limited.Acquire(context.Background()); te != nil {
		t.Fatal(te)
	}
	quiet := gosdk.WithLogger(slog.New(slog.DiscardHandler))
	impl := &mcp.Implementation{Name: "wire", Version: "1"}

	added = mcp.NewServer(impl, nil)
	gosdk.AddTool(added, &mcp.Tool{Name: "search"}, search, quiet)
	gosdk.AddTool(added, &mcp.Tool{Name: "free"}, func(context.Context, *mcp.CallToolRequest, Search) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	}, quiet)
	gosdk.AddTool(added, &mcp.Tool{Name: "missing"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, envelope.Error(envelope.NotFound, "No invoice with that ID").Suggest("List invoices first")
	}, quiet)
	gosdk.AddTool(added, &mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("postgres: connection refused")
	}, quiet)
	gosdk.AddTool(added, &mcp.Tool{Name: "boom"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		panic("boom")
	}, quiet)
	gosdk.AddTool(added, &mcp.Tool{Name: "limited"}, search, quiet, gosdk.WithGuard(limited))
	gosdk.AddTool(added, &mcp.Tool{Name: "busy"}, search, quiet, gosdk.WithGuard(busy))
	gosdk.AddTool(added, &mcp.Tool{Name: "deprecated"}, func(ctx context.Context, req *mcp.CallToolRequest, in Search) (*mcp.CallToolResult, Hits, error) {
		return nil, Hits{Hits: []string{"a"}}, envelope.Error(envelope.Deprecated, "query is deprecated").Warning()
	}, quiet)

	middleware = mcp.NewServer(impl, nil)
	middleware.AddReceivingMiddleware(gosdk.Middleware(quiet, gosdk.WithGuard(limited, "limited"), gosdk.WithGuard(busy, "busy")))
	mcp.AddTool(middleware, &mcp.Tool{Name: "search"}, search)
	mcp.AddTool(middleware, &mcp.Tool{Name: "missing"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, envelope.Error(envelope.NotFound, "No invoice with that ID").Suggest("List invoices first")
	})
	mcp.AddTool(middleware, &mcp.Tool{Name: "fail"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("disk full")
	})
	mcp.AddTool(middleware, &mcp.Tool{Name: "boom"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		panic("boom")
	})
	mcp.AddTool(middleware, &mcp.Tool{Name: "limited"}, search)
	mcp.AddTool(middleware, &mcp.Tool{Name: "busy"}, search)
	return added, middleware
}

// wireRevisions are the revisions TestWire speaks.
var wireRevisions = []string{wiretest.Rev2025, wiretest.Rev2026}

// wireCases are the calls of TestWire: on which server, which tool, with
// which arguments, and whether the answer is an error.
var wireCases = []struct {
	name       string
	middleware bool
	tool       string
	args       string
	isError    bool
}{
	{"addtool-validation-meta", false, "search", `{"query":1,"limit":"5"}`, true},
	{"addtool-validation-structured", false, "free", `{}`, true},
	{"addtool-tool-error", false, "missing", `{}`, true},
	{"addtool-internal-error", false, "fail", `{}`, true},
	{"addtool-panic", false, "boom", `{}`, true},
	{"addtool-rate-limited", false, "limited", `{"query":"go"}`, true},
	{"addtool-server-busy", false, "busy", `{"query":"go"}`, true},
	{"addtool-warning", false, "deprecated", `{"query":"go"}`, false},
	{"addtool-success", false, "search", `{"query":"go"}`, false},
	{"middleware-validation", true, "search", `{"query":1}`, true},
	{"middleware-too-deep", true, "search", `{"query":"go","tags":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`, true},
	{"middleware-tool-error", true, "missing", `{}`, true},
	{"middleware-panic", true, "boom", `{}`, true},
	{"middleware-rate-limited", true, "limited", `{"query":"go"}`, true},
	{"middleware-server-busy", true, "busy", `{"query":"go"}`, true},
	{"middleware-plain-error", true, "fail", `{}`, true},
	{"middleware-success", true, "search", `{"query":"go"}`, false},
}

// Every answer the integration writes, read as bytes by a client of each
// revision, over stdio and over Streamable HTTP: a 2026-07-28 client gets
// resultType "complete" on each (a TypeScript SDK v2 client refuses a
// result without it) and the server's identity in _meta, as go-sdk gives
// its own results; a 2025-11-25 client gets the bytes it got before
// selfheal spoke 2026-07-28. Every transport writes the same bytes, kept in
// testdata/wire/<case>.<revision>.json. go-sdk serves 2026-07-28 over HTTP
// only from a stateless handler; its stateful one serves 2025-11-25.
func TestWire(t *testing.T) {
	added, middleware := wireServers(t)
	servers := map[bool]*mcp.Server{false: added, true: middleware}
	for _, rev := range wireRevisions {
		type client struct {
			transport string
			of        map[bool]*wiretest.Client // by middleware
		}
		var clients []client
		stdio := client{"stdio", map[bool]*wiretest.Client{}}
		stateful := client{"http", map[bool]*wiretest.Client{}}
		stateless := client{"http-stateless", map[bool]*wiretest.Client{}}
		for mw, s := range servers {
			stdio.of[mw] = wiretest.Stdio(t, rev, func(r io.ReadCloser, w io.WriteCloser) {
				_ = s.Run(context.Background(), &mcp.IOTransport{Reader: r, Writer: w})
			})
			getServer := func(*http.Request) *mcp.Server { return s }
			if rev == wiretest.Rev2025 {
				hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(getServer, nil))
				t.Cleanup(hs.Close)
				stateful.of[mw] = wiretest.HTTP(t, rev, hs.URL)
			}
			hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true}))
			t.Cleanup(hs.Close)
			stateless.of[mw] = wiretest.HTTP(t, rev, hs.URL)
		}
		clients = append(clients, stdio, stateless)
		if rev == wiretest.Rev2025 {
			clients = append(clients, stateful)
		}
		for _, tc := range wireCases {
			t.Run(tc.name+"/"+rev, func(t *testing.T) {
				for _, c := range clients {
					res := c.of[tc.middleware].CallTool(t, tc.tool, json.RawMessage(tc.args))
					if res.Error != nil {
						t.Fatalf("%s: JSON-RPC error %s", c.transport, res.Error)
					}
					rt := wiretest.ResultType(t, res.Result)
					if want := map[string]string{wiretest.Rev2025: "", wiretest.Rev2026: "complete"}[rev]; rt != want {
						t.Errorf("%s: resultType %q, want %q\n%s", c.transport, rt, want, res.Result)
					}
					var r struct {
						IsError bool `json:"isError"`
					}
					if err := json.Unmarshal(res.Result, &r); err != nil || r.IsError != tc.isError {
						t.Errorf("%s: isError %v, want %v\n%s", c.transport, r.IsError, tc.isError, res.Result)
					}
					golden.Check(t, "wire/"+tc.name+"."+rev+".json", append(res.Result, '\n'))
				}
			})
		}
	}
}

// A 2026-07-28 answer is the 2025-11-25 one with resultType and the
// server's identity in _meta, and nothing else changed.
func TestWireRevisionsDifferOnlyInMarks(t *testing.T) {
	for _, tc := range wireCases {
		t.Run(tc.name, func(t *testing.T) {
			wiretest.CheckMarks(t, "testdata/wire/"+tc.name+"."+wiretest.Rev2025+".json", "testdata/wire/"+tc.name+"."+wiretest.Rev2026+".json")
		})
	}
}

// go-sdk's stateful Streamable HTTP handler refuses a 2026-07-28 request
// (a go-sdk client then falls back to 2025-11-25): a server serves that
// revision over HTTP with StreamableHTTPOptions{Stateless: true}.
func TestWireStatefulHTTPRefuses2026(t *testing.T) {
	s := newServer()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer hs.Close()
	req, err := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/list")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Error struct{ Code int } `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Error.Code != -32022 {
		t.Errorf("%s, error code %d (%v); want -32022, unsupported protocol version", resp.Status, r.Error.Code, err)
	}
}
