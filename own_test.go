package selfheal_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-playground/validator/v10"
	jsv5 "github.com/santhosh-tekuri/jsonschema/v5"
	jsv6 "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsondecode"
	"github.com/selfheal/selfheal/adapters/jsonschemav5"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/adapters/validatorv10"
	"github.com/selfheal/selfheal/internal/jsonvalue"
	"github.com/selfheal/selfheal/internal/testkit/mutate"
	"github.com/selfheal/selfheal/issues"
)

// ownSchema fails in every way whose issue holds a slice taken from the
// schema: a missing property, an enum with an object (Values), a union
// (Branches), a property name (an invalid_key's Issues), an unknown key
// (Keys and Allowed) and a dependent requirement.
const ownSchema = `{"type": "object", "additionalProperties": false, "required": ["name"],
	"properties": {
		"name": {"type": "string", "minLength": 3},
		"role": {"enum": ["admin", {"k": [1]}]},
		"id": {"anyOf": [{"type": "string", "format": "uuid"}, {"type": "integer", "minimum": 1}]},
		"tags": {"type": "object", "propertyNames": {"maxLength": 3}},
		"email": {"type": "string"}
	},
	"dependentRequired": {"email": ["name"]}}`

// ownArgs are two unrelated calls that fail ownSchema.
var ownArgs = [2]string{
	`{"role": "x", "id": 0, "tags": {"long-key": 1}, "nmae": "ab", "email": "e"}`,
	`{"name": "ab", "role": "y", "id": "z", "tags": {"toolong": 1}, "xx": 1}`,
}

// ownRawArgs are ownArgs without the property name: the library's own
// error places a propertyNames failure at any of the object's properties,
// from one call to the next.
var ownRawArgs = [2]string{
	`{"role": "x", "id": 0, "nmae": "ab", "email": "e"}`,
	`{"name": "ab", "role": "y", "id": "z", "xx": 1}`,
}

// ownTypos is an open schema with a property a model may misspell.
const ownTypos = `{"type": "object", "properties": {"dryRun": {"type": "boolean"}, "path": {"type": "string"}}}`

var ownTyposArgs = [2]string{`{"dryrun": true, "path": "a"}`, `{"dry_run": false, "pth": "b"}`}

// ownUser fails go-playground/validator in every way whose issue holds a
// slice the adapter keeps: a size, oneof (Values), a dived item, a
// conditional requirement (When) and a cross-field check (Ref).
type ownUser struct {
	Name  string   `json:"name" validate:"required,min=3"`
	Role  string   `json:"role" validate:"oneof=admin member"`
	Tags  []string `json:"tags" validate:"dive,max=3"`
	Email string   `json:"email" validate:"required_if=Role admin"`
	Pass  string   `json:"pass" validate:"eqfield=Name"`
}

var ownUsers = [2]func() ownUser{
	func() ownUser { return ownUser{Name: "ab", Role: "x", Tags: []string{"long"}, Pass: "p"} },
	func() ownUser { return ownUser{Name: "cd", Role: "admin", Tags: []string{"a", "toolong"}, Pass: "q"} },
}

// ownDecoded is what jsondecode decodes into.
type ownDecoded struct {
	Name string `json:"name"`
	Age  int    `json:"age"`
}

var ownJSON = [2]string{`{"nmae": "x", "age": "1"}`, `{"age": 1.5, "zz": 1}`}

// wantValidator are the answers to ownUsers from a validator error alone: other fields are named as the tag names them.
var wantValidator = [2]string{`<validation_error action="own">
  <field name="name">You sent: 'ab' (2 characters). Expected at least 3 characters.</field>
  <field name="pass">Must equal the field 'name'. You sent: 'p'. Expected the same value as that field.</field>
  <field name="role">You sent: 'x'. Expected one of 'admin','member'.</field>
  <field name="tags[0]">You sent: 'long' (4 characters). Expected at most 3 characters.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`, `<validation_error action="own">
  <field name="email">Required when 'Role' is 'admin'. You sent: nothing. Expected a string.</field>
  <field name="name">You sent: 'cd' (2 characters). Expected at least 3 characters.</field>
  <field name="pass">Must equal the field 'name'. You sent: 'q'. Expected the same value as that field.</field>
  <field name="tags[1]">You sent: 'toolong' (7 characters). Expected at most 3 characters.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`}

// wantBound are the answers to ownUsers from Bind's errors: other fields by their JSON names, with their values.
var wantBound = [2]string{`<validation_error action="own">
  <field name="name">You sent: 'ab' (2 characters). Expected at least 3 characters.</field>
  <field name="pass">Must equal the field 'name' ('ab'). You sent: 'p'. Expected the same value as that field.</field>
  <field name="role">You sent: 'x'. Expected one of 'admin','member'.</field>
  <field name="tags[0]">You sent: 'long' (4 characters). Expected at most 3 characters.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`, `<validation_error action="own">
  <field name="email">Required when 'role' is 'admin'. You sent: nothing. Expected a string.</field>
  <field name="name">You sent: 'cd' (2 characters). Expected at least 3 characters.</field>
  <field name="pass">Must equal the field 'name' ('cd'). You sent: 'q'. Expected the same value as that field.</field>
  <field name="tags[1]">You sent: 'toolong' (7 characters). Expected at most 3 characters.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`}

