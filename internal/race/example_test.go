package race_test

import (
	"testing"

	"github.com/selfheal/selfheal/internal/race"
)

// An allocation test skips under the race detector, which allocates on its
// own. The example prints nothing: what it would print depends on -race.
func Example() {
	_ = func(t *testing.T) {
		if race.Enabled {
			t.Skip("the race detector allocates")
		}
		if n := testing.AllocsPerRun(100, func() {}); n != 0 {
			t.Errorf("%v allocations, want 0", n)
		}
	}
}
