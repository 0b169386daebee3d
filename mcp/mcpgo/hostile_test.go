package mcpgo_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/selfheal/selfheal/internal/testkit/hostile"
	"github.com/selfheal/selfheal/mcp/mcpgo"
)

// TestHostileArguments sends the shared hostile table through an mcp-go
// client to a tool registered with mcpgo.AddTool: every call is answered
// with a bounded validation_error and bounded structured issues, the
// handler never runs, and the session goes on. mcp-go reads messages with
// encoding/json, which refuses nesting past 10,000 levels, and decodes
// numbers as float64, so that 1e1000000 fails the whole request: the cases
// that no mcp-go session delivers go to the handler directly.
func TestHostileArguments(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 10 MiB arguments")
	}
	s := server.NewMCPServer("s", "1")
	calls := 0
	tool := mcp.NewToolWithRawSchema("tool", "", json.RawMessage(hostile.Schema))
	handler := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls++
		return mcp.NewToolResultText("ran"), nil
	}
	mcpgo.AddTool(s, tool, handler)
	direct, err := mcpgo.Handler(tool, handler)
	if err != nil {
		t.Fatal(err)
	}
	c := inProcess(t, s)
	for _, tc := range hostile.Cases() {
		var res *mcp.CallToolResult
		if tc.Depth+2 > 10000 || tc.Overflow { // the message and its params hold the arguments
			req := mcp.CallToolRequest{}
			req.Params.Name, req.Params.Arguments = "tool", json.RawMessage(tc.Args)
			if res, err = direct(context.Background(), req); err != nil {
				t.Fatalf("%s: %v", tc.Name, err)
			}
		} else {
			res = call(t, c, "tool", string(tc.Args), nil)
		}
		hostile.CheckResult(t, tc, text(res), res.IsError, res.StructuredContent)
	}
	if calls != 0 {
		t.Errorf("the handler ran %d times", calls)
	}
	if res := call(t, c, "tool", `{"name":"Ada"}`, nil); res.IsError || text(res) != "ran" {
		t.Errorf("after the hostile calls: %s", text(res))
	}
}
