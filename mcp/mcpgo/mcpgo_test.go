package mcpgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/mcp/mcpgo"
)

func text(res *mcp.CallToolResult) string {
	return res.Content[0].(mcp.TextContent).Text
}

// Malformed JSON cannot come through a transport (the request would not
// parse); a Go caller can still hand the handler raw bytes.
func TestHandlerMalformedArguments(t *testing.T) {
	h, err := mcpgo.Handler(mcp.NewTool("t", mcp.WithString("a", mcp.Required())),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			t.Fatal("handler called")
			return nil, nil
		}, mcpgo.WithEngine(selfheal.New(selfheal.WithExamples(false))))
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{`{"a": `, `{"a": "x"} trailing`} {
		req := mcp.CallToolRequest{}
		req.Params.Name = "t"
		req.Params.Arguments = json.RawMessage(raw)
		res, err := h(context.Background(), req)
		if err != nil || !res.IsError || !strings.Contains(text(res), `<field name="(root)">`) {
			t.Errorf("%s: %v %+v", raw, err, res)
		}
	}
}

func TestBadSchema(t *testing.T) {
	bad := mcp.NewToolWithRawSchema("bad", "", json.RawMessage(`{"type": "object", "properties": {"a": {"minLength": "two"}}}`))
	noop := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
	if _, err := mcpgo.Handler(bad, noop); err == nil || !strings.Contains(err.Error(), "input schema") {
		t.Errorf("Handler: %v", err)
	}
	defer func() {
		if v := recover(); v == nil || !strings.Contains(v.(string), `mcpgo.AddTool: tool "bad"`) {
			t.Errorf("AddTool panicked with %v", v)
		}
	}()
	mcpgo.AddTool(server.NewMCPServer("s", "1"), bad, noop)
}

func TestDetectInputSchemaValidation(t *testing.T) {
	on := server.NewMCPServer("s", "1", server.WithInputSchemaValidation())
	off := server.NewMCPServer("s", "1")
	if v, known := mcpgo.InputSchemaValidation(on); !v || !known {
		t.Errorf("on: %v %v", v, known)
	}
	if v, known := mcpgo.InputSchemaValidation(off); v || !known {
		t.Errorf("off: %v %v", v, known)
	}
	if err := mcpgo.Check(off); err != nil {
		t.Errorf("Check(off) = %v", err)
	}
	if err := mcpgo.Check(on); !errors.Is(err, mcpgo.ErrInputSchemaValidation) {
		t.Errorf("Check(on) = %v", err)
	}
	var log bytes.Buffer
	mcpgo.AddTool(on, mcp.NewTool("t"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}, mcpgo.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	if !strings.Contains(log.String(), "WithInputSchemaValidation is on") {
		t.Errorf("AddTool logged %q", log.String())
	}
	// A schema that does not compile, registered directly, is found too.
	off.AddTool(mcp.NewToolWithRawSchema("bad", "", json.RawMessage(`{"type": 5}`)), nil)
	if err := mcpgo.Check(off); err == nil || !strings.Contains(err.Error(), `tool "bad"`) {
		t.Errorf("Check with a bad schema = %v", err)
	}
}

func inProcess(t *testing.T, s *server.MCPServer) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}

func call(t *testing.T, c *client.Client, name, args string, meta map[string]any) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	if args != "" {
		req.Params.Arguments = json.RawMessage(args)
	}
	if meta != nil {
		req.Params.Meta = &mcp.Meta{AdditionalFields: meta}
	}
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestMiddleware(t *testing.T) {
	var log bytes.Buffer
	s := server.NewMCPServer("s", "1")
	s.Use(mcpgo.Middleware(mcpgo.WithEngine(selfheal.New(selfheal.WithExamples(false))), mcpgo.WithLogger(slog.New(slog.NewTextHandler(&log, nil)))))
	calls := 0
	s.AddTool(mcp.NewTool("users.get", mcp.WithString("id", mcp.Required(), mcp.MinLength(3))),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls++
			if req.GetString("id", "") == "boom" {
				return nil, errors.New("raw failure")
			}
			return mcp.NewToolResultText("ok"), nil
		})
	out := mcp.NewTool("users.out", mcp.WithNumber("n", mcp.Required()),
		mcp.WithOutputSchema[struct {
			N int `json:"n"`
		}]())
	s.AddTool(out, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	c := inProcess(t, s)

	res := call(t, c, "users.get", `{"id": "x"}`, nil)
	want := `<validation_error action="users.get">
  <field name="id">You sent: 'x' (1 character). Expected at least 3 characters.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`
	if !res.IsError || text(res) != want || len(res.RawStructuredContent) == 0 {
		t.Errorf("invalid call:\n%s\n%s", text(res), res.RawStructuredContent)
	}
	if res := call(t, c, "users.get", `{"id": "abc"}`, nil); res.IsError || text(res) != "ok" {
		t.Errorf("valid call: %+v", res)
	}
	if res := call(t, c, "users.get", `{"id": "boom"}`, nil); !res.IsError || !strings.Contains(text(res), `code="INTERNAL_ERROR"`) || strings.Contains(text(res), "raw failure") {
		t.Errorf("failing call: %+v", res)
	}
	if !strings.Contains(log.String(), "raw failure") {
		t.Errorf("not logged: %s", log.String())
	}
	if calls != 2 {
		t.Errorf("handler ran %d times, want 2", calls)
	}

	// A tool with an output schema: the issues go in _meta, not in
	// structuredContent, which clients check against the output schema.
	res = call(t, c, "users.out", `{"n": "1"}`, nil)
	if !res.IsError || len(res.RawStructuredContent) != 0 || res.Meta == nil || res.Meta.AdditionalFields["selfheal/issues"] == nil {
		t.Errorf("output-schema tool: %+v", res)
	}

	// The client's language, from _meta.
	res = call(t, c, "users.get", `{}`, map[string]any{"selfheal/locale": "ja"})
	if !res.IsError || !strings.Contains(text(res), `<field name="id">`) || text(res) == want {
		t.Errorf("ja: %s", text(res))
	}
	t.Logf("ja:\n%s", text(res))

	// Registered again with another schema: compiled again.
	s.AddTool(mcp.NewTool("users.get", mcp.WithString("id", mcp.Required(), mcp.MinLength(1))),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("v2"), nil
		})
	if res := call(t, c, "users.get", `{"id": "x"}`, nil); res.IsError || text(res) != "v2" {
		t.Errorf("after re-registration: %s", text(res))
	}
}

// Invalid arguments are decoded again with exact numbers only when the wire
// JSON holds a number outside its strings.
func TestHasNumber(t *testing.T) {
	for _, tc := range []struct {
		json string
		want bool
	}{
		{`{}`, false},
		{`{"name": "A", "age": "36", "ok": true, "x": null, "l": ["-1"]}`, false},
		{`{"a\"1": "b\\", "c": "-"}`, false},
		{`{"age": 36}`, true},
		{`{"n": -0.5}`, true},
		{`[1e400]`, true},
		{`{"s": "\"", "n": 9007199254740993}`, true},
		{``, false},
	} {
		if got := mcpgo.HasNumber([]byte(tc.json)); got != tc.want {
			t.Errorf("hasNumber(%s) = %v, want %v", tc.json, got, tc.want)
		}
	}
}
