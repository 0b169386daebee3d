package selfheal_test

import (
	"encoding/json"
	"fmt"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsondecode"
)

// An engine reads the raw errors of the libraries whose adapters it was
// given; without jsondecode.Errors, encoding/json's error would be one
// line with the library's own message.
func ExampleWithAdapters() {
	engine := selfheal.New(selfheal.WithAdapters(jsondecode.Errors))
	var args struct {
		Age int `json:"age"`
	}
	err := json.Unmarshal([]byte(`{"age": "36"}`), &args)
	fmt.Println(engine.Format("users.create", err))
	// Output:
	// <validation_error action="users.create">
	//   <field name="age">You sent: a string. Expected an integer.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}
