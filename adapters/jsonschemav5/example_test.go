package jsonschemav5_test

import (
	"fmt"

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
	//   <field name="age">Required field is missing; did you mean 'age'? You sent: the unknown key 'agee'. Expected an integer.</field>
	//   <field name="email">Invalid email format. You sent: 'not-an-email'. Expected a valid email address.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}

func ExampleSchema_AppendIssues() {
	// An error from the library used directly: the Schema knows the
	// constraints, the instance what was sent.
	schema, _ := jsonschemav5.Compile([]byte(`{"properties": {"rate": {"exclusiveMaximum": 0.1}}}`))
	instance := map[string]any{"rate": 0.5}
	err := schema.Compiled().Validate(instance)
	list, ok := schema.AppendIssues(nil, err, instance)
	fmt.Println(ok, list[0].Path, list[0].Code, list[0].Maximum)
	// Output: true rate too_big 0.1
}
