package jsonschemav6

import (
	"math/big"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal/adapters/internal/schema"
	"github.com/selfheal/selfheal/issues"
)

// at returns the compiled subschema at a location, or nil.
func (s *Schema) at(loc string) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	return s.locs[loc]
}

// literal returns the number keyword kw of the schema at loc as the document
// wrote it, or else the library's exact value written plainly.
func (s *Schema) literal(loc, kw string, r *big.Rat) issues.Number {
	if s == nil {
		return schema.RatText(r)
	}
	return s.docs.Literal(loc, kw, r)
}

// count writes n, a count of characters, items or properties.
func count(n int) issues.Number { return issues.Number(strconv.Itoa(n)) }
