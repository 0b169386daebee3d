package nearmiss_test

import (
	"fmt"
	"testing"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/internal/nearmiss"
	"github.com/selfheal/selfheal/issues"
)

// TestHasNearMissClosed: a closed schema's unrecognized key is a near miss
// when it stands for a declared property the object lacks, by the
// formatter's rule (case and separators, then a small edit distance), and
// not when that property was sent or nothing declared is close.
func TestHasNearMissClosed(t *testing.T) {
	closed := func(obj map[string]any, keys ...string) issues.List {
		return issues.List{{Code: issues.UnrecognizedKeys, Input: obj, Keys: keys,
			Allowed: []string{"level", "role", "username", "dryRun"}, Source: "jsonschema:additionalProperties"}}
	}
	for _, tc := range []struct {
		name string
		list issues.List
		want bool
	}{
		{"misspelt", closed(map[string]any{"rol": "x"}, "rol"), true},
		{"transposed", closed(map[string]any{"levle": 1}, "levle"), true},
		{"another convention", closed(map[string]any{"dry_run": true}, "dry_run"), true},
		{"one of several", closed(map[string]any{"colour": 1, "usernme": "a"}, "colour", "usernme"), true},
		{"property sent too", closed(map[string]any{"rol": "x", "role": "y"}, "rol"), false},
		{"nothing close", closed(map[string]any{"colour": 1}, "colour"), false},
		{"no object", issues.List{{Code: issues.UnrecognizedKeys, Keys: []string{"rol"}, Allowed: []string{"role"}}}, false},
		{"other code", issues.List{{Code: issues.InvalidType, Path: issues.Path{"role"}}}, false},
		{"open schema's", issues.List{{Code: issues.UnrecognizedKeys, Keys: []string{"qurey"}, Allowed: []string{"query"},
			Check: issues.CheckNearMiss, Source: nearmiss.SourceTypo}}, true},
		{"none", nil, false},
	} {
		if got := nearmiss.HasNearMiss(tc.list); got != tc.want {
			t.Errorf("%s: HasNearMiss = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A misspelt key in an open schema is a near miss whether it stands for an
// optional property or a required one; for a required one the missing
// property is in the list too, since the tool refuses the call.
func ExampleHasNearMiss() {
	sch, err := jsonschemav6.Compile([]byte(`{"type":"object",
		"properties":{"query":{"type":"string"},"dryRun":{"type":"boolean"}},"required":["query"]}`),
		jsonschemav6.WithTypos(true))
	if err != nil {
		panic(err)
	}
	for _, args := range []map[string]any{
		{"query": "x", "dryrun": true},
		{"qurey": "x"},
		{"query": 1},
	} {
		list := sch.Validate(args)
		fmt.Print(nearmiss.HasNearMiss(list), ":")
		for _, is := range list {
			fmt.Print(" ", is.Code, " ", is.Path)
		}
		fmt.Println()
	}
	// Output:
	// true: unrecognized_keys (root)
	// true: invalid_type query unrecognized_keys (root)
	// false: invalid_type query
}
