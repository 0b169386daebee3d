package mcpgo_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
	"github.com/selfheal/selfheal/mcp/mcpgo"
)

// The filesystem server's edit_file and write_file, whose open schemas
// accept a misspelt key: with WithTypos the call is answered, without it
// the handler runs without the argument meant. AddTool and Middleware
// alike.
func TestTypos(t *testing.T) {
	const dryrun = `<field name="(root)">Unknown key; did you mean 'dryRun'? You sent: 'dryrun'. Expected that key: the tool ignores unknown keys.</field>`
	// content is required: the tool refuses the call without it.
	const contents = `<field name="content">Missing. You sent: the unknown key 'contents'. Expected a string.</field>`
	for _, tc := range []struct {
		name   string
		opts   []mcpgo.Option
		schema string
		args   string
		want   string // the field element, "" when the handler runs
	}{
		{"dryrun", []mcpgo.Option{mcpgo.WithTypos(true)}, jsonschematest.EditFileSchema, `{"path":"a","edits":[],"dryrun":true}`, dryrun},
		{"dryrun, option off", nil, jsonschematest.EditFileSchema, `{"path":"a","edits":[],"dryrun":true}`, ""},
		{"dryrun, turned off", []mcpgo.Option{mcpgo.WithTypos(false)}, jsonschematest.EditFileSchema, `{"path":"a","edits":[],"dryrun":true}`, ""},
		{"dryRun", []mcpgo.Option{mcpgo.WithTypos(true)}, jsonschematest.EditFileSchema, `{"path":"a","edits":[],"dryRun":true}`, ""},
		{"contents", []mcpgo.Option{mcpgo.WithTypos(true)}, jsonschematest.WriteFileSchema, `{"path":"a","contents":"x"}`, contents},
	} {
		for _, mw := range []bool{false, true} {
			name := tc.name
			if mw {
				name += ", middleware"
			}
			t.Run(name, func(t *testing.T) {
				s := server.NewMCPServer("s", "1")
				ran := 0
				h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					ran++
					return mcp.NewToolResultText("ran"), nil
				}
				tool := mcp.NewToolWithRawSchema("tool", "", json.RawMessage(tc.schema))
				if mw {
					s.Use(mcpgo.Middleware(tc.opts...))
					s.AddTool(tool, h)
				} else {
					mcpgo.AddTool(s, tool, h, tc.opts...)
				}
				res := call(t, inProcess(t, s), "tool", tc.args, nil)
				if tc.want == "" {
					if res.IsError || ran != 1 {
						t.Errorf("not served: %s", text(res))
					}
					return
				}
				want := "<validation_error action=\"tool\">\n  " + tc.want + "\n" +
					"  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>"
				if got := text(res); !res.IsError || got != want || ran != 0 {
					t.Errorf("isError %v, handler ran %d times, got\n%s\nwant\n%s", res.IsError, ran, got, want)
				}
			})
		}
	}
}
