package schemav6

import (
	"math/big"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal/internal/schemaconv"
	"github.com/selfheal/selfheal/issues"
)

// Schema is a compiled schema with what its failures' issues take from it,
// worked out once by New. A nil *Schema knows nothing: its issues say what
// each error itself carries.
type Schema struct {
	sch   *jsonschema.Schema
	nodes map[string]*node // every compiled subschema by location
	index nodeIndex        // the same, found faster
	docs  schemaconv.Docs  // schema documents by URL, for literals
	// counts writes each count the schema names (minLength, maxItems …)
	// once, so that issues share the text rather than write it again.
	counts map[int]issues.Number
}

// New prepares sch, whose documents by URL are docs (nil when they are not
// known: bounds are then written from the library's exact values).
func New(sch *jsonschema.Schema, docs schemaconv.Docs) *Schema {
	s := &Schema{sch: sch, docs: docs}
	s.prepare()
	return s
}

// Compiled returns the library's compiled schema.
func (s *Schema) Compiled() *jsonschema.Schema { return s.sch }

// node returns the prepared subschema at a location, or nil.
func (s *Schema) node(loc string) *node {
	if s == nil {
		return nil
	}
	if n := s.index.find(loc); n != nil {
		return n
	}
	return s.nodes[loc]
}

// at returns the compiled schema at a location, or nil.
func (s *Schema) at(loc string) *jsonschema.Schema {
	if n := s.node(loc); n != nil {
		return n.sch
	}
	return nil
}

// literal returns the number keyword kw of the schema at loc as the document
// wrote it, or else the library's exact value written plainly.
func (s *Schema) literal(loc, kw string, r *big.Rat) issues.Number {
	if s == nil {
		return schemaconv.RatText(r)
	}
	return schemaconv.LiteralIn(s.lookup(loc), kw, r)
}

// lookup returns the value of the schema document at a location.
func (s *Schema) lookup(loc string) any {
	if n := s.nodes[loc]; n != nil && n.doc != nil {
		return n.doc
	}
	return s.docs.Lookup(loc)
}

// count writes n, a count of characters, items or properties, as the
// schema's own text when the schema names it.
func (s *Schema) count(n int) issues.Number {
	if s != nil {
		if c, ok := s.counts[n]; ok {
			return c
		}
	}
	return issues.Number(strconv.Itoa(n))
}
