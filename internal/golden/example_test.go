package golden_test

import (
	"testing"

	"github.com/selfheal/selfheal/internal/golden"
)

// A test compares what it rendered with testdata/<name>.golden; run with
// -update, it rewrites the file instead. It needs the test's *testing.T,
// so this example is compiled, not run.
func Example() {
	_ = func(t *testing.T) {
		got := []byte("<validation_error action=\"users.create\">…</validation_error>")
		golden.Check(t, "users.create.bad", got)
	}
}
