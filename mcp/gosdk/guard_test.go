package gosdk_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/mcp/gosdk"
	"github.com/selfheal/selfheal/mcp/guard"
)

// Middleware honours the guards as AddTool does: WithGuard bounds every
// tool, WithGuard with a name one tool (over WithGuard without); a call beyond the limit
// gets the guard's tool_error and the handler does not run, unless its
// arguments are invalid: it is then told what to fix.
func TestMiddlewareGuards(t *testing.T) {
	hourly := guard.New(guard.Limits{Rate: 1.0 / 3600, Burst: 1})
	busy := guard.New(guard.Limits{MaxActive: 1, MaxQueued: guard.NoQueue})
	s := newServer()
	s.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithGuard(hourly), gosdk.WithGuard(busy, "slow")))
	searches := 0
	mcp.AddTool(s, &mcp.Tool{Name: "search"}, func(ctx context.Context, req *mcp.CallToolRequest, in Search) (*mcp.CallToolResult, Hits, error) {
		searches++
		return search(ctx, req, in)
	})
	entered, finish := make(chan struct{}), make(chan struct{})
	mcp.AddTool(s, &mcp.Tool{Name: "slow"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		entered <- struct{}{}
		<-finish
		return nil, nil, nil
	})
	cs := connect(t, s)
	ctx := context.Background()
	callTool := func(cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res, text(t, res)
	}

	if res, got := callTool(cs, "search", map[string]any{"query": "go"}); res.IsError {
		t.Fatalf("first call: %s", got)
	}
	res, got := callTool(cs, "search", map[string]any{"query": "go"})
	if !res.IsError || !strings.Contains(got, `code="RATE_LIMITED"`) {
		t.Errorf("second call, beyond the rate: isError %v\n%s", res.IsError, got)
	}
	res, got = callTool(cs, "search", map[string]any{"query": 1})
	if !res.IsError || !strings.HasPrefix(got, `<validation_error action="search">`) {
		t.Errorf("invalid call beyond the rate: isError %v\n%s", res.IsError, got)
	}
	if searches != 1 {
		t.Errorf("the handler ran %d times, want 1", searches)
	}

	// slow has a guard of its own: one call at a time, whatever the rate.
	done := make(chan string)
	other := connect(t, s)
	go func() {
		res, err := other.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
		if err != nil {
			done <- err.Error()
			return
		}
		done <- text(t, res)
	}()
	<-entered
	res, got = callTool(cs, "slow", map[string]any{})
	if !res.IsError || !strings.Contains(got, `code="SERVER_BUSY"`) {
		t.Errorf("second concurrent call: isError %v\n%s", res.IsError, got)
	}
	close(finish)
	if got := <-done; strings.Contains(got, "tool_error") {
		t.Errorf("first call: %s", got)
	}
}

// AddTool's guard: WithGuard with a name applies to the tool of that name, over
// WithGuard, as with Middleware.
func TestAddToolGuard(t *testing.T) {
	hourly := guard.New(guard.Limits{Rate: 1.0 / 3600, Burst: 1})
	s := newServer()
	gosdk.AddTool(s, &mcp.Tool{Name: "search"}, search, gosdk.WithGuard(guard.New(guard.Limits{})), gosdk.WithGuard(hourly, "search"))
	cs := connect(t, s)
	for i, want := range []string{`{"hits":["q=go"],"limit":0}`, `code="RATE_LIMITED"`} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "go"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := text(t, res); !strings.Contains(got, want) {
			t.Errorf("call %d: %s, want %s", i, got, want)
		}
	}
}
