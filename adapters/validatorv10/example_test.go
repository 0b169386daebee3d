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

// A raw validator error is worded precisely by an engine given Errors; a
// server's own tag needs the adapter of ErrorsWith, which holds its
// wording as the *validator.Validate holds its check.
func ExampleErrorsWith() {
	validate := validator.New()
	_ = validate.RegisterValidation("sku", func(fl validator.FieldLevel) bool {
		return strings.HasPrefix(fl.Field().String(), "SKU-")
	})
	words, err := validatorv10.ErrorsWith(map[string]validatorv10.Rule{
		"sku": {Message: "Must be a SKU from the {param} catalog"},
	})
	if err != nil {
		panic(err)
	}
	type item struct {
		ID  string `validate:"sku=EU"`
		Qty int    `validate:"gte=1"`
	}
	failure := validate.Struct(item{ID: "X1", Qty: 0})
	fmt.Println(selfheal.New(selfheal.WithAdapters(words)).Format("cart.add", failure))
	fmt.Println(selfheal.New(selfheal.WithAdapters(validatorv10.Errors)).Format("cart.add", failure))
	// Output:
	// <validation_error action="cart.add">
	//   <field name="ID">Must be a SKU from the EU catalog. You sent: 'X1'.</field>
	//   <field name="Qty">You sent: 0. Expected at least 1.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
	// <validation_error action="cart.add">
	//   <field name="ID">Does not pass the 'sku' check. You sent: 'X1'. Expected a value that passes it.</field>
	//   <field name="Qty">You sent: 0. Expected at least 1.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}
