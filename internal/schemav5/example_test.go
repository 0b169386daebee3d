package schemav5_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/selfheal/selfheal/internal/jsonvalue"
	"github.com/selfheal/selfheal/internal/schemaconv"
	"github.com/selfheal/selfheal/internal/schemav5"
)

// The root package's Engine is handed the library's error alone, without
// the instance or the compiled schema: each failure becomes a custom issue
// carrying the library's own message, at the path it names.
func Example() {
	sch := jsonschema.MustCompileString("tool.json", `{"type": "object",
		"properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
		"required": ["name"]}`)
	err := sch.Validate(map[string]any{"tags": []any{"ok", 7}})

	list, ok := schemav5.AppendIssues(nil, err)
	fmt.Println(ok)
	for _, is := range list {
		fmt.Printf("%s %s: %s\n", is.Path, is.Code, is.Message)
	}
	// Output:
	// true
	// (root) custom: missing properties: 'name'
	// tags[1] custom: expected string, but got number
}

// Version 5 escapes a pointer's tokens and then percent-encodes them: a
// key holding '/' or a space reads back whole.
func ExamplePointer() {
	fmt.Printf("%q\n", schemav5.Pointer("/labels/a~1b%20c/0"))
	// Output: ["labels" "a/b c" "0"]
}

// The jsonschemav5 adapter prepares its schema once with New and converts
// each failure with the instance at hand: the issues know the missing
// property's type and write the bound as the schema did.
func ExampleSchema_AppendIssues() {
	const url = "mem:///tool.json"
	text := `{"type": "object",
		"properties": {"qty": {"type": "integer", "minimum": 1.0}, "sku": {"type": "string"}},
		"required": ["sku"]}`
	doc, _ := jsonvalue.Decode([]byte(text))
	c := jsonschema.NewCompiler()
	_ = c.AddResource(url, strings.NewReader(text))
	sch := c.MustCompile(url)
	args := map[string]any{"qty": json.Number("0")}
	err := sch.Validate(args)

	list, _ := schemav5.New(sch, schemaconv.Docs{url: doc}).AppendIssues(nil, err, args)
	for _, is := range list {
		fmt.Printf("%s %s expected=%q minimum=%q\n", is.Path, is.Code, is.Expected, is.Minimum)
	}
	// Output:
	// sku invalid_type expected="string" minimum=""
	// qty too_small expected="" minimum="1.0"
}
