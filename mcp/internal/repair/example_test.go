package repair_test

import (
	"fmt"

	"github.com/selfheal/selfheal/mcp/internal/repair"
)

// A model's call of write_file is answered (content missing); its retry
// is answered again on the same field; the third call is accepted.
func ExampleTracker() {
	tr := repair.New(func(o repair.Outcome) {
		fmt.Println(o.Tool, o.Outcome, "attempt", o.Attempt)
	}, repair.Limits{}, nil)
	tr.Answered("session-1", "write_file", []string{"content"})
	tr.Answered("session-1", "write_file", []string{"content"})
	tr.Accepted("session-1", "write_file")
	// Output:
	// write_file failed_same attempt 1
	// write_file repaired attempt 2
}
