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

// index maps the location of every subschema reachable from sch to it.
func index(sch *jsonschema.Schema) map[string]*jsonschema.Schema {
	m := map[string]*jsonschema.Schema{}
	var walk func(x *jsonschema.Schema)
	walk = func(x *jsonschema.Schema) {
		if x == nil || m[x.Location] != nil {
			return
		}
		m[x.Location] = x
		for _, y := range children(x) {
			walk(y)
		}
	}
	walk(sch)
	return m
}

// children lists the subschemas x holds, nil ones included.
func children(x *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{x.Ref, x.RecursiveRef, x.Not, x.If, x.Then, x.Else,
		x.PropertyNames, x.UnevaluatedProperties, x.Contains, x.Items2020, x.UnevaluatedItems, x.ContentSchema}
	if x.DynamicRef != nil {
		out = append(out, x.DynamicRef.Ref)
	}
	for _, l := range [][]*jsonschema.Schema{x.AllOf, x.AnyOf, x.OneOf, x.PrefixItems} {
		out = append(out, l...)
	}
	for _, m := range []map[string]*jsonschema.Schema{x.Properties, x.DependentSchemas} {
		for _, y := range m {
			out = append(out, y)
		}
	}
	for _, y := range x.PatternProperties {
		out = append(out, y)
	}
	for _, y := range []any{x.AdditionalProperties, x.Items, x.AdditionalItems} {
		if y, ok := y.(*jsonschema.Schema); ok {
			out = append(out, y)
		}
	}
	if items, ok := x.Items.([]*jsonschema.Schema); ok {
		out = append(out, items...)
	}
	for _, d := range x.Dependencies {
		if y, ok := d.(*jsonschema.Schema); ok {
			out = append(out, y)
		}
	}
	return out
}