// wantMap are the answers to two ValidateMap failures.
var wantMap = [2]string{`<validation_error action="own">
  <field name="address.city">You sent: nothing. Expected a string.</field>
  <field name="name">You sent: 'ab' (2 characters). Expected at least 3 characters.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`, `<validation_error action="own">
  <field name="address.city">You sent: 'x' (1 character). Expected at least 2 characters.</field>
  <field name="name">You sent: nothing. Expected a string.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`}

// wantRawV6 are the answers to ownRawArgs from jsonschema v6's own errors: the values the errors do not hold are not shown.
var wantRawV6 = [2]string{`<validation_error action="own">
  <field name="(root)">Unknown key. You sent: 'nmae'. Expected the object without it.</field>
  <field name="id">You sent: 0. Expected at least 1.</field>
  <field name="name">You sent: nothing. Expected a value.</field>
  <field name="name">Required when 'email' is sent. You sent: nothing. Expected a value.</field>
  <field name="role">You sent: 'x'. Expected one of 'admin', {"k":[1]}.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`, `<validation_error action="own">
  <field name="(root)">Unknown key. You sent: 'xx'. Expected the object without it.</field>
  <field name="name">You sent: a string (2 characters). Expected at least 3 characters.</field>
  <field name="role">You sent: 'y'. Expected one of 'admin', {"k":[1]}.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`}

// wantRawV5 are the answers to ownRawArgs from jsonschema v5's own errors, which name no values: the library's messages.
var wantRawV5 = [2]string{`<validation_error action="own">
  <field name="(root)">missing properties: 'name'.</field>
  <field name="(root)">additionalProperties 'nmae' not allowed.</field>
  <field name="(root)">property 'name' is required, if 'email' property exists.</field>
  <field name="id">Closest of 2 alternatives: expected string, but got number.</field>
  <field name="role">enum failed.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`, `<validation_error action="own">
  <field name="(root)">additionalProperties 'xx' not allowed.</field>
  <field name="id">Closest of 2 alternatives: 'z' is not valid 'uuid'.</field>
  <field name="name">length must be >= 3, but got 2.</field>
  <field name="role">enum failed.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`}

// wantSchema are the answers to ownArgs through either adapter's Schema.
var wantSchema = [2]string{`<validation_error action="own">
  <field name="id">You sent: 0. Expected at least 1.</field>
  <field name="name">Missing. You sent: the unknown key 'nmae'. Expected a string.</field>
  <field name="name">Required when 'email' is sent. You sent: nothing. Expected a string.</field>
  <field name="role">You sent: 'x'. Expected one of 'admin', {"k":[1]}.</field>
  <field name="tags">Invalid key: You sent: 'long-key' (8 characters). Expected at most 3 characters.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`, `<validation_error action="own">
  <field name="(root)">Unknown key. You sent: 'xx'. Expected one of 'email','id','name','role','tags'.</field>
  <field name="id">You sent: 'z'. Expected a UUID (8-4-4-4-12 hex digits).</field>
  <field name="name">You sent: 'ab' (2 characters). Expected at least 3 characters.</field>
  <field name="role">You sent: 'y'. Expected one of 'admin', {"k":[1]}.</field>
  <field name="tags">Invalid key: You sent: 'toolong' (7 characters). Expected at most 3 characters.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`}

// wantTypos are the answers to ownTyposArgs: near misses of declared properties.
var wantTypos = [2]string{`<validation_error action="own">
  <field name="(root)">Unknown key; did you mean 'dryRun'? You sent: 'dryrun'. Expected that key: the tool ignores unknown keys.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`, `<validation_error action="own">
  <field name="(root)">Unknown keys; did you mean 'dryRun','path'? You sent: 'dry_run','pth'. Expected those keys: the tool ignores unknown keys.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`}

// wantDecode are the answers to ownJSON from jsondecode.Decode.
var wantDecode = [2]string{`<validation_error action="own">
  <field name="(root)">Unknown key; did you mean 'name'? You sent: 'nmae'. Expected one of 'name','age'.</field>
  <field name="age">You sent: '1'. Expected an integer: 1.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`, `<validation_error action="own">
  <field name="(root)">Unknown key. You sent: 'zz'. Expected one of 'name','age'.</field>
  <field name="age">You sent: 1.5. Expected an integer.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`}

