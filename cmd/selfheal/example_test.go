package main

import (
	"fmt"
	"os"
	"strings"
)

// Example_check runs `selfheal check` on the shipped users.create schema with
// arguments on standard input, as `--args -` reads them.
func Example_check() {
	args := `{"name": "Ada", "email": "not-an-email", "role": "Admin"}`
	code := run([]string{"check", "--schema", "../../examples/users.create.schema.json", "--args", "-", "--examples=false"},
		strings.NewReader(args), os.Stdout, os.Stderr)
	fmt.Println("exit status", code)
	// Output:
	// <validation_error action="users.create">
	//   <field name="email">Invalid email format. You sent: 'not-an-email'. Expected a valid email address.</field>
	//   <field name="role">You sent: 'Admin'. Expected one of 'admin','member','viewer'.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
	// exit status 1
}
