package mcpgo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/mcpgo"
)

// Middleware honours the guards as AddTool does: WithGuard bounds every
// tool, WithGuard with a name one tool (over WithGuard without); a call beyond the limit
// gets the guard's tool_error and the handler does not run, unless its
// arguments are invalid: it is then told what to fix.
func TestMiddlewareGuards(t *testing.T) {
	hourly := guard.New(guard.Limits{Rate: 1.0 / 3600, Burst: 1})
	busy := guard.New(guard.Limits{MaxActive: 1, MaxQueued: guard.NoQueue})
	s := server.NewMCPServer("s", "1")
	s.Use(mcpgo.Middleware(mcpgo.WithGuard(hourly), mcpgo.WithGuard(busy, "slow")))
	searches := 0
	s.AddTool(mcp.NewTool("search", mcp.WithString("query", mcp.Required())),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			searches++
			return mcp.NewToolResultText("ok"), nil
		})
	entered, finish := make(chan struct{}), make(chan struct{})
	s.AddTool(mcp.NewTool("slow"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		entered <- struct{}{}
		<-finish
		return mcp.NewToolResultText("done"), nil
	})
	c := inProcess(t, s)

	if res := call(t, c, "search", `{"query": "go"}`, nil); res.IsError {
		t.Fatalf("first call: %s", text(res))
	}
	res := call(t, c, "search", `{"query": "go"}`, nil)
	if !res.IsError || !strings.Contains(text(res), `code="RATE_LIMITED"`) {
		t.Errorf("second call, beyond the rate: isError %v\n%s", res.IsError, text(res))
	}
	res = call(t, c, "search", `{"query": 1}`, nil)
	if !res.IsError || !strings.HasPrefix(text(res), `<validation_error action="search">`) {
		t.Errorf("invalid call beyond the rate: isError %v\n%s", res.IsError, text(res))
	}
	if searches != 1 {
		t.Errorf("the handler ran %d times, want 1", searches)
	}

	// slow has a guard of its own: one call at a time, whatever the rate.
	done := make(chan string)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "slow"
		res, err := c.CallTool(context.Background(), req)
		if err != nil {
			done <- err.Error()
			return
		}
		done <- text(res)
	}()
	<-entered
	res = call(t, c, "slow", `{}`, nil)
	if !res.IsError || !strings.Contains(text(res), `code="SERVER_BUSY"`) {
		t.Errorf("second concurrent call: isError %v\n%s", res.IsError, text(res))
	}
	close(finish)
	if got := <-done; got != "done" {
		t.Errorf("first call: %s", got)
	}
}
