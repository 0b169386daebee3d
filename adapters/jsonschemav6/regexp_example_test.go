package jsonschemav6_test

import (
	"fmt"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
)

// A schema whose pattern no engine compiles ("^(" is unbalanced) is
// still checked, but for that pattern, which is reported once, when the
// schema is compiled. Patterns are ECMAScript: the lookahead works.
func ExampleWithUncompilablePatterns() {
	schema, err := jsonschemav6.Compile([]byte(`{
		"type": "object",
		"properties": {
			"user": {"type": "string", "pattern": "^(?!admin)[a-z]+$"},
			"ref": {"type": "string", "pattern": "^(", "maxLength": 8}
		}
	}`), jsonschemav6.WithUncompilablePatterns(func(pattern string, err error) {
		fmt.Printf("pattern %q skipped: %v\n", pattern, err)
	}))
	if err != nil {
		panic(err)
	}
	list := schema.ValidateJSON([]byte(`{"user": "admin", "ref": "a-very-long-ref"}`))
	fmt.Println(selfheal.New().Format("users.get", list))
	// Output:
	// pattern "^(" skipped: error parsing regexp: missing closing ) in `^(`
	// <validation_error action="users.get">
	//   <field name="ref">You sent: 'a-very-long-ref' (15 characters). Expected at most 8 characters.</field>
	//   <field name="user">You sent: 'admin'. Expected to match '^(?!admin)[a-z]+$'.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}
