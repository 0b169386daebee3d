package schema

// A Subschema is what UnionBranches and Evaluable read of one compiled
// subschema of a library whose schemas are of type S (a pointer; the zero S
// is none): the library's own fields, so that reading one allocates
// nothing.
type Subschema[S comparable] struct {
	// The subschemas applied to the same value.
	Ref, DynamicRef, RecursiveRef S
	AllOf, AnyOf, OneOf           []S
	If, Then, Else                S
	DependentSchemas              map[string]S
	// Properties are the declared properties, Required the required ones.
	Properties map[string]S
	Required   []string
	// Takes, when not nil, reports whether the subschema takes a key its
	// Properties do not declare: one a patternProperties pattern matches,
	// or any key when additionalProperties is a schema other than false.
	Takes func(key string) bool
	// One is the one value the subschema allows (a const, or an enum of
	// one value), when HasOne.
	One    any
	HasOne bool
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
	return SortedKeys(set)
}

// Declares reports whether sch, or a subschema applied to the same object
// (as Evaluable reads them), takes the key: declares it as a property, or
// takes it by a pattern or a schema under additionalProperties (Takes).
func Declares[S comparable](sch S, read func(S) Subschema[S], key string) bool {
	return applied(sch, read, func(d *Subschema[S]) bool {
		if _, ok := d.Properties[key]; ok {
			return true
		}
		return d.Takes != nil && d.Takes(key)
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
