package gosdk_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/internal/testkit/mutate"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/gosdk"
)

// ownSchema fails in ways whose issues hold slices taken from the schema:
// an enum with an object (Values), a union (Branches), a property name (an
// invalid_key's Issues), an unknown key (Keys and Allowed).
const ownSchema = `{"type": "object", "additionalProperties": false, "required": ["name"],
	"properties": {
		"name": {"type": "string", "minLength": 3},
		"role": {"enum": ["admin", {"k": [1]}]},
		"id": {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 1}]},
		"tags": {"type": "object", "propertyNames": {"maxLength": 3}}
	}}`

// ownArgs are two unrelated calls that fail ownSchema.
var ownArgs = [2]string{
	`{"role": "x", "id": 0, "tags": {"long-key": 1}, "nmae": "ab"}`,
	`{"name": "ab", "role": "y", "id": true, "xx": 1}`,
}

// TestResultsOwnTheirMemory: a caller that changes everything in a
// validation failure's result (mutate.All: its text, its structured
// content or _meta, the issues GetError gives), as a sending middleware
// may, changes nothing another call returns: an unrelated call and the
// same call again answer as written here, with the same result.
func TestResultsOwnTheirMemory(t *testing.T) {
	want := [2]string{`<validation_error action="own">
  <field name="id">You sent: 0. Expected at least 1.</field>
  <field name="name">Missing. You sent: the unknown key 'nmae'. Expected a string.</field>
  <field name="role">You sent: 'x'. Expected one of 'admin', {"k":[1]}.</field>
  <field name="tags">Invalid key: You sent: 'long-key' (8 characters). Expected at most 3 characters.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`, `<validation_error action="own">
  <field name="(root)">Unknown key. You sent: 'xx'. Expected one of 'id','name','role','tags'.</field>
  <field name="id">You sent: true. Expected a string or an integer.</field>
  <field name="name">You sent: 'ab' (2 characters). Expected at least 3 characters.</field>
  <field name="role">You sent: 'y'. Expected one of 'admin', {"k":[1]}.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`}
	for _, tc := range []struct {
		name   string
		output json.RawMessage
	}{
		{"structured content", nil},
		{"_meta", json.RawMessage(`{"type": "object"}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := &mcp.Tool{Name: "own", InputSchema: json.RawMessage(ownSchema)}
			if tc.output != nil {
				tool.OutputSchema = tc.output
			}
			_, h, err := gosdk.Handler(tool, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
				t.Fatal("handler called")
				return nil, nil, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			call := func(i int) (*mcp.CallToolResult, string) {
				res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "own", Arguments: json.RawMessage(ownArgs[i])}})
				if err != nil {
					t.Fatal(err)
				}
				data, err := json.Marshal(res)
				if err != nil {
					t.Fatal(err)
				}
				return res, string(data)
			}
			for range 3 { // the caches learn both calls
				call(0)
				call(1)
			}
			res, before := call(0)
			list, ok := res.GetError().(issues.List)
			if !ok {
				t.Fatalf("GetError gives %T", res.GetError())
			}
			mutate.All(list)
			mutate.All(res)
			if after, _ := json.Marshal(res); string(after) == before {
				t.Fatal("mutate.All changed nothing")
			}
			for _, i := range []int{1, 0} {
				if res, _ := call(i); text(t, res) != want[i] {
					t.Errorf("call %d after a change to call 0's result:\n%s\nwant\n%s", i, text(t, res), want[i])
				}
			}
			if _, got := call(0); got != before {
				t.Errorf("call 0's result after a change to it:\n%s\nwant\n%s", got, before)
			}
		})
	}
}
