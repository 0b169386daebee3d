package jsonschemav5_test

import (
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsonschemav5"
)

func Example() {
	schema, err := jsonschemav5.Compile([]byte(`{
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
	// Errors: it words the error from the library's message. Validate through a Schema for issues
	// worded from the values sent.
	c := jsonschema.NewCompiler()
	_ = c.AddResource("mem:///rates.json", strings.NewReader(`{"properties": {"rate": {"exclusiveMaximum": 0.1}}}`))
	err := c.MustCompile("mem:///rates.json").Validate(map[string]any{"rate": 0.5})
	e := selfheal.New(selfheal.WithExamples(false), selfheal.WithAdapters(jsonschemav5.Errors))
	fmt.Println(e.Format("rates.set", err))
	// Output:
	// <validation_error action="rates.set">
	//   <field name="rate">must be &lt; 0.1 but found 0.5.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}