// wantJSONError are the answers to ownJSON from encoding/json's own errors, which stop at the first.
var wantJSONError = [2]string{`<validation_error action="own">
  <field name="age">You sent: a string. Expected an integer.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`, `<validation_error action="own">
  <field name="age">You sent: 1.5. Expected an integer.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`}

// TestResultsOwnTheirMemory: a caller that changes everything in a result
// a public function gave it (every string, number and element, through
// every slice, map and pointer: mutate.All) changes nothing another call
// returns. For every adapter and the engine, each case gets the result of
// a call (after the caches have seen both calls), changes it, then makes
// an unrelated call and the same call again: their answers are the ones
// written here, and the same call's issues are what they were.
func TestResultsOwnTheirMemory(t *testing.T) {
	e := selfheal.New(selfheal.WithExamples(false), selfheal.WithAdapters(validatorv10.Errors, jsonschemav6.Errors, jsonschemav5.Errors, jsondecode.Errors))
	callers := issues.Issue{Code: issues.Custom, Message: "the caller's own"}
	text := func(list issues.List) string { return e.Format("own", list) }

	validate := validator.New()
	validate.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		return name
	})
	structErr := func(i int) error { u := ownUsers[i](); return validate.Struct(u) }
	boundErr := func(i int) error { u := ownUsers[i](); return validatorv10.Bind(validate.Struct(u), u) }
	mapErr := func(i int) error {
		data := [2]map[string]any{
			{"name": "ab", "address": map[string]any{"city": ""}},
			{"name": "", "address": map[string]any{"city": "x"}},
		}[i]
		rules := map[string]any{"name": "required,min=3", "address": map[string]any{"city": "required,min=2"}}
		return validatorv10.Map(validate.ValidateMap(data, rules))
	}

	v6, err := jsonschemav6.Compile([]byte(ownSchema))
	if err != nil {
		t.Fatal(err)
	}
	v5, err := jsonschemav5.Compile([]byte(ownSchema))
	if err != nil {
		t.Fatal(err)
	}
	typos6, err := jsonschemav6.Compile([]byte(ownTypos), jsonschemav6.WithTypos(true))
	if err != nil {
		t.Fatal(err)
	}
	typos5, err := jsonschemav5.Compile([]byte(ownTypos), jsonschemav5.WithTypos(true))
	if err != nil {
		t.Fatal(err)
	}
	lib6 := compileV6(t, ownSchema)
	lib5 := compileV5(t, ownSchema)
	args := func(i int) any { return decode(t, ownArgs[i]) }
	rawArgs := func(i int) any { return decode(t, ownRawArgs[i]) }
	typoArgs := func(i int) any { return decode(t, ownTyposArgs[i]) }

	for _, tc := range []struct {
		name string
		call func(i int) issues.List
		want [2]string
	}{
		{"validatorv10.Issues", func(i int) issues.List { list, _ := validatorv10.Issues(structErr(i)); return list }, wantValidator},
		{"validatorv10.Issues of Bind", func(i int) issues.List { list, _ := validatorv10.Issues(boundErr(i)); return list }, wantBound},
		{"Bind's Issues", func(i int) issues.List { return boundErr(i).(issues.Carrier).Issues() }, wantBound},
		{"validatorv10.Issues of Map", func(i int) issues.List { list, _ := validatorv10.Issues(mapErr(i)); return list }, wantMap},
		{"Map's Issues", func(i int) issues.List { return mapErr(i).(issues.Carrier).Issues() }, wantMap},
		{"Engine.Issues of validator", func(i int) issues.List { return e.Issues(structErr(i)) }, wantValidator},
		{"Engine.Issues of Bind", func(i int) issues.List { return e.Issues(boundErr(i)) }, wantBound},
		{"Engine.Issues of jsonschema v6", func(i int) issues.List { return e.Issues(lib6.Validate(rawArgs(i))) }, wantRawV6},
		{"Engine.Issues of jsonschema v5", func(i int) issues.List { return e.Issues(lib5.Validate(rawArgs(i))) }, wantRawV5},
		{"jsonschemav6.Validate", func(i int) issues.List { return v6.Validate(args(i)) }, wantSchema},
		{"jsonschemav6.AppendValidate", func(i int) issues.List { return v6.AppendValidate(issues.List{callers}, args(i))[1:] }, wantSchema},
		{"jsonschemav6.ValidateJSON", func(i int) issues.List { return v6.ValidateJSON([]byte(ownArgs[i])) }, wantSchema},
		{"jsonschemav6.AppendNearMisses", func(i int) issues.List { return typos6.AppendNearMisses(nil, typoArgs(i)) }, wantTypos},
		{"jsonschemav6.Validate WithTypos", func(i int) issues.List { return typos6.Validate(typoArgs(i)) }, wantTypos},
		{"jsonschemav5.Validate", func(i int) issues.List { return v5.Validate(args(i)) }, wantSchema},
		{"jsonschemav5.AppendValidate", func(i int) issues.List { return v5.AppendValidate(issues.List{callers}, args(i))[1:] }, wantSchema},
		{"jsonschemav5.ValidateJSON", func(i int) issues.List { return v5.ValidateJSON([]byte(ownArgs[i])) }, wantSchema},
		{"jsonschemav5.AppendNearMisses", func(i int) issues.List { return typos5.AppendNearMisses(nil, typoArgs(i)) }, wantTypos},
		{"jsonschemav5.Validate WithTypos", func(i int) issues.List { return typos5.Validate(typoArgs(i)) }, wantTypos},
		{"jsondecode.Decode", func(i int) issues.List {
			var v ownDecoded
			list, _ := jsondecode.Decode([]byte(ownJSON[i]), &v).(issues.List)
			return list
		}, wantDecode},
		{"jsondecode.Issues", func(i int) issues.List {
			var v ownDecoded
			list, _ := jsondecode.Issues(json.Unmarshal([]byte(ownJSON[i]), &v))
			return list
		}, wantJSONError},
		{"Engine.Issues of encoding/json", func(i int) issues.List {
			var v ownDecoded
			return e.Issues(json.Unmarshal([]byte(ownJSON[i]), &v))
		}, wantJSONError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 3 { // the caches learn both calls
				tc.call(0)
				tc.call(1)
			}
			list := tc.call(0)
			before := marshal(t, list)
			mutate.All(list)
			if got := marshal(t, list); got == before {
				t.Fatalf("mutate.All changed nothing in %s", got)
			}
			for _, i := range []int{1, 0} {
				if got := text(tc.call(i)); got != tc.want[i] {
					t.Errorf("call %d after a change to call 0's result:\n%s\nwant\n%s", i, got, tc.want[i])
				}
			}
			if got := marshal(t, tc.call(0)); got != before {
				t.Errorf("call 0's issues after a change to its result:\n%s\nwant\n%s", got, before)
			}
		})
	}
}

