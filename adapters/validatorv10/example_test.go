package validatorv10_test

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/validatorv10"
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
	fmt.Print(selfheal.New().Format("users.signup", list))
	// Output:
	// true
	// <validation_error action="users.signup">
	//   <field name="email">Required when 'mode' is 'email'. You sent: nothing. Expected a string.</field>
	//   <field name="password">You sent: a value not shown because the field is sensitive (5 characters). Expected at least 8 characters.</field>
	//   <field name="password_confirm">Must equal the field 'password' (a value not shown because the field is sensitive). You sent: a string of 7 characters, not shown because the field is sensitive. Expected the same value as that field.</field>
	//   <field name="tags">You sent: ["go","go","x"]. Expected no repeated item; 'go' repeats.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}
