package selfheal_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	jsonschemav5 "github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal"
	adapterv5 "github.com/selfheal/selfheal/adapters/jsonschemav5"
	adapterv6 "github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/jsonvalue"
)

const rawSchema = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "minLength": 2},
    "age": {"type": "integer", "minimum": 13},
    "role": {"enum": ["admin", "member"]},
    "email": {"type": "string", "format": "email"},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 1},
    "id": {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^u_"}]}
  },
  "required": ["name", "email"],
  "additionalProperties": false
}`

const rawArgs = `{"name":"A","age":12,"role":"Admin","emial":"x","tags":["a",1],"id":"v_1"}`

// TestRawSchemaErrors: a *jsonschema.ValidationError straight from
// santhosh-tekuri/jsonschema, the most natural line a user writes, is a
// validation_error saying what was expected for an engine given the
// adapter's Errors.
func TestRawSchemaErrors(t *testing.T) {
	schema, err := jsonvalue.Decode([]byte(rawSchema))
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonvalue.Decode([]byte(rawArgs))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("tool.json", schema); err != nil {
		t.Fatal(err)
	}
	v6err := c.MustCompile("tool.json").Validate(inst)

	c5 := jsonschemav5.NewCompiler()
	if err := c5.AddResource("tool.json", bytes.NewReader([]byte(rawSchema))); err != nil {
		t.Fatal(err)
	}
	v5err := c5.MustCompile("tool.json").Validate(inst)

	e := selfheal.New(selfheal.WithAdapters(adapterv6.Errors, adapterv5.Errors))
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"v6", v6err, `<validation_error action="tool">
  <field name="(root)">Unknown key. You sent: 'emial'. Expected the object without it.</field>
  <field name="age">You sent: 12. Expected at least 13.</field>
  <field name="email">You sent: nothing. Expected a value.</field>
  <field name="id">You sent: 'v_1'. Expected to match '^u_'.</field>
  <field name="name">You sent: a string (1 character). Expected at least 2 characters.</field>
  <field name="role">You sent: 'Admin'. Expected one of 'admin','member'.</field>
  <field name="tags">You sent: 2 items. Expected at most 1 item.</field>
  <field name="tags[1]">You sent: a number. Expected a string.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`},
		{"v6 wrapped", fmt.Errorf("validate: %w", v6err), ""},
		// Version 5's errors carry no values: each line is the library's.
		{"v5", v5err, `<validation_error action="tool">
  <field name="(root)">missing properties: 'email'.</field>
  <field name="(root)">additionalProperties 'emial' not allowed.</field>
  <field name="age">must be >= 13 but found 12.</field>
  <field name="id">Closest of 2 alternatives: expected integer, but got string.</field>
  <field name="name">length must be >= 2, but got 1.</field>
  <field name="role">value must be one of "admin", "member".</field>
  <field name="tags">maximum 1 items required, but found 2 items.</field>
  <field name="tags[1]">expected string, but got number.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`},
	}
	for _, tc := range tests {
		got := e.Format("tool", tc.err)
		if d, err := envelope.Parse(got); err != nil || d.Validation == nil {
			t.Errorf("%s: not a validation_error (%v):\n%s", tc.name, err, got)
			continue
		}
		if tc.want != "" && got != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
		if res, _ := e.Result("tool", tc.err); res.String() != got {
			t.Errorf("%s: Result differs from Format:\n%s", tc.name, res.String())
		}
		// An engine reads only the raw errors of the adapters it was
		// given: without them the error is one it does not know.
		if got := selfheal.New().Format("tool", tc.err); !strings.HasPrefix(got, `<tool_error code="INTERNAL_ERROR"`) {
			t.Errorf("%s, no adapters: got\n%s", tc.name, got)
		}
	}
}
