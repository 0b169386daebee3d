package suggest_test

import (
	"fmt"

	"github.com/selfheal/selfheal/internal/suggest"
)

func ExampleClosest() {
	fmt.Println(suggest.Closest("contents", []string{"path", "content"}))
	fmt.Println(suggest.Closest("mode", []string{"path", "content"}))
	// Output:
	// content true
	//  false
}

func ExampleSameName() {
	fmt.Println(suggest.SameName("dry_run", "dryRun"), suggest.SameName("dryrun", "dryRuns"))
	// Output: true false
}
