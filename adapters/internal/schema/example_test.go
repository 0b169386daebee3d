package schema_test

import (
	"encoding/json"
	"fmt"

	"github.com/selfheal/selfheal/internal/jsonvalue"

	"github.com/selfheal/selfheal/adapters/internal/schema"
)

// Example turns a JSON Schema instance location into the path a model reads
// and the value sent there.
func Example() {
	instance, _ := jsonvalue.Decode([]byte(`{"items": [{"sku": "A-1"}, {"sku": 7}], "labels": {"a.b": "x"}}`))
	for _, loc := range [][]string{{"items", "1", "sku"}, {"labels", "a.b"}} {
		path, v := schema.Locate(instance, loc)
		fmt.Println(path, v)
	}
	// Output:
	// items[1].sku 7
	// labels["a.b"] x
}

// A union of objects told apart by "kind" reports a miss at "kind" with
// every value it may take; a value that names an alternative leaves that
// alternative's issues.
func ExampleDiscriminated() {
	branches := []schema.Branch{
		{Tags: map[string]any{"kind": "daily"}, Required: []string{"kind", "at"}},
		{Tags: map[string]any{"kind": "weekly"}, Required: []string{"kind", "day"}},
	}
	for _, v := range []map[string]any{{"kind": "monthly"}, {"at": "9"}, {"kind": "weekly"}} {
		is, ok := schema.Discriminated(nil, v, branches, "jsonschema:oneOf")
		fmt.Println(ok, is.Code, is.Path, is.Values)
	}
	fmt.Println(schema.Equal(json.Number("1"), 1.0), schema.Equal("1", 1.0))
	// Output:
	// true invalid_value kind [daily weekly]
	// true invalid_type kind [daily weekly]
	// false  (root) []
	// true false
}
