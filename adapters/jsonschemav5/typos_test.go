package jsonschemav5_test

import (
	"testing"

	"github.com/selfheal/selfheal/adapters/jsonschemav5"
	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
	"github.com/selfheal/selfheal/issues"
)

func compileTypos(schema []byte, typos bool) (jsonschematest.Validator, error) {
	s, err := jsonschemav5.Compile(schema, jsonschemav5.WithTypos(typos))
	if err != nil {
		return nil, err
	}
	return func(v any) issues.List { return s.Validate(v) }, nil
}

func TestTypos(t *testing.T) {
	jsonschematest.RunTypos(t, compileTypos)
}

func TestTyposAllocations(t *testing.T) {
	jsonschematest.TypoAllocations(t, compileTypos)
}

func TestUnions(t *testing.T) {
	jsonschematest.RunUnions(t, compileTypos)
}
