package mcpgo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/selfheal/selfheal/mcp/internal/repair"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
	"github.com/selfheal/selfheal/mcp/mcpgo"
)

// outcomes collects WithOutcomes' reports, on a clock the test moves.
type outcomes struct {
	mu  sync.Mutex
	got []string
	now time.Time
}

func (o *outcomes) report(r mcpgo.Outcome) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, fmt.Sprintf("%s %s %d", r.Tool, r.Outcome, r.Attempt))
}

func (o *outcomes) clock() time.Time { o.mu.Lock(); defer o.mu.Unlock(); return o.now }

func (o *outcomes) wait(d time.Duration) { o.mu.Lock(); o.now = o.now.Add(d); o.mu.Unlock() }

func (o *outcomes) list() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.got)
}

// option is WithOutcomes with the test's clock and a bound of a minute.
func (o *outcomes) option() mcpgo.Option {
	o.now = time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	tr := repair.New(o.report, repair.Limits{Within: time.Minute}, o.clock)
	return func(c *toolcall.Config) { c.Outcomes, c.Repairs = o.report, tr }
}

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

const (
	goodWrite = `{"path":"/a","content":"x"}`
	noContent = `{"path":"/a"}`
	badPath   = `{"path":1,"content":"x"}`
)

// A real client session (mcp-go's, in process) through AddTool and
// through Middleware: every way an answer settles.
func TestOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls []string // "tool args", or "wait": the clock moves past the bound
		want  []string
	}{
		{"bad then good: repaired", []string{"write " + noContent, "write " + goodWrite}, []string{"write repaired 1"}},
		{"bad, bad on the same field, good", []string{"write " + noContent, "write " + noContent, "write " + goodWrite},
			[]string{"write failed_same 1", "write repaired 2"}},
		{"bad, bad on another field", []string{"write " + noContent, "write " + badPath}, []string{"write failed_other 1"}},
		{"interleaved tools", []string{"write " + noContent, "read " + noContent, "read " + goodWrite, "write " + goodWrite},
			[]string{"read repaired 1", "write repaired 1"}},
		{"bad then silence: abandoned at the bound", []string{"write " + noContent, "wait", "read " + goodWrite, "write " + goodWrite},
			[]string{"write abandoned 1"}},
	} {
		for _, via := range []string{"AddTool", "Middleware"} {
			t.Run(tc.name+" via "+via, func(t *testing.T) {
				var o outcomes
				c, err := client.NewInProcessClient(outcomeServer(via, o.option()))
				if err != nil {
					t.Fatal(err)
				}
				startClient(t, c)
				for _, step := range tc.calls {
					if step == "wait" {
						o.wait(time.Minute)
						continue
					}
					tool, args, _ := strings.Cut(step, " ")
					if answered := callTool(t, c, tool, args); answered != (args != goodWrite) {
						t.Fatalf("%s: answered %v", step, answered)
					}
				}
				if got := o.list(); !slices.Equal(got, tc.want) {
					t.Errorf("outcomes %q, want %q", got, tc.want)
				}
			})
		}
	}
}

// Concurrent sessions over Streamable HTTP (each with its Mcp-Session-Id,
// revision 2025-11-25): each settles its own answers, never another's.
func TestOutcomesConcurrentSessions(t *testing.T) {
	var o outcomes
	s := outcomeServer("AddTool", o.option())
	h := server.NewStreamableHTTPServer(s, quietHTTP)
	const sessions = 6
	clients := make([]*client.Client, sessions)
	for i := range clients {
		clients[i] = startClient(t, httpClient(t, h, []client.ClientOption{client.WithProtocolVersion("2025-11-25")}))
	}
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() {
			callTool(t, c, "write", noContent)
			if i%2 == 0 {
				callTool(t, c, "write", goodWrite)
			}
		})
	}
	wg.Wait()
	if got := o.list(); !slices.Equal(got, slices.Repeat([]string{"write repaired 1"}, sessions/2)) {
		t.Errorf("outcomes %q", got)
	}
	o.wait(time.Minute)
	callTool(t, clients[0], "read", goodWrite) // any call finds the answers past the bound
	if got := o.list(); !slices.Equal(got, append(slices.Repeat([]string{"write repaired 1"}, sessions/2), slices.Repeat([]string{"write abandoned 1"}, sessions/2)...)) {
		t.Errorf("outcomes %q", got)
	}
}

// A request of a stateless revision (2026-07-28) belongs to no session:
// nothing ties a call to the next, and nothing is followed.
func TestOutcomesStateless(t *testing.T) {
	var o outcomes
	h := server.NewStreamableHTTPServer(outcomeServer("AddTool", o.option()), quietHTTP)
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
	callTool(t, c, "write", noContent)
	callTool(t, c, "write", goodWrite)
	o.wait(time.Hour)
	callTool(t, c, "write", goodWrite)
	if got := o.list(); got != nil {
		t.Errorf("outcomes %q of stateless requests", got)
	}
}
