package validatorv10_test

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/selfheal/selfheal/adapters/validatorv10"
	"github.com/selfheal/selfheal/formatter"
	"github.com/selfheal/selfheal/issues"
)

type signup struct {
	Mode     string   `json:"mode"`
	Email    string   `json:"email" validate:"required_if=Mode email,omitempty,email"`
	Password string   `json:"password" validate:"min=8"`
	Confirm  string   `json:"password_confirm" validate:"eqfield=Password"`
	Tags     []string `json:"tags" validate:"unique,dive,min=2"`
}

func Example() {
	validate := validator.New()
	validate.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		return name
	})
	args := signup{Mode: "email", Password: "short", Confirm: "shorter", Tags: []string{"go", "go", "x"}}
	list, ok := validatorv10.Issues(validatorv10.Bind(validate.Struct(args), args))
	fmt.Println(ok)
	f := formatter.New(formatter.DefaultOptions())
	fmt.Print(string(f.AppendValidation(nil, "users.signup", list)))
	// Output:
	// true
	// <validation_error action="users.signup">
	//   <field name="email">Required when 'mode' is 'email'. You sent: nothing. Expected a string.</field>
	//   <field name="password">Too short. You sent: a value not shown because the field is sensitive (5 characters). Expected at least 8 characters.</field>
	//   <field name="password_confirm">Must equal the field 'password' (a value not shown because the field is sensitive). You sent: a string of 7 characters, not shown because the field is sensitive. Expected the same value as that field.</field>
	//   <field name="tags">Items must be unique. You sent: ["go","go","x"]. Expected no repeated item; 'go' repeats.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}

type newUser struct {
	Name  string `json:"name" validate:"required"`
	Email string `json:"email" validate:"email"`
	Age   int    `json:"age" validate:"gte=18"`
}

// A server that converts on every failed call keeps one list and appends
// into it: once warm, the conversion allocates nothing.
func ExampleAppendIssues() {
	validate := validator.New()
	validate.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		return name
	})
	var list issues.List
	for _, args := range []newUser{
		{Email: "nope", Age: 3},
		{Name: "Ada", Email: "ada@example.com", Age: 12},
		{Name: "Ada", Email: "ada@example.com", Age: 36},
	} {
		var ok bool
		list, ok = validatorv10.AppendIssues(list[:0], validate.Struct(args))
		fmt.Println(ok, list)
	}
	// Output:
	// true name: invalid_type; email: invalid_format; age: too_small
	// true age: too_small
	// false no issues
}
