package gosdk_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/mcp/gosdk"
	"github.com/selfheal/selfheal/mcp/internal/wiretest"
)

type Write struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func writeServer(opts ...gosdk.Option) *mcp.Server {
	s := newServer()
	h := func(context.Context, *mcp.CallToolRequest, Write) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	}
	gosdk.AddTool(s, &mcp.Tool{Name: "write"}, h, opts...)
	gosdk.AddTool(s, &mcp.Tool{Name: "read"}, h, opts...)
	return s
}

// callTool calls a tool and says whether selfheal answered it.
func callTool(t *testing.T, cs *mcp.ClientSession, tool, args string) bool {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	return res.IsError
}

// A real client session (go-sdk's, in memory) through AddTool and
// through Middleware: every way an answer settles.
func TestOutcomes(t *testing.T) {
	for _, tc := range wiretest.OutcomeCases {
		for _, via := range []string{"AddTool", "Middleware"} {
			t.Run(tc.Name+" via "+via, func(t *testing.T) {
				var o wiretest.Outcomes
				opt := gosdk.OptionOf(o.Option())
				var s *mcp.Server
				if via == "AddTool" {
					s = writeServer(opt)
				} else {
					s = newServer()
					h := func(context.Context, *mcp.CallToolRequest, Write) (*mcp.CallToolResult, any, error) {
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
					}
					mcp.AddTool(s, &mcp.Tool{Name: "write"}, h)
					mcp.AddTool(s, &mcp.Tool{Name: "read"}, h)
					s.AddReceivingMiddleware(gosdk.Middleware(opt))
				}
				cs := connect(t, s)
				for _, c := range tc.Calls {
					if c == "wait" {
						o.Wait(time.Minute)
						continue
					}
					tool, args, _ := strings.Cut(c, " ")
					if answered := callTool(t, cs, tool, args); answered != (args != wiretest.GoodWrite) {
						t.Fatalf("%s: answered %v", c, answered)
					}
				}
				if got := o.List(); !slices.Equal(got, tc.Want) {
					t.Errorf("outcomes %q, want %q", got, tc.Want)
				}
			})
		}
	}
}

// Concurrent sessions over Streamable HTTP (each with its Mcp-Session-Id):
// each settles its own answers, never another's. go-sdk says nothing when
// a session ends: the answers left are abandoned at the bound.
func TestOutcomesConcurrentSessions(t *testing.T) {
	var o wiretest.Outcomes
	s := writeServer(gosdk.OptionOf(o.Option()))
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer hs.Close()
	const sessions = 6
	var wg sync.WaitGroup
	for i := range sessions {
		wg.Go(func() {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
			if err != nil {
				t.Error(err)
				return
			}
			defer cs.Close()
			callTool(t, cs, "write", wiretest.NoContent)
			if i%2 == 0 {
				callTool(t, cs, "write", wiretest.GoodWrite)
			}
		})
	}
	wg.Wait()
	if got := o.List(); !slices.Equal(got, slices.Repeat([]string{"write repaired 1"}, sessions/2)) {
		t.Errorf("outcomes %q", got)
	}
	o.Wait(time.Minute)
	cs := connect(t, s)
	callTool(t, cs, "read", wiretest.GoodWrite) // any call finds the answers past the bound
	if got := o.List(); !slices.Equal(got, append(slices.Repeat([]string{"write repaired 1"}, sessions/2), slices.Repeat([]string{"write abandoned 1"}, sessions/2)...)) {
		t.Errorf("outcomes %q", got)
	}
}

// A valid call costs nothing more with WithOutcomes: no allocation beyond
// the handler's, nothing pending in its session.
func TestOutcomesValidCallAllocs(t *testing.T) {
	var o wiretest.Outcomes
	_, with, err := gosdk.Handler(&mcp.Tool{Name: "write"}, func(context.Context, *mcp.CallToolRequest, Write) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	}, gosdk.OptionOf(o.Option()))
	if err != nil {
		t.Fatal(err)
	}
	_, without, err := gosdk.Handler(&mcp.Tool{Name: "write"}, func(context.Context, *mcp.CallToolRequest, Write) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "write", Arguments: json.RawMessage(wiretest.GoodWrite)}}
	a := testing.AllocsPerRun(100, func() { with(context.Background(), req) })
	b := testing.AllocsPerRun(100, func() { without(context.Background(), req) })
	if a != b {
		t.Errorf("a valid call allocates %v times with WithOutcomes, %v without", a, b)
	}
}

// Over stateless HTTP no session ties a request to the next: nothing is
// followed (in memory or over stdio, the connection is the session, in
// every revision: see TestOutcomes).
func TestOutcomesStatelessHTTP(t *testing.T) {
	var o wiretest.Outcomes
	s := writeServer(gosdk.OptionOf(o.Option()))
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	defer hs.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	callTool(t, cs, "write", wiretest.NoContent)
	callTool(t, cs, "write", wiretest.GoodWrite)
	o.Wait(time.Hour)
	callTool(t, cs, "write", wiretest.GoodWrite)
	if got := o.List(); got != nil {
		t.Errorf("outcomes %q over stateless HTTP", got)
	}
}
