package recognize_test

import (
	"errors"
	"fmt"

	"github.com/selfheal/selfheal/internal/recognize"
	"github.com/selfheal/selfheal/issues"
)

// rangeError stands for a validation library's own error type, which the
// root package must read without importing that library.
type rangeError struct {
	Field string
	Value int
}

func (e *rangeError) Error() string { return fmt.Sprintf("%s out of range: %d", e.Field, e.Value) }

// The adapter of that library registers from init, so that any program
// importing the adapter has the converter before it handles an error.
func init() {
	recognize.Register(func(dst issues.List, err error) (issues.List, bool) {
		e, ok := err.(*rangeError) // by type first: cheap for errors it does not know
		if !ok {
			return dst, false
		}
		return append(dst, issues.Issue{Code: issues.TooBig, Path: issues.Path{e.Field}, Input: e.Value,
			Origin: issues.OriginInteger, Maximum: "10", Inclusive: true, Source: "ranges:max"}), true
	})
}

func Example() {
	list, ok := recognize.AppendTyped(nil, &rangeError{Field: "limit", Value: 50})
	fmt.Println(ok, list)
	_, ok = recognize.AppendTyped(nil, errors.New("disk full"))
	fmt.Println(ok)
	// Output:
	// true limit: too_big
	// false
}
