package jsonschemav6_test

import (
	"testing"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
)

// TestMaxDepth: too deep an instance is refused before the library sees
// it, with one issue, by Validate, AppendValidate and ValidateJSON.
func TestMaxDepth(t *testing.T) {
	jsonschematest.Depth(t, func(schema []byte, max int) (*jsonschemav6.Schema, error) {
		return jsonschemav6.Compile(schema, jsonschemav6.WithMaxDepth(max))
	})
}
