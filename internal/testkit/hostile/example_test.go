package hostile_test

import (
	"fmt"

	"github.com/selfheal/selfheal/internal/testkit/hostile"
)

// The table every path's tests run: each case's arguments go to
// hostile.Schema, and whatever their size the answer must count Issues
// problems (shown or summed in "and N more") and hold Want.
func Example() {
	for _, tc := range hostile.Cases() {
		fmt.Printf("%-28s %9d bytes  issues=%-6d want=%+q\n", tc.Name, len(tc.Args), tc.Issues, tc.Want)
	}
	// Output:
	// 10 MiB value                  10485780 bytes  issues=2      want="10485760 bytes"
	// 10 MiB unknown key            10485779 bytes  issues=1      want="10485760 bytes"
	// 10 MiB key on a failing path  10485790 bytes  issues=1      want="10485760 bytes"
	// 100k unknown keys              1088904 bytes  issues=1      want="and 99990 more"
	// 100k invalid items             1200024 bytes  issues=100000 want="and 99980 more"
	// 10k-deep nesting                 60023 bytes  issues=1      want="nesting depth"
	// 990-deep nesting                  5963 bytes  issues=1      want="nesting depth"
	// 10k-deep arrays                  20000 bytes  issues=1      want=""
	// invalid UTF-8 in keys               38 bytes  issues=2      want="\ufffd"
	// markup in keys and values           67 bytes  issues=3      want="]]&gt;"
	// huge numbers                        64 bytes  issues=2      want="1e1000000"
	// 10 MiB number                 10485782 bytes  issues=1      want="\u2026"
}
