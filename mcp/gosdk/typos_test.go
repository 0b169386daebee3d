package gosdk_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
	"github.com/selfheal/selfheal/mcp/gosdk"
)

// The filesystem server's edit_file and write_file, whose open schemas
// accept a misspelt key: with WithTypos the call is answered, without it
// the handler runs without the argument meant (dryRun has a default, which
// must not hide 'dryrun').
func TestTypos(t *testing.T) {
	const dryrun = `<field name="(root)">Unknown key; did you mean 'dryRun'? You sent: 'dryrun'. Expected that key: the tool ignores unknown keys.</field>`
	// content is required: the tool refuses the call without it.
	const contents = `<field name="content">Missing. You sent: the unknown key 'contents'. Expected a string.</field>`
	for _, tc := range []struct {
		name   string
		opts   []gosdk.Option
		schema string
		args   string
		want   string // the field element, "" when the handler runs
	}{
		{"dryrun", []gosdk.Option{gosdk.WithTypos(true)}, jsonschematest.EditFileSchema, `{"path":"a","edits":[],"dryrun":true}`, dryrun},
		{"dryrun, option off", nil, jsonschematest.EditFileSchema, `{"path":"a","edits":[],"dryrun":true}`, ""},
		{"dryrun, turned off", []gosdk.Option{gosdk.WithTypos(false)}, jsonschematest.EditFileSchema, `{"path":"a","edits":[],"dryrun":true}`, ""},
		{"dryRun", []gosdk.Option{gosdk.WithTypos(true)}, jsonschematest.EditFileSchema, `{"path":"a","edits":[],"dryRun":true}`, ""},
		{"contents", []gosdk.Option{gosdk.WithTypos(true)}, jsonschematest.WriteFileSchema, `{"path":"a","contents":"x"}`, contents},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer()
			ran := 0
			gosdk.AddTool(s, &mcp.Tool{Name: "tool", InputSchema: json.RawMessage(tc.schema)},
				func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
					ran++
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
				}, tc.opts...)
			res, err := connect(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "tool", Arguments: json.RawMessage(tc.args)})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if res.IsError || ran != 1 {
					t.Errorf("not served: %s", text(t, res))
				}
				return
			}
			want := "<validation_error action=\"tool\">\n  " + tc.want + "\n" +
				"  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>"
			if got := text(t, res); !res.IsError || got != want || ran != 0 {
				t.Errorf("isError %v, handler ran %d times, got\n%s\nwant\n%s", res.IsError, ran, got, want)
			}
		})
	}
}

// The middleware leaves accepted calls alone; a call go-sdk rejects is
// worded with the near miss.
func TestTyposMiddleware(t *testing.T) {
	s := newServer()
	s.AddReceivingMiddleware(gosdk.Middleware(gosdk.WithTypos(true)))
	ran := 0
	mcp.AddTool(s, &mcp.Tool{Name: "write_file", InputSchema: json.RawMessage(jsonschematest.WriteFileSchema)},
		func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
			ran++
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
		})
	res, err := connect(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "write_file",
		Arguments: json.RawMessage(`{"path":"a","contents":"x"}`)})
	if err != nil {
		t.Fatal(err)
	}
	want := "<validation_error action=\"write_file\">\n  <field name=\"content\">Missing. You sent: the unknown key 'contents'. Expected a string.</field>\n" +
		"  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>"
	if got := text(t, res); !res.IsError || ran != 0 || got != want {
		t.Errorf("isError %v, handler ran %d times, got\n%s\nwant\n%s", res.IsError, ran, got, want)
	}
}
