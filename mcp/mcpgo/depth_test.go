package mcpgo_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
	"github.com/selfheal/selfheal/mcp/mcpgo"
)

// deepIssues checks that res refuses the arguments for their depth: isError,
// one field line, a small text, and exactly one issue (too_big, origin
// depth, maximum max) in the structured form.
func deepIssues(t *testing.T, res *mcp.CallToolResult, max string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("isError false: %s", text(res))
	}
	got := text(res)
	if len(got) >= 4096 || strings.Count(got, "<field ") != 1 || !strings.Contains(got, "Nested too deeply.") {
		t.Fatalf("text of %d bytes:\n%s", len(got), got)
	}
	data := []byte(res.RawStructuredContent)
	if len(data) == 0 && res.StructuredContent != nil {
		data, _ = json.Marshal(res.StructuredContent)
	}
	var body struct {
		Issues []struct {
			Code, Origin string
			Maximum      json.Number
		}
	}
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	if len(body.Issues) != 1 {
		t.Fatalf("%d issues: %s", len(body.Issues), data)
	}
	if is := body.Issues[0]; is.Code != "too_big" || is.Origin != "depth" || string(is.Maximum) != max {
		t.Fatalf("issue %s", data)
	}
}

// A 10,000-deep argument handed to the handler by a Go caller, decoded or
// raw, is refused without validation; the handler is not called.
func TestDeepArgumentsDirect(t *testing.T) {
	h, err := mcpgo.Handler(mcp.NewTool("deep"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		t.Fatal("handler called")
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args any
		raw  json.RawMessage
	}{
		{"decoded with raw", jsonschematest.Nested(10000), jsonschematest.NestedJSON(10000)},
		{"decoded only", jsonschematest.Nested(10000), nil},
		{"raw only", json.RawMessage(jsonschematest.NestedJSON(10000)), nil},
		{"100000 deep, raw", json.RawMessage(jsonschematest.NestedJSON(100000)), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := mcp.CallToolRequest{}
			req.Params.Name = "deep"
			req.Params.Arguments = tc.args
			req.Params.RawArguments = tc.raw
			res, err := h(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			deepIssues(t, res, "64")
		})
	}
}

// Through a session: arguments at the limit are served, deeper ones
// refused (up to what mcp-go's decoder accepts), and the session goes on.
func TestDeepArgumentsSession(t *testing.T) {
	s := server.NewMCPServer("s", "1")
	calls := 0
	ran := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls++
		return mcp.NewToolResultText("ran"), nil
	}
	mcpgo.AddTool(s, mcp.NewTool("free"), ran)
	mcpgo.AddTool(s, mcp.NewTool("shallow"), ran, mcpgo.WithMaxDepth(3))
	mcpgo.AddTool(s, mcp.NewTool("unbounded"), ran, mcpgo.WithMaxDepth(-1))
	c := inProcess(t, s)
	for _, tc := range []struct {
		tool  string
		depth int
		max   string // "" when served
	}{
		{"free", 64, ""},
		{"free", 65, "64"},
		{"free", 9990, "64"}, // encoding/json, mcp-go's decoder, allows 10,000 for the message
		{"free", 2, ""},      // the session goes on
		{"shallow", 3, ""},
		{"shallow", 4, "3"},
		{"unbounded", 200, ""},
	} {
		res := call(t, c, tc.tool, string(jsonschematest.NestedJSON(tc.depth)), nil)
		if tc.max == "" {
			if res.IsError || text(res) != "ran" {
				t.Errorf("%s at %d: %s", tc.tool, tc.depth, text(res))
			}
			continue
		}
		deepIssues(t, res, tc.max)
	}
	if calls != 4 {
		t.Errorf("the handler ran %d times, want 4", calls)
	}
}

// The middleware refuses deep arguments for every tool of the server.
func TestDeepArgumentsMiddleware(t *testing.T) {
	s := server.NewMCPServer("s", "1")
	s.Use(mcpgo.Middleware())
	calls := 0
	s.AddTool(mcp.NewTool("free"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		calls++
		return mcp.NewToolResultText("ran"), nil
	})
	c := inProcess(t, s)
	deepIssues(t, call(t, c, "free", string(jsonschematest.NestedJSON(9990)), nil), "64")
	if res := call(t, c, "free", string(jsonschematest.NestedJSON(64)), nil); res.IsError {
		t.Errorf("at the limit: %s", text(res))
	}
	if calls != 1 {
		t.Errorf("the handler ran %d times, want 1", calls)
	}
}
