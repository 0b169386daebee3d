package jsonschemav5_test

import (
	"testing"

	"github.com/selfheal/selfheal/adapters/jsonschemav5"
	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
)

// TestMaxDepth: too deep an instance is refused before the library sees
// it, with one issue, by Validate, AppendValidate and ValidateJSON.
func TestMaxDepth(t *testing.T) {
	jsonschematest.Depth(t, func(schema []byte, max int) (*jsonschemav5.Schema, error) {
		return jsonschemav5.Compile(schema, jsonschemav5.WithMaxDepth(max))
	})
}
