package jsonschemav5

import (
	"math/big"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/selfheal/selfheal/adapters/internal/schema"
	"github.com/selfheal/selfheal/issues"
)

// split finds the compiled schema an absolute keyword location belongs to
// and the keyword path after it.
func (s *Schema) split(loc string) (*jsonschema.Schema, []string) {
	if s == nil {
		toks := schema.Fragment(loc)
		if len(toks) > 0 {
			return nil, toks[len(toks)-1:]
		}
		return nil, nil
	}
	var kw []string
	cur := loc
	for range 64 {
		if sch, ok := s.locs[cur]; ok {
			return sch, kw
		}
		if sch, ok := s.locs[unescapeFrag(cur)]; ok {
			return sch, kw
		}
		i := strings.LastIndexByte(cur, '/')
		if i < 0 || i < strings.IndexByte(cur, '#') {
			break
		}
		tok := cur[i+1:]
		tok = strings.ReplaceAll(strings.ReplaceAll(unescapeFrag(tok), "~1", "/"), "~0", "~")
		kw = append([]string{tok}, kw...)
		cur = cur[:i]
	}
	return nil, kw
}

// hasKeyword reports whether the document of sch writes keyword kw (true
// when the document is unknown and kw is not a default).
func (s *Schema) hasKeyword(sch *jsonschema.Schema, kw string) bool {
	if s != nil {
		if obj, ok := s.docs.Lookup(sch.Location).(map[string]any); ok {
			_, has := obj[kw]
			return has
		}
	}
	return kw != "minContains" || sch.MinContains != 1
}

// literal returns the number keyword kw of the schema at loc as the document
// wrote it, or else the library's exact value written plainly.
func (s *Schema) literal(loc, kw string, r *big.Rat) issues.Number {
	if s == nil {
		return schema.RatText(r)
	}
	return s.docs.Literal(loc, kw, r)
}

// index maps the location of every subschema reachable from sch to it.
func index(sch *jsonschema.Schema) map[string]*jsonschema.Schema {
	m := map[string]*jsonschema.Schema{}
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil {
			return
		}
		if _, ok := m[s.Location]; ok {
			return
		}
		m[s.Location] = s
		for _, x := range []*jsonschema.Schema{s.Ref, s.RecursiveRef, s.DynamicRef, s.Not, s.If, s.Then, s.Else,
			s.PropertyNames, s.UnevaluatedProperties, s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema} {
			walk(x)
		}
		for _, l := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems} {
			for _, x := range l {
				walk(x)
			}
		}
		for _, x := range s.Properties {
			walk(x)
		}
		for _, x := range s.PatternProperties {
			walk(x)
		}
		if x, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
			walk(x)
		}
		for _, d := range s.Dependencies {
			if x, ok := d.(*jsonschema.Schema); ok {
				walk(x)
			}
		}
		for _, x := range s.DependentSchemas {
			walk(x)
		}
		switch it := s.Items.(type) {
		case *jsonschema.Schema:
			walk(it)
		case []*jsonschema.Schema:
			for _, x := range it {
				walk(x)
			}
		}
		if x, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
			walk(x)
		}
	}
	walk(sch)
	return m
}
