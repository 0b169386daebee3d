package mutate_test

import (
	"fmt"

	"github.com/selfheal/selfheal/internal/testkit/mutate"
	"github.com/selfheal/selfheal/issues"
)

// A test changes a result it got, everything in it, then checks that the
// next call's result is unchanged.
func ExampleAll() {
	list := issues.List{{Code: issues.InvalidValue, Path: issues.Path{"role", 0},
		Values: []any{"admin", map[string]any{"k": 1}}}}
	mutate.All(list)
	fmt.Println(list[0].Code, list[0].Path, list[0].Values)
	// Output:
	// HACKED HACKED.HACKED [HACKED map[HACKED:HACKED k:HACKED]]
}
