package jsonschematest_test

import (
	"fmt"

	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
	"github.com/selfheal/selfheal/issues"
)

// The two JSON Schema adapters walk objects in map order, so tests compare
// their issues in one canonical order (by path, code and source), as JSON
// with sorted keys, and without what may differ between them (the
// library's reason in an invalid_format message).
func ExampleCanonical() {
	list := issues.List{
		{Code: issues.InvalidFormat, Path: issues.Path{"email"}, Format: "email", Message: "v6's own reason", Source: "jsonschema:format"},
		{Code: issues.TooSmall, Path: issues.Path{"age"}, Origin: issues.OriginNumber, Minimum: "18", Inclusive: true, Source: "jsonschema:minimum"},
	}
	fmt.Println(jsonschematest.Canonical(list))
	// Output:
	// [{"code":"too_small","inclusive":true,"input":null,"minimum":18,"origin":"number","path":["age"],"source":"jsonschema:minimum"},{"code":"invalid_format","format":"email","input":null,"path":["email"],"source":"jsonschema:format"}]
}
