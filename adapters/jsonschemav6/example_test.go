package jsonschemav6_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/issues"
)

func Example() {
	schema, err := jsonschemav6.Compile([]byte(`{
		"type": "object",
		"required": ["email", "age"],
		"properties": {
			"email": {"type": "string", "format": "email"},
			"age": {"type": "integer", "minimum": 18}
		},
		"additionalProperties": false
	}`))
	if err != nil {
		panic(err) // the developer's schema is broken: fail at startup
	}
	list := schema.ValidateJSON([]byte(`{"email": "not-an-email", "agee": 17}`))
	fmt.Println(selfheal.New(selfheal.WithExamples(false)).Format("users.create", list))
	// Output:
	// <validation_error action="users.create">
	//   <field name="age">Missing. You sent: the unknown key 'agee'. Expected an integer.</field>
	//   <field name="email">Invalid email format. You sent: 'not-an-email'. Expected a valid email address.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}

func Example_libraryError() {
	// An error from validating with the library yourself goes to
	// selfheal's Engine as it is, once the engine has this adapter's
	// Errors: it words what the error carries.
	doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"properties": {"rate": {"exclusiveMaximum": 0.1}}}`))
	c := jsonschema.NewCompiler()
	_ = c.AddResource("mem:///rates.json", doc)
	err := c.MustCompile("mem:///rates.json").Validate(map[string]any{"rate": 0.5})
	e := selfheal.New(selfheal.WithExamples(false), selfheal.WithAdapters(jsonschemav6.Errors))
	fmt.Println(e.Format("rates.set", err))
	// Output:
	// <validation_error action="rates.set">
	//   <field name="rate">You sent: 0.5. Expected less than 0.1.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}

func ExampleSchema_AppendValidate() {
	schema, err := jsonschemav6.Compile([]byte(`{
		"type": "object",
		"required": ["email"],
		"properties": {"age": {"type": "integer", "minimum": 18}}
	}`))
	if err != nil {
		panic(err)
	}
	// A server keeps one list and converts each call's failures into it:
	// once it has grown, a failure costs only the copies its issues own.
	var list issues.List
	for _, args := range []string{`{"email": "a@example.com", "age": 17}`, `{"age": 30}`, `{"email": "a@example.com"}`} {
		dec := json.NewDecoder(strings.NewReader(args))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			panic(err)
		}
		list = schema.AppendValidate(list[:0], v)
		if len(list) == 0 {
			fmt.Println("valid")
			continue
		}
		// The issues are the server's own: it may change them.
		fmt.Println(list)
	}
	// Output:
	// age: too_small
	// email: invalid_type
	// valid
}
