package schemav6_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal/internal/schemaconv"
	"github.com/selfheal/selfheal/internal/schemav6"
	"github.com/selfheal/selfheal/issues"
)

// The jsonschemav6 adapter prepares its schema once with New and converts
// each failure with the instance at hand; the root package's Engine, handed
// the library's error alone, uses a nil *Schema and issues.Unknown{}. Both
// find every failure; the first also knows the missing property's type and
// writes the bound as the schema did.
func Example() {
	const url = "mem:///tool.json"
	doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"type": "object",
		"properties": {"qty": {"type": "integer", "minimum": 1.0}, "sku": {"type": "string"}},
		"required": ["sku"]}`))
	c := jsonschema.NewCompiler()
	_ = c.AddResource(url, doc)
	sch := c.MustCompile(url)
	args := map[string]any{"qty": json.Number("0")}
	err := sch.Validate(args)

	known, _ := schemav6.New(sch, schemaconv.Docs{url: doc}).AppendIssues(nil, err, args)
	bare, _ := (*schemav6.Schema)(nil).AppendIssues(nil, err, issues.Unknown{})
	for _, is := range append(known, bare...) {
		fmt.Printf("%s %s expected=%q minimum=%q\n", is.Path, is.Code, is.Expected, is.Minimum)
	}
	// Output:
	// sku invalid_type expected="string" minimum=""
	// qty too_small expected="" minimum="1.0"
	// sku invalid_type expected="" minimum=""
	// qty too_small expected="" minimum="1"
}
