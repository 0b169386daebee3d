package race_test

import (
	"fmt"
	"testing"

	"github.com/selfheal/selfheal/internal/testkit/race"
)

// An allocation count is meaningful only without the race detector, which
// allocates on its own: a test skips the count when race.Enabled.
func Example() {
	counted := !race.Enabled
	allocs := 0.0
	if counted {
		allocs = testing.AllocsPerRun(100, func() { _ = fmt.Sprint(42) })
	}
	fmt.Println("allocations of fmt.Sprint(42):", allocs <= 1)
	// Output: allocations of fmt.Sprint(42): true
}
