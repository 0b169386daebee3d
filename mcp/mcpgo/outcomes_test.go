package mcpgo_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/selfheal/selfheal/mcp/internal/wiretest"
	"github.com/selfheal/selfheal/mcp/mcpgo"
)

// outcomeServer serves write and read (path and content required) through
// AddTool, or through Middleware.
func outcomeServer(via string, opt mcpgo.Option) *server.MCPServer {
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`)
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}
	if via == "AddTool" {
		s := server.NewMCPServer("test", "1")
		for _, name := range []string{"write", "read"} {
			mcpgo.AddTool(s, mcp.NewToolWithRawSchema(name, "", schema), h, opt)
		}
		return s
	}
	s := server.NewMCPServer("test", "1", server.WithToolHandlerMiddleware(mcpgo.Middleware(opt)))
	for _, name := range []string{"write", "read"} {
		s.AddTool(mcp.NewToolWithRawSchema(name, "", schema), h)
	}
	return s
}

func startClient(t *testing.T, c *client.Client) *client.Client {
	t.Helper()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}

// callTool calls a tool and says whether selfheal answered it.
func callTool(t *testing.T, c *client.Client, tool, args string) bool {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = json.RawMessage(args)
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res.IsError
}

// A real client session (mcp-go's, in process) through AddTool and
// through Middleware: every way an answer settles.
func TestOutcomes(t *testing.T) {
	for _, tc := range wiretest.OutcomeCases {
		for _, via := range []string{"AddTool", "Middleware"} {
			t.Run(tc.Name+" via "+via, func(t *testing.T) {
				var o wiretest.Outcomes
				c, err := client.NewInProcessClient(outcomeServer(via, mcpgo.OptionOf(o.Option())))
				if err != nil {
					t.Fatal(err)
				}
				startClient(t, c)
				for _, step := range tc.Calls {
					if step == "wait" {
						o.Wait(time.Minute)
						continue
					}
					tool, args, _ := strings.Cut(step, " ")
					if answered := callTool(t, c, tool, args); answered != (args != wiretest.GoodWrite) {
						t.Fatalf("%s: answered %v", step, answered)
					}
				}
				if got := o.List(); !slices.Equal(got, tc.Want) {
					t.Errorf("outcomes %q, want %q", got, tc.Want)
				}
			})
		}
	}
}

// Concurrent sessions over Streamable HTTP (each with its Mcp-Session-Id,
// revision 2025-11-25): each settles its own answers, never another's.
func TestOutcomesConcurrentSessions(t *testing.T) {
	var o wiretest.Outcomes
	s := outcomeServer("AddTool", mcpgo.OptionOf(o.Option()))
	h := server.NewStreamableHTTPServer(s, quietHTTP)
	const sessions = 6
	clients := make([]*client.Client, sessions)
	for i := range clients {
		clients[i] = startClient(t, httpClient(t, h, []client.ClientOption{client.WithProtocolVersion("2025-11-25")}))
	}
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() {
			callTool(t, c, "write", wiretest.NoContent)
			if i%2 == 0 {
				callTool(t, c, "write", wiretest.GoodWrite)
			}
		})
	}
	wg.Wait()
	if got := o.List(); !slices.Equal(got, slices.Repeat([]string{"write repaired 1"}, sessions/2)) {
		t.Errorf("outcomes %q", got)
	}
	o.Wait(time.Minute)
	callTool(t, clients[0], "read", wiretest.GoodWrite) // any call finds the answers past the bound
	if got := o.List(); !slices.Equal(got, append(slices.Repeat([]string{"write repaired 1"}, sessions/2), slices.Repeat([]string{"write abandoned 1"}, sessions/2)...)) {
		t.Errorf("outcomes %q", got)
	}
}

// A request of a stateless revision (2026-07-28) belongs to no session:
// nothing ties a call to the next, and nothing is followed.
func TestOutcomesStateless(t *testing.T) {
	var o wiretest.Outcomes
	h := server.NewStreamableHTTPServer(outcomeServer("AddTool", mcpgo.OptionOf(o.Option())), quietHTTP)
	c := httpClient(t, h, nil)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	res, err := c.Initialize(context.Background(), init)
	if err != nil {
		t.Fatal(err)
	}
	if res.ProtocolVersion != "2026-07-28" {
		t.Fatalf("revision %s", res.ProtocolVersion)
	}
	callTool(t, c, "write", wiretest.NoContent)
	callTool(t, c, "write", wiretest.GoodWrite)
	o.Wait(time.Hour)
	callTool(t, c, "write", wiretest.GoodWrite)
	if got := o.List(); got != nil {
		t.Errorf("outcomes %q of stateless requests", got)
	}
}
