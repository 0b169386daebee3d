package gosdk_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
	"github.com/selfheal/selfheal/mcp/gosdk"
)

// deepIssues checks that res refuses the arguments for their depth: isError,
// one field line, a small text, and exactly one issue (too_big, origin
// depth, maximum max) in the structured form.
func deepIssues(t *testing.T, res *mcp.CallToolResult, max string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("isError false: %s", text(t, res))
	}
	got := text(t, res)
	if len(got) >= 4096 || strings.Count(got, "<field ") != 1 || !strings.Contains(got, "Nested too deeply.") {
		t.Fatalf("text of %d bytes:\n%s", len(got), got)
	}
	var structured any = res.StructuredContent
	if res.Meta != nil && res.Meta["selfheal/issues"] != nil {
		structured = res.Meta["selfheal/issues"]
	}
	data, _ := json.Marshal(structured)
	var body struct {
		Issues []struct {
			Code, Origin string
			Maximum      json.Number
			Path         []any
		}
	}
	if err := json.Unmarshal(data, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Issues) != 1 {
		t.Fatalf("%d issues: %s", len(body.Issues), data)
	}
	if is := body.Issues[0]; is.Code != "too_big" || is.Origin != "depth" || string(is.Maximum) != max {
		t.Fatalf("issue %s", data)
	}
}

// A 10,000-deep argument, which no go-sdk session delivers (go-sdk refuses
// messages deeper than 1000), reaches a handler called directly: it is
// refused from its bytes, the handler not called.
func TestDeepArgumentsDirect(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema any
	}{
		{"inferred schema", nil},
		{"given schema", json.RawMessage(`{"type":"object"}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := &mcp.Tool{Name: "deep", InputSchema: tc.schema}
			_, h, err := gosdk.Handler(tool, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
				t.Fatal("handler called")
				return nil, nil, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "deep",
				Arguments: jsonschematest.NestedJSON(10000)}})
			if err != nil {
				t.Fatal(err)
			}
			deepIssues(t, res, "64")
		})
	}
}

// Through a session, arguments at the limit are served, one level deeper
// refused, and the session goes on.
func TestDeepArgumentsSession(t *testing.T) {
	s := newServer()
	calls := 0
	gosdk.AddTool(s, &mcp.Tool{Name: "free"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		calls++
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
	})
	gosdk.AddTool(s, &mcp.Tool{Name: "shallow"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
	}, gosdk.WithMaxDepth(3))
	gosdk.AddTool(s, &mcp.Tool{Name: "unbounded"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
	}, gosdk.WithMaxDepth(-1))
	cs := connect(t, s)
	ctx := context.Background()
	callRaw := func(name string, args []byte) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	for _, tc := range []struct {
		tool  string
		depth int
		max   string // "" when served
	}{
		{"free", 64, ""},
		{"free", 65, "64"},
		{"free", 900, "64"}, // within go-sdk's 1000 for the whole message
		{"free", 2, ""},     // the session goes on
		{"shallow", 3, ""},
		{"shallow", 4, "3"},
		{"unbounded", 900, ""},
	} {
		res := callRaw(tc.tool, jsonschematest.NestedJSON(tc.depth))
		if tc.max == "" {
			if res.IsError || text(t, res) != "ran" {
				t.Errorf("%s at %d: %s", tc.tool, tc.depth, text(t, res))
			}
			continue
		}
		deepIssues(t, res, tc.max)
	}
	if calls != 2 {
		t.Errorf("the handler ran %d times, want 2", calls)
	}
}

// The middleware refuses deep arguments before go-sdk validates them, for
// a tool registered with mcp.AddTool.
func TestDeepArgumentsMiddleware(t *testing.T) {
	s := newServer()
	s.AddReceivingMiddleware(gosdk.Middleware())
	calls := 0
	mcp.AddTool(s, &mcp.Tool{Name: "free"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		calls++
		return nil, nil, nil
	})
	cs := connect(t, s)
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "free", Arguments: json.RawMessage(jsonschematest.NestedJSON(900))})
	if err != nil {
		t.Fatal(err)
	}
	deepIssues(t, res, "64")
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "free", Arguments: json.RawMessage(jsonschematest.NestedJSON(64))})
	if err != nil || res.IsError {
		t.Fatalf("at the limit: %v %+v", err, res)
	}
	if calls != 1 {
		t.Errorf("the handler ran %d times, want 1", calls)
	}
}
