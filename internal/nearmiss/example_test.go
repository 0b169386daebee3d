package nearmiss_test

import (
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal/internal/nearmiss"
)

// The schema is open, so the library accepts "dryrun" and the tool would
// run without the "dryRun" the model meant: Append is what catches it.
func Example() {
	doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"type": "object",
		"properties": {"path": {"type": "string"}, "dryRun": {"type": "boolean"}}}`))
	c := jsonschema.NewCompiler()
	_ = c.AddResource("edit_file.json", doc)
	sch := c.MustCompile("edit_file.json")
	// An adapter tells Build what it needs of each compiled subschema; this
	// one reads only declared properties (jsonschemav6 reads them all).
	shape := nearmiss.Build(sch, func(x *jsonschema.Schema) nearmiss.Node[*jsonschema.Schema] {
		return nearmiss.Node[*jsonschema.Schema]{Location: x.Location, Properties: x.Properties}
	})

	args := map[string]any{"path": "notes.txt", "dryrun": true}
	fmt.Println("valid for the library:", sch.Validate(args) == nil)
	for _, is := range nearmiss.Append(nil, 0, shape, args) {
		fmt.Println(is.Path, is.Code, is.Keys, "→", is.Allowed)
	}
	// Output:
	// valid for the library: true
	// (root) unrecognized_keys [dryrun] → [dryRun]
}
