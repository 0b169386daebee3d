package gosdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/gosdk"
)

type Search struct {
	Query string   `json:"query"`
	Limit int      `json:"limit,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

type Hits struct {
	Hits  []string `json:"hits"`
	Limit int      `json:"limit"`
}

func search(_ context.Context, _ *mcp.CallToolRequest, in Search) (*mcp.CallToolResult, Hits, error) {
	return nil, Hits{Hits: []string{"q=" + in.Query}, Limit: in.Limit}, nil
}

// connect serves s in memory and returns a go-sdk client session.
func connect(t testing.TB, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func newServer() *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for i, c := range res.Content {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(c.(*mcp.TextContent).Text)
	}
	return b.String()
}

// tools/list shows the same tool whichever AddTool registered it.
func TestAdvertisesWhatMCPAddToolAdvertises(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","minLength":1}},"required":["query"]}`)
	for _, tool := range []*mcp.Tool{
		{Name: "search", Description: "inferred"},
		{Name: "search", Description: "given", InputSchema: raw},
	} {
		sdk, ours := newServer(), newServer()
		mcp.AddTool(sdk, tool, search)
		gosdk.AddTool(ours, tool, search)
		a, err := connect(t, sdk).ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := connect(t, ours).ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(a.Tools)
		jb, _ := json.Marshal(b.Tools)
		if !bytes.Equal(ja, jb) {
			t.Errorf("%s:\nmcp.AddTool:   %s\ngosdk.AddTool: %s", tool.Description, ja, jb)
		}
	}
}

func TestValidAndInvalid(t *testing.T) {
	s := newServer()
	calls := 0
	gosdk.AddTool(s, &mcp.Tool{Name: "search", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"query":{"type":"string","minLength":1},"limit":{"type":"integer","default":10,"maximum":50},"tags":{"type":"array","items":{"type":"string"}}},"required":["query"],"additionalProperties":false}`)},
		func(ctx context.Context, req *mcp.CallToolRequest, in Search) (*mcp.CallToolResult, Hits, error) {
			calls++
			return search(ctx, req, in)
		})
	cs := connect(t, s)
	ctx := context.Background()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "go"}})
	if err != nil {
		t.Fatal(err)
	}
	// The default limit is applied, as go-sdk applies it.
	if got, want := text(t, res), `{"hits":["q=go"],"limit":10}`; res.IsError || got != want {
		t.Errorf("valid call: isError %v, %s; want %s", res.IsError, got, want)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "", "limit": 99, "tags": []any{1}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `<validation_error action="search">
  <field name="limit">You sent: 99. Expected at most 50.</field>
  <field name="query">You sent: ''. Expected at least 1 character.</field>
  <field name="tags[0]">You sent: 1. Expected a string.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`
	if got := text(t, res); !res.IsError || got != want {
		t.Errorf("invalid call: isError %v\n%s\nwant\n%s", res.IsError, got, want)
	}
	if calls != 1 {
		t.Errorf("the handler ran %d times, want 1 (not for the invalid call)", calls)
	}
	// The issues are in _meta, since the tool has an output schema.
	data, _ := json.Marshal(res.Meta["selfheal/issues"])
	if got, want := string(data), `{"issues":[{"code":"too_big","inclusive":true,"maximum":50,"origin":"integer","path":["limit"],"source":"jsonschema:maximum"},{"code":"too_small","inclusive":true,"minimum":1,"origin":"string","path":["query"],"source":"jsonschema:minLength"},{"code":"invalid_type","expected":"string","path":["tags",0],"source":"jsonschema:type"}]}`; got != want {
		t.Errorf("_meta issues:\n%s\nwant\n%s", got, want)
	}
	if res.StructuredContent != nil {
		t.Errorf("structuredContent %v, want none (it must match the output schema)", res.StructuredContent)
	}
}

// Called directly, the handler sees what no go-sdk client sends: absent
// arguments and malformed JSON.
func TestArgumentsAsAWhole(t *testing.T) {
	_, h, err := gosdk.Handler(&mcp.Tool{Name: "search"}, func(context.Context, *mcp.CallToolRequest, Search) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, optional, err := gosdk.Handler(&mcp.Tool{Name: "ping"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		h    mcp.ToolHandler
		args json.RawMessage
		want string
	}{
		{"absent, nothing required", optional, nil, "pong"},
		{"absent", h, nil, `<validation_error action="search">
  <field name="(root)">You sent: nothing. Expected an object.</field>
  <field name="query">You sent: nothing. Expected a string.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`},
		{"malformed", h, json.RawMessage(`{"query": "go",}`), `<validation_error action="search">
  <field name="(root)">You sent: '{"query": "go",}'. Expected well-formed JSON, e.g. '{"a":1}'.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`},
		{"a number", h, json.RawMessage(`42`), `<validation_error action="search">
  <field name="(root)">You sent: 42. Expected an object.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`},
		{"valid", h, json.RawMessage(`{"query": "go"}`), "ran"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "x", Arguments: tc.args}})
			if err != nil {
				t.Fatal(err)
			}
			if got := text(t, res); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if res.IsError != strings.HasPrefix(tc.want, "<") {
				t.Errorf("isError %v", res.IsError)
			}
		})
	}
}

type Out struct {
	N int `json:"n"`
}

// Handler results: envelopes by severity, other errors and panics as
// INTERNAL_ERROR with the cause logged, a warning on a success.
func TestHandlerResults(t *testing.T) {
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	s := newServer()
	add := func(name string, h mcp.ToolHandlerFor[struct{}, any]) {
		gosdk.AddTool(s, &mcp.Tool{Name: name}, h, gosdk.WithLogger(logger))
	}
	add("envelope", func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, fmt.Errorf("lookup: %w", envelope.Error(envelope.NotFound, "No such order").Actions("orders.list"))
	})
	add("value", func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, envelope.ToolError{Code: envelope.Forbidden, Message: "Not yours", Severity: envelope.SeverityCritical}
	})
	add("plain", func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("dial tcp 10.0.0.7:5432: password=hunter2 rejected")
	})
	add("panic", func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		panic("index out of range [7] with length 3")
	})
	add("warning", func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "3 rows"}}}, nil,
			envelope.Error(envelope.Deprecated, "rows is deprecated").Warning()
	})
	gosdk.AddTool(s, &mcp.Tool{Name: "typed-warning"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, Out, error) {
		return nil, Out{N: 3}, envelope.Error(envelope.Deprecated, "Use count instead").Warning()
	})
	gosdk.AddTool(s, &mcp.Tool{Name: "bad-output", OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":5}}}`)},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, Out, error) {
			return nil, Out{N: 3}, nil
		}, gosdk.WithLogger(logger))
	cs := connect(t, s)
	internal := envelope.Wrap(nil).String()
	for _, tc := range []struct {
		tool    string
		isError bool
		want    string
	}{
		{"envelope", true, "<tool_error code=\"NOT_FOUND\" severity=\"error\">\n  <message>No such order</message>\n  <available_actions>\n    <action>orders.list</action>\n  </available_actions>\n</tool_error>"},
		{"value", true, "<tool_error code=\"FORBIDDEN\" severity=\"critical\">\n  <message>Not yours</message>\n</tool_error>"},
		{"plain", true, internal},
		{"panic", true, internal},
		{"bad-output", true, internal},
		{"warning", false, "3 rows\n<tool_error code=\"DEPRECATED\" severity=\"warning\">\n  <message>rows is deprecated</message>\n</tool_error>"},
		{"typed-warning", false, "{\"n\":3}\n<tool_error code=\"DEPRECATED\" severity=\"warning\">\n  <message>Use count instead</message>\n</tool_error>"},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		if got := text(t, res); res.IsError != tc.isError || got != tc.want {
			t.Errorf("%s: isError %v\n%s\nwant isError %v\n%s", tc.tool, res.IsError, got, tc.isError, tc.want)
		}
	}
	for _, want := range []string{"password=hunter2", "index out of range", "minimum", "tool=plain", "tool=panic"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
}

