package templates_test

import (
	"fmt"

	"github.com/selfheal/selfheal/internal/templates"
)

// values fills placeholders from a map; the formatter's real filler renders
// values, sizes and units instead.
type values map[templates.Placeholder]string

func (v values) AppendPlaceholder(dst []byte, p templates.Placeholder) []byte {
	return append(dst, v[p]...)
}

func Example() {
	tpl, err := templates.Compile("Too short. You sent: {sent} ({size}). Expected at least {minimum}.")
	if err != nil {
		panic(err)
	}
	line := tpl.Append(nil, values{
		templates.Sent:    "'ab'",
		templates.Size:    "2 characters",
		templates.Minimum: "3 characters",
	})
	fmt.Println(string(line))

	_, err = templates.Compile("Expected at least {minimun}.")
	fmt.Println(err != nil)
	// Output:
	// Too short. You sent: 'ab' (2 characters). Expected at least 3 characters.
	// true
}
