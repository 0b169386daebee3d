package jsonschemav5_test

import (
	"fmt"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsonschemav5"
)

// An open schema accepts "dryrun" and the tool would ignore it, editing
// for real: with WithTypos the call is answered with what to fix.
func ExampleWithTypos() {
	s, err := jsonschemav5.Compile([]byte(`{"type":"object",
		"properties":{"path":{"type":"string"},"dryRun":{"type":"boolean"}},"required":["path"]}`),
		jsonschemav5.WithTypos(true))
	if err != nil {
		panic(err)
	}
	list := s.ValidateJSON([]byte(`{"path":"notes.txt","dryrun":true}`))
	is := list[0]
	fmt.Println(is.Path, is.Code, is.Check, is.Keys, is.Allowed)
	fmt.Print(selfheal.New().Format("edit_file", list))
	// Output:
	// (root) unrecognized_keys near_miss [dryrun] [dryRun]
	// <validation_error action="edit_file">
	//   <field name="(root)">Unknown key; did you mean 'dryRun'? You sent: 'dryrun'. Expected that key: the tool ignores unknown keys.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}
