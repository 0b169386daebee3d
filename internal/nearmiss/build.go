package nearmiss

import (
	"slices"
	"strings"
)

// Node is what Build reads of one compiled subschema of a library whose
// schemas are of type S (a pointer; the zero S is none).
type Node[S comparable] struct {
	// Location names the subschema (the library's absolute location).
	Location string
	// Sure are the subschemas applied to the same value whenever this one
	// is ($ref, $recursiveRef, $dynamicRef, allOf); Branches those applied
	// only in some cases (anyOf, oneOf, if, then, else, dependent schemas).
	Sure, Branches []S
	// Properties are the declared properties; Patterns the
	// patternProperties.
	Properties map[string]S
	Patterns   []Matcher
	// Refuses says undeclared keys are refused (additionalProperties or
	// unevaluatedProperties false): the library reports them.
	Refuses bool
	// Extra are the additionalProperties and unevaluatedProperties
	// schemas other than true and false: they make the object a record.
	Extra []S
	// Prefix are the schemas of an array's first items, by index
	// (prefixItems, or items as an array); Items those of the others.
	Prefix []S
	Items  []S
}

// Build describes the schema root for Append, reading each subschema with
// describe. It returns nil when there is nothing to look at (the schema
// declares no property anywhere a walk can reach).
func Build[S comparable](root S, describe func(S) Node[S]) *Shape {
	b := builder[S]{describe: describe, nodes: map[S]*Node[S]{}, memo: map[string]*Shape{}}
	return b.shape([]S{root})
}

// builder builds the shapes of a schema once each: by the set of
// subschemas that apply to a value, which recursive schemas reach again.
type builder[S comparable] struct {
	describe func(S) Node[S]
	nodes    map[S]*Node[S]
	memo     map[string]*Shape
}

// node returns the description of x, read once.
func (b *builder[S]) node(x S) *Node[S] {
	n, ok := b.nodes[x]
	if !ok {
		d := b.describe(x)
		n = &d
		b.nodes[x] = n
	}
	return n
}

// shape returns the shape of a value the schemas of set apply to.
func (b *builder[S]) shape(set []S) *Shape {
	var zero S
	set = slices.DeleteFunc(slices.Clone(set), func(x S) bool { return x == zero })
	if len(set) == 0 {
		return nil
	}
	key := b.setKey(set)
	if sh, ok := b.memo[key]; ok {
		return sh // built, or being built further up a recursive schema
	}
	sh := &Shape{Check: true}
	b.memo[key] = sh
	props := map[string][]S{}
	var extra, items []S
	var prefix [][]S
	for _, x := range b.inPlace(set) {
		n := b.node(x.schema)
		for name, p := range n.Properties {
			props[name] = append(props[name], p)
		}
		sh.Patterns = append(sh.Patterns, n.Patterns...)
		if n.Refuses && x.sure {
			sh.Check = false // the library reports the keys
		}
		if len(n.Extra) > 0 {
			sh.Check = false // a record: undeclared keys are entries
			extra = append(extra, n.Extra...)
		}
		for i, p := range n.Prefix {
			for len(prefix) <= i {
				prefix = append(prefix, nil)
			}
			prefix[i] = append(prefix[i], p)
		}
		items = append(items, n.Items...)
	}
	for name := range props {
		sh.Names = append(sh.Names, name)
	}
	slices.Sort(sh.Names)
	if len(sh.Names) > 0 {
		sh.Children = make([]*Shape, len(sh.Names))
		for i, name := range sh.Names {
			sh.Children[i] = b.shape(props[name])
		}
	}
	sh.Extra = b.shape(extra)
	sh.Items = b.shape(items)
	for _, p := range prefix {
		sh.Prefix = append(sh.Prefix, b.shape(p))
	}
	if sh.Empty() {
		// Others may hold it already (a recursive schema): an empty shape
		// stays harmless there, and is nil from now on.
		b.memo[key] = nil
		return nil
	}
	return sh
}

// applied is a subschema applied in place, and whether for sure.
type applied[S comparable] struct {
	schema S
	sure   bool
}

// maxInPlace bounds the subschemas applied in place to one value that are
// read: past it a schema is more generated than written, and the names
// already found are enough to tell near misses.
const maxInPlace = 1024

// inPlace lists the schemas of set and the subschemas applied in place
// with them, each once, sure when it applies unconditionally.
func (b *builder[S]) inPlace(set []S) []applied[S] {
	var zero S
	// 1: met in a branch only, 2: met for sure. A schema met in a branch
	// and then for sure is visited again, so that what it applies is sure
	// too.
	state := map[S]int8{}
	var order []S
	var visit func(x S, sure bool)
	visit = func(x S, sure bool) {
		want := int8(1)
		if sure {
			want = 2
		}
		if x == zero || state[x] >= want || len(order) >= maxInPlace {
			return
		}
		if state[x] == 0 {
			order = append(order, x)
		}
		state[x] = want
		n := b.node(x)
		for _, y := range n.Sure {
			visit(y, sure)
		}
		for _, y := range n.Branches {
			visit(y, false)
		}
	}
	for _, x := range set {
		visit(x, true)
	}
	out := make([]applied[S], len(order))
	for i, x := range order {
		out[i] = applied[S]{x, state[x] == 2}
	}
	return out
}

// setKey names a set of subschemas by their locations, whatever their
// order.
func (b *builder[S]) setKey(set []S) string {
	locs := make([]string, len(set))
	for i, x := range set {
		locs[i] = b.node(x).Location
	}
	slices.Sort(locs)
	return strings.Join(slices.Compact(locs), "\x00")
}
