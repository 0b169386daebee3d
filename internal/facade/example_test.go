package facade_test

import (
	"fmt"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/internal/facade"
	"github.com/selfheal/selfheal/issues"
)

func Example() {
	e := selfheal.New(selfheal.WithMaxIssues(1))
	list := issues.List{
		{Code: issues.InvalidType, Path: issues.Path{"b"}, Expected: issues.TypeString, Input: 1},
		{Code: issues.InvalidType, Path: issues.Path{"a"}, Expected: issues.TypeString, Input: 2},
	}
	bounded := facade.Formatter(e).Bounded(list)
	fmt.Println(len(bounded), bounded[0].Path, bounded[0].Input)
	fmt.Println(facade.Formatter("not an engine") == nil)
	// Output:
	// 1 a <nil>
	// true
}