func TestMiddleware(t *testing.T) {
	var log bytes.Buffer
	s := newServer()
	s.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithLogger(slog.New(slog.NewTextHandler(&log, nil)))))
	mcp.AddTool(s, &mcp.Tool{Name: "search"}, search)
	mcp.AddTool(s, &mcp.Tool{Name: "free"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		return nil, nil, errors.New("upstream said no")
	})
	mcp.AddTool(s, &mcp.Tool{Name: "missing"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, envelope.Error(envelope.NotFound, "Nothing here").Suggest("Search first")
	})
	mcp.AddTool(s, &mcp.Tool{Name: "boom"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		var p *Out
		return nil, nil, fmt.Errorf("%d", p.N)
	})
	cs := connect(t, s)
	for _, tc := range []struct {
		tool    string
		args    any
		isError bool
		want    string
	}{
		{"search", map[string]any{"query": "go"}, false, `{"hits":["q=go"],"limit":0}`},
		{"search", map[string]any{"query": 1, "limit": "3", "extra": true}, true, `<validation_error action="search">
  <field name="(root)">Unknown key. You sent: 'extra'. Expected one of 'limit','query','tags'.</field>
  <field name="limit">You sent: '3'. Expected an integer: 3.</field>
  <field name="query">You sent: 1. Expected a string.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`},
		{"free", map[string]any{}, true, "upstream said no"}, // other errors keep go-sdk's text
		{"missing", map[string]any{}, true, "<tool_error code=\"NOT_FOUND\" severity=\"error\">\n  <message>Nothing here</message>\n  <recovery>Search first</recovery>\n</tool_error>"},
		{"boom", map[string]any{}, true, envelope.Wrap(nil).String()},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		if got := text(t, res); res.IsError != tc.isError || got != tc.want {
			t.Errorf("%s: isError %v\n%s\nwant isError %v\n%s", tc.tool, res.IsError, got, tc.isError, tc.want)
		}
	}
	if !strings.Contains(log.String(), "nil pointer dereference") {
		t.Errorf("the panic is not logged:\n%s", log.String())
	}
}

func TestRegistrationPanicsLikeTheSDK(t *testing.T) {
	for _, tc := range []struct {
		name string
		tool *mcp.Tool
		want string
	}{
		{"bad schema", &mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"strin"}}}`)}, `gosdk.AddTool: tool "t": input schema: `},
		{"not an object", &mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"string"}`)}, `AddTool "t": input schema must have type "object"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				v := recover()
				if v == nil || !strings.Contains(fmt.Sprint(v), tc.want) {
					t.Errorf("panic %v, want one containing %q", v, tc.want)
				}
			}()
			gosdk.AddTool(newServer(), tc.tool, search)
		})
	}
}

func TestClientLocale(t *testing.T) {
	for _, tc := range []struct {
		req  *mcp.CallToolRequest
		want string
	}{
		{&mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: mcp.Meta{"selfheal/locale": " ja-JP "}}}, "ja-JP"},
		{&mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{}, Extra: &mcp.RequestExtra{Header: http.Header{"Accept-Language": {"ja,en;q=0.8"}}}}, "ja,en;q=0.8"},
		{&mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: mcp.Meta{"selfheal/locale": 7}}}, ""},
		{&mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{}}, ""},
		{nil, ""},
	} {
		if got := gosdk.ClientLocale(tc.req); got != tc.want {
			t.Errorf("ClientLocale = %q, want %q", got, tc.want)
		}
	}
}
