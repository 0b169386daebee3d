package nearmiss_test

import (
	"fmt"

	"github.com/selfheal/selfheal/internal/nearmiss"
)

func ExampleClosest() {
	fmt.Println(nearmiss.Closest("contents", []string{"path", "content"}))
	fmt.Println(nearmiss.Closest("mode", []string{"path", "content"}))
	// Output:
	// content true
	//  false
}

func ExampleSameName() {
	fmt.Println(nearmiss.SameName("dry_run", "dryRun"), nearmiss.SameName("dryrun", "dryRuns"))
	// Output: true false
}
