package issuesx_test

import (
	"fmt"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

// An adapter that stops building issues at BuildLimit appends one Omitted
// issue with the count of the rest; the formatter and List.Error count it.
func Example() {
	var list issues.List
	for i := range issuesx.BuildLimit + 250 {
		if len(list) == issuesx.BuildLimit {
			list = append(list, issuesx.Omitted(issuesx.BuildLimit+250-i))
			break
		}
		list = append(list, issues.Issue{Code: issues.InvalidType, Path: issues.Path{"items", i}, Expected: issues.TypeString})
	}
	fmt.Println(len(list), issuesx.OmittedCount(&list[len(list)-1]))
	fmt.Println(issuesx.TypesOf("null", "integer"))
	// Output:
	// 1001 250
	// null|integer
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
		fmt.Print(issuesx.HasNearMiss(list), ":")
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

// A public function owns the issues it hands out: the caller may change
// them without changing what the adapter keeps for the next call.
func ExampleOwn() {
	allowed := []string{"name", "age"} // kept by an adapter, for every call
	list := issues.List{{Code: issues.UnrecognizedKeys, Keys: []string{"nmae"}, Allowed: allowed}}
	issuesx.Own(list)
	list[0].Allowed[0] = "changed"
	fmt.Println(allowed, list[0].Allowed)
	// Output:
	// [name age] [changed age]
}