// marshal writes the JSON of each issue of list, one a line, sorted: the
// libraries' own errors come in map order.
func marshal(t *testing.T, list issues.List) string {
	t.Helper()
	out := make([]string, len(list))
	for i := range list {
		data, err := json.Marshal(list[i])
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(data)
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

func decode(t *testing.T, s string) any {
	t.Helper()
	v, err := jsonvalue.Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func compileV6(t *testing.T, schema string) *jsv6.Schema {
	t.Helper()
	doc, err := jsv6.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsv6.NewCompiler()
	if err := c.AddResource("mem:///own.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem:///own.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func compileV5(t *testing.T, schema string) *jsv5.Schema {
	t.Helper()
	sch, err := jsv5.CompileString("mem:///own.json", schema)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// TestEngineResultOwnsItsMemory: Engine.Result's fields and the issues it
// shows are the caller's own too, whatever error they come from.
func TestEngineResultOwnsItsMemory(t *testing.T) {
	e := selfheal.New(selfheal.WithExamples(false), selfheal.WithAdapters(validatorv10.Errors, jsonschemav6.Errors, jsonschemav5.Errors, jsondecode.Errors))
	validate := validator.New()
	v6, err := jsonschemav6.Compile([]byte(ownSchema))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		err  func() error
		want string
	}{
		{"validator", func() error { return validate.Struct(ownUsers[0]()) }, `<validation_error action="own">
  <field name="Name">You sent: 'ab' (2 characters). Expected at least 3 characters.</field>
  <field name="Pass">Must equal the field 'Name'. You sent: 'p'. Expected the same value as that field.</field>
  <field name="Role">You sent: 'x'. Expected one of 'admin','member'.</field>
  <field name="Tags[0]">You sent: 'long' (4 characters). Expected at most 3 characters.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`},
		{"jsonschemav6", func() error { return v6.Validate(decode(t, ownTyposArgs[0])) }, `<validation_error action="own">
  <field name="(root)">Unknown keys. You sent: 'dryrun','path'. Expected one of 'email','id','name','role','tags'.</field>
  <field name="name">You sent: nothing. Expected a string.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, shown := e.Result("own", tc.err())
			wantShown, err := json.Marshal(shown)
			if err != nil || len(shown) == 0 {
				t.Fatalf("%d issues shown (%v)", len(shown), err)
			}
			mutate.All(&v)
			mutate.All(&shown)
			got, again := e.Result("own", tc.err())
			if got.String() != tc.want {
				t.Errorf("after a change to the first result, Result gave\n%s\nwant\n%s", got, tc.want)
			}
			if data, _ := json.Marshal(again); string(data) != string(wantShown) {
				t.Errorf("after a change to the first issues shown, Result showed\n%s\nwant\n%s", data, wantShown)
			}
		})
	}
}
