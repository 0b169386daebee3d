package schema

import (
	"maps"
	"slices"

	"github.com/selfheal/selfheal/internal/nearmiss"
)

// A Subschema is what the shared code reads of one compiled subschema of a
// library whose schemas are of type S (a pointer; the zero S is none): the
// library's own values, copied by each version's one reader, so that
// walking a schema, describing a union and finding near misses are written
// once for both versions.
type Subschema[S comparable] struct {
	Location string
	// Bool is the value of a true or false schema, nil for others.
	Bool *bool
	// The subschemas applied to the same value.
	Ref, RecursiveRef, DynamicRef S
	AllOf, AnyOf, OneOf           []S
	If, Then, Else                S
	DependentSchemas              map[string]S
	Dependencies                  map[string]any // an S, or the names a property requires
	// The object's keywords.
	Properties            map[string]S
	Required              []string
	Patterns              []nearmiss.Matcher // the patternProperties
	AdditionalProperties  any                // a bool or an S
	UnevaluatedProperties S
	// The array's keywords.
	PrefixItems     []S
	Items           any // an S, or an []S (before draft 2020-12)
	AdditionalItems any // a bool or an S
	Items2020       S
	// Others are the subschemas no shared code reads but Index walks: not,
	// propertyNames, contains, unevaluatedItems, contentSchema and the
	// patternProperties' schemas.
	Others []S
	// One is the one value the subschema allows (a const, or an enum of
	// one value), when HasOne.
	One    any
	HasOne bool
}

// Index maps the location of every subschema reachable from root to it.
func Index[S comparable](root S, read func(S) Subschema[S]) map[string]S {
	var none S
	m := map[string]S{}
	var walk func(x S)
	walk = func(x S) {
		if x == none {
			return
		}
		d := read(x)
		if _, ok := m[d.Location]; ok {
			return
		}
		m[d.Location] = x
		for _, y := range append([]S{d.Ref, d.RecursiveRef, d.DynamicRef, d.If, d.Then, d.Else,
			d.UnevaluatedProperties, d.Items2020}, d.Others...) {
			walk(y)
		}
		for _, l := range [][]S{d.AllOf, d.AnyOf, d.OneOf, d.PrefixItems} {
			for _, y := range l {
				walk(y)
			}
		}
		for _, m := range []map[string]S{d.Properties, d.DependentSchemas} {
			for _, y := range m {
				walk(y)
			}
		}
		for _, y := range d.Dependencies {
			if y, ok := y.(S); ok {
				walk(y)
			}
		}
		for _, y := range []any{d.AdditionalProperties, d.Items, d.AdditionalItems} {
			if y, ok := y.(S); ok {
				walk(y)
			}
		}
		if items, ok := d.Items.([]S); ok {
			for _, y := range items {
				walk(y)
			}
		}
	}
	walk(root)
	return m
}

// NearMisses describes root for the near-miss walk (see package nearmiss),
// nil when there is nothing to look at.
func NearMisses[S comparable](root S, read func(S) Subschema[S]) *nearmiss.Shape {
	var none S
	return nearmiss.Build(root, func(x S) nearmiss.Node[S] {
		d := read(x)
		k := nearmiss.Keywords[S]{Location: d.Location,
			Ref: d.Ref, RecursiveRef: d.RecursiveRef, DynamicRef: d.DynamicRef,
			AllOf: d.AllOf, AnyOf: d.AnyOf, OneOf: d.OneOf, If: d.If, Then: d.Then, Else: d.Else,
			DependentSchemas: d.DependentSchemas, Dependencies: d.Dependencies,
			Properties: d.Properties, Patterns: d.Patterns, AdditionalProperties: d.AdditionalProperties,
			UnevaluatedProperties: d.UnevaluatedProperties,
			PrefixItems:           d.PrefixItems, Items: d.Items, AdditionalItems: d.AdditionalItems, Items2020: d.Items2020}
		if d.UnevaluatedProperties != none {
			k.UnevaluatedBool = read(d.UnevaluatedProperties).Bool
		}
		return nearmiss.Describe(k)
	})
}

