package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/testkit/golden"
	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/internal/wiretest"
	"github.com/selfheal/selfheal/mcp/mcpgo"
)

// wireServers returns a server with every kind of answer AddTool writes
// and one with every kind the Middleware writes. Their guards refuse every
// call: the test holds the one slot of busy and took the one token of
// limited, whose rate is so slow that retry_after is at its cap.
func wireServers(t *testing.T) (added, middleware *server.MCPServer) {
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
	quiet := mcpgo.WithLogger(slog.New(slog.DiscardHandler))
	search := mcp.NewTool("search", mcp.WithString("query", mcp.Required()), mcp.WithNumber("limit", mcp.Max(50)))
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}
	missing := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, envelope.Error(envelope.NotFound, "No invoice with that ID").Suggest("List invoices first")
	}
	fail := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("postgres: connection refused")
	}
	boom := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("boom")
	}

	added = server.NewMCPServer("wire", "1")
	mcpgo.AddTool(added, search, ok, quiet)
	typed := mcp.NewToolWithRawSchema("typed", "", json.RawMessage(`{"type":"object","required":["id"]}`))
	typed.RawOutputSchema = json.RawMessage(`{"type":"object"}`)
	mcpgo.AddTool(added, typed, ok, quiet)
	mcpgo.AddTool(added, mcp.NewTool("missing"), missing, quiet)
	mcpgo.AddTool(added, mcp.NewTool("fail"), fail, quiet)
	mcpgo.AddTool(added, mcp.NewTool("boom"), boom, quiet)
	mcpgo.AddTool(added, mcp.NewTool("limited"), ok, quiet, mcpgo.WithGuard(limited))
	mcpgo.AddTool(added, mcp.NewTool("busy"), ok, quiet, mcpgo.WithGuard(busy))
	mcpgo.AddTool(added, mcp.NewTool("deprecated"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), envelope.Error(envelope.Deprecated, "query is deprecated").Warning()
	}, quiet)

	middleware = server.NewMCPServer("wire", "1")
	middleware.Use(mcpgo.Middleware(quiet, mcpgo.WithGuard(limited, "limited"), mcpgo.WithGuard(busy, "busy")))
	middleware.AddTool(search, ok)
	middleware.AddTool(mcp.NewTool("missing"), missing)
	middleware.AddTool(mcp.NewTool("fail"), fail)
	middleware.AddTool(mcp.NewTool("boom"), boom)
	middleware.AddTool(mcp.NewTool("limited"), ok)
	middleware.AddTool(mcp.NewTool("busy"), ok)
	return added, middleware
}

// wireCases are the calls of TestWire: on which server, which tool, with
// which arguments, and whether the answer is an error.
var wireCases = []struct {
	name       string
	middleware bool
	tool       string
	args       string
	isError    bool
}{
	{"addtool-validation-structured", false, "search", `{"query":1,"limit":99}`, true},
	{"addtool-validation-meta", false, "typed", `{}`, true},
	{"addtool-tool-error", false, "missing", `{}`, true},
	{"addtool-internal-error", false, "fail", `{}`, true},
	{"addtool-panic", false, "boom", `{}`, true},
	{"addtool-rate-limited", false, "limited", `{}`, true},
	{"addtool-server-busy", false, "busy", `{}`, true},
	{"addtool-warning", false, "deprecated", `{}`, false},
	{"addtool-success", false, "search", `{"query":"go"}`, false},
	{"middleware-validation", true, "search", `{"query":1}`, true},
	{"middleware-tool-error", true, "missing", `{}`, true},
	{"middleware-internal-error", true, "fail", `{}`, true},
	{"middleware-panic", true, "boom", `{}`, true},
	{"middleware-rate-limited", true, "limited", `{}`, true},
	{"middleware-server-busy", true, "busy", `{}`, true},
	{"middleware-success", true, "search", `{"query":"go"}`, false},
}

// wireTransports are the ways TestWire reaches a server. mcp-go's stdio
// server keeps its one session in a package variable, so its clients run
// one after the other.
var wireTransports = []struct {
	name    string
	connect func(t *testing.T, rev string, s *server.MCPServer) *wiretest.Client
}{
	{"stdio", func(t *testing.T, rev string, s *server.MCPServer) *wiretest.Client {
		return wiretest.Stdio(t, rev, func(r io.ReadCloser, w io.WriteCloser) {
			_ = server.NewStdioServer(s).Listen(context.Background(), r, w)
		})
	}},
	{"http", func(t *testing.T, rev string, s *server.MCPServer) *wiretest.Client {
		hs := httptest.NewServer(server.NewStreamableHTTPServer(s))
		t.Cleanup(hs.Close)
		return wiretest.HTTP(t, rev, hs.URL)
	}},
	{"http-stateless", func(t *testing.T, rev string, s *server.MCPServer) *wiretest.Client {
		hs := httptest.NewServer(server.NewStreamableHTTPServer(s, server.WithStateLess(true)))
		t.Cleanup(hs.Close)
		return wiretest.HTTP(t, rev, hs.URL)
	}},
}

// Every answer the integration writes, read as bytes by a client of each
// revision over each of mcp-go's transports: mcp-go v1.2.1 speaks
// 2026-07-28 and marks every result it sends to such a client
// ("resultType":"complete", its serverInfo in _meta), ours included; a
// 2025-11-25 client gets the bytes it always got. Every transport writes
// the same bytes, kept in testdata/wire/<case>.<revision>.json.
func TestWire(t *testing.T) {
	added, middleware := wireServers(t)
	servers := map[bool]*server.MCPServer{false: added, true: middleware}
	for _, rev := range []string{wiretest.Rev2025, wiretest.Rev2026} {
		for _, tr := range wireTransports {
			for _, mw := range []bool{false, true} {
				t.Run(rev+"/"+tr.name, func(t *testing.T) {
					c := tr.connect(t, rev, servers[mw])
					for _, tc := range wireCases {
						if tc.middleware != mw {
							continue
						}
						t.Run(tc.name, func(t *testing.T) {
							res := c.CallTool(t, tc.tool, json.RawMessage(tc.args))
							if res.Error != nil {
								t.Fatalf("JSON-RPC error %s", res.Error)
							}
							rt := wiretest.ResultType(t, res.Result)
							if want := map[string]string{wiretest.Rev2025: "", wiretest.Rev2026: "complete"}[rev]; rt != want {
								t.Errorf("resultType %q, want %q\n%s", rt, want, res.Result)
							}
							var r struct {
								IsError bool `json:"isError"`
							}
							if err := json.Unmarshal(res.Result, &r); err != nil || r.IsError != tc.isError {
								t.Errorf("isError %v, want %v\n%s", r.IsError, tc.isError, res.Result)
							}
							golden.Check(t, "wire/"+tc.name+"."+rev+".json", append(res.Result, '\n'))
						})
					}
				})
			}
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
