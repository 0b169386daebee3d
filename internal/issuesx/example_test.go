package issuesx_test

import (
	"fmt"

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
