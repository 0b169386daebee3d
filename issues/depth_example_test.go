package issues_test

import (
	"fmt"
	"strings"

	"github.com/selfheal/selfheal/issues"
)

func ExampleCheckDepthJSON() {
	// The root object is level 1, so this is 5 levels deep.
	data := []byte(`{"filter": {"and": [{"or": [1]}]}}`)
	if _, deep := issues.CheckDepthJSON(data, 5); !deep {
		fmt.Println("5 levels: accepted")
	}
	is, _ := issues.CheckDepthJSON(data, 4)
	fmt.Println(is.Path, is.Code, is.Origin, is.Maximum, is.Input.(issues.Unknown).Type)

	// Hostile nesting costs one pass, however deep it goes.
	hostile := []byte(strings.Repeat("[", 100000) + strings.Repeat("]", 100000))
	is, _ = issues.CheckDepthJSON(hostile, 0)
	fmt.Println(len(is.Path), is.Maximum)
	// Output:
	// 5 levels: accepted
	// filter.and[0].or too_big depth 4 array
	// 64 64
}

// CheckDepth refuses a decoded value nested too deeply, naming the first
// container past the limit.
func ExampleCheckDepth() {
	v := map[string]any{"a": []any{[]any{1.0}}, "b": "[[[not nesting]]]"}
	is, deep := issues.CheckDepth(v, 2)
	fmt.Println(deep, is.Path, is.Input.(issues.Unknown).Type)
	// Output:
	// true a[0] array
}