// takes reports whether d takes key beside its properties: a pattern of
// patternProperties matches it, or additionalProperties is true or a
// schema other than false.
func takes[S comparable](d *Subschema[S], read func(S) Subschema[S], key string) bool {
	for _, re := range d.Patterns {
		if re.MatchString(key) {
			return true
		}
	}
	var none S
	switch a := d.AdditionalProperties.(type) {
	case bool:
		return a
	case S:
		return a != none && (read(a).Bool == nil || *read(a).Bool)
	}
	return false
}

// maxRefHops bounds the $ref chains followed to describe a union, so that
// a cycle of $refs ends.
const maxRefHops = 8

// UnionBranches describes alts, the alternatives of a union, for
// Discriminated, through their $refs, reading each with read.
func UnionBranches[S comparable](alts []S, read func(S) Subschema[S]) []Branch {
	var none S
	out := make([]Branch, len(alts))
	for i, alt := range alts {
		b := &out[i]
		for x, hops := alt, 0; x != none && hops < maxRefHops; hops++ {
			d := read(x)
			b.Required = append(b.Required, d.Required...)
			for name, p := range d.Properties {
				if _, seen := b.Tags[name]; seen {
					continue
				}
				if val, ok := oneValue(p, read); ok {
					if b.Tags == nil {
						b.Tags = map[string]any{}
					}
					b.Tags[name] = val
				}
			}
			x = d.Ref
		}
	}
	return out
}

// oneValue returns the one value p allows, a const or an enum of one,
// through its $refs.
func oneValue[S comparable](p S, read func(S) Subschema[S]) (any, bool) {
	var none S
	for hops := 0; p != none && hops < maxRefHops; hops++ {
		d := read(p)
		if d.HasOne {
			return d.One, true
		}
		p = d.Ref
	}
	return nil, false
}

// Evaluable lists, sorted, the property names that sch and the subschemas
// applied to the same object (allOf, anyOf, oneOf, if/then/else, $ref,
// dependent schemas) declare: what unevaluatedProperties leaves allowed.
// It reads each subschema with read, and at most 257 of them.
func Evaluable[S comparable](sch S, read func(S) Subschema[S]) []string {
	set := map[string]bool{}
	applied(sch, read, func(d *Subschema[S]) bool {
		for n := range d.Properties {
			set[n] = true
		}
		return false
	})
	return slices.Sorted(maps.Keys(set))
}

// Declares reports whether sch, or a subschema applied to the same object
// (as Evaluable reads them), takes the key: declares it as a property, or
// takes it by a pattern or a schema under additionalProperties (Takes).
func Declares[S comparable](sch S, read func(S) Subschema[S], key string) bool {
	return applied(sch, read, func(d *Subschema[S]) bool {
		if _, ok := d.Properties[key]; ok {
			return true
		}
		return takes(d, read, key)
	})
}

// applied calls fn with sch and each subschema applied to the same value
// (allOf, anyOf, oneOf, if/then/else, $ref, dependent schemas), each once
// and at most 257, until fn reports true, and reports whether it did.
func applied[S comparable](sch S, read func(S) Subschema[S], fn func(*Subschema[S]) bool) bool {
	var none S
	seen := map[S]bool{}
	var walk func(s S) bool
	walk = func(s S) bool {
		if s == none || seen[s] || len(seen) > 256 {
			return false
		}
		seen[s] = true
		d := read(s)
		if fn(&d) || walk(d.Ref) || walk(d.DynamicRef) || walk(d.RecursiveRef) {
			return true
		}
		for _, l := range [][]S{d.AllOf, d.AnyOf, d.OneOf} {
			for _, x := range l {
				if walk(x) {
					return true
				}
			}
		}
		if walk(d.If) || walk(d.Then) || walk(d.Else) {
			return true
		}
		for _, x := range d.DependentSchemas {
			if walk(x) {
				return true
			}
		}
		return false
	}
	return walk(sch)
}
