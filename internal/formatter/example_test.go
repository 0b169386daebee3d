package formatter_test

import (
	"fmt"

	"github.com/selfheal/selfheal/internal/catalog"
	"github.com/selfheal/selfheal/internal/formatter"
	"github.com/selfheal/selfheal/issues"
)

func Example() {
	f := formatter.New(formatter.DefaultOptions())
	list := issues.List{
		{Code: issues.InvalidType, Path: issues.Path{"age"}, Input: "42", Expected: issues.TypeInteger},
		{Code: issues.UnrecognizedKeys, Keys: []string{"nmae"}, Allowed: []string{"name", "email"}},
		{Code: issues.NotMultipleOf, Path: issues.Path{"qty"}, Input: 7, Divisor: "5"},
	}
	fmt.Println(string(f.AppendValidation(nil, "users.create", list)))
	// Output:
	// <validation_error action="users.create">
	//   <field name="(root)">Unknown key; did you mean 'name'? You sent: 'nmae'. Expected one of 'name','email'.</field>
	//   <field name="age">You sent: '42'. Expected an integer: 42.</field>
	//   <field name="qty">You sent: 7. Expected a multiple of 5, such as 5 or 10.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}

func ExampleFormatter_Fields() {
	ja := formatter.New(formatter.Options{Catalog: catalog.Match("ja")})
	is := issues.Issue{Code: issues.TooBig, Path: issues.Path{"tags"}, Input: []any{"a", "b", "c"}, Origin: issues.OriginArray, Maximum: "2", Inclusive: true}
	fields, _, _ := ja.Fields(issues.List{is})
	fmt.Println(fields[0].Name, fields[0].Text)
	// Output:
	// tags 送信値: 3個の要素。期待: 2個の要素以下。
}
