package golden_test

import (
	"fmt"
	"testing"

	"github.com/selfheal/selfheal/internal/testkit/golden"
)

// A test compares what it rendered with testdata/<name>; run with -update,
// it rewrites the file instead. Here a stand-in for the test's *testing.T
// prints what a failing test would report.
func Example() {
	check := func(got string) {
		defer func() { _ = recover() }() // a Fatal ends the check, as it ends a test
		golden.Check(printingT{}, "example.golden", []byte(got))
		fmt.Println("same")
	}
	check("<recovery>Fix the fields above.</recovery>\n")
	check("<recovery>Apologise.</recovery>\n")
	// Output:
	// same
	// testdata/example.golden differs at line 1 (go test -update rewrites it):
	//  got <recovery>Apologise.</recovery>
	// want <recovery>Fix the fields above.</recovery>
}

// printingT prints a failure and stops, instead of failing a test.
// Embedding the interface gives it testing.TB's unexported method.
type printingT struct{ testing.TB }

func (printingT) Helper() {}

func (printingT) Fatal(args ...any) {
	fmt.Println(args...)
	panic("fatal")
}

func (printingT) Fatalf(format string, args ...any) {
	fmt.Printf(format+"\n", args...)
	panic("fatal")
}
