package gosdk_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/internal/testkit/hostile"
	"github.com/selfheal/selfheal/mcp/gosdk"
)

// TestHostileArguments sends the shared hostile table through a go-sdk
// session to a tool registered with gosdk.AddTool: every call is answered
// with a bounded validation_error (the default 4 KiB budget plus the
// envelope and one always-shown line), bounded structured issues, and the
// session goes on. Cases deeper than go-sdk's own limit of 1000 levels per
// message never reach a handler through a session (go-sdk ends it): they
// are sent to the handler directly.
func TestHostileArguments(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 10 MiB arguments")
	}
	s := newServer()
	tool := &mcp.Tool{Name: "tool", InputSchema: json.RawMessage(hostile.Schema)}
	calls := 0
	handler := func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		calls++
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
	}
	gosdk.AddTool(s, tool, handler)
	_, direct, err := gosdk.Handler(tool, handler)
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	ctx := context.Background()
	for _, tc := range hostile.Cases() {
		var res *mcp.CallToolResult
		if tc.Depth+2 > 1000 { // the message and its params hold the arguments
			res, err = direct(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "tool", Arguments: tc.Args}})
		} else {
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "tool", Arguments: json.RawMessage(tc.Args)})
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.Name, err)
		}
		hostile.CheckResult(t, tc, text(t, res), res.IsError, res.StructuredContent)
	}
	if calls != 0 {
		t.Errorf("the handler ran %d times", calls)
	}
	// The session still serves.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tool", Arguments: map[string]any{"name": "Ada"}})
	if err != nil || res.IsError || text(t, res) != "ran" {
		t.Errorf("after the hostile calls: %v %v", err, res)
	}
}
