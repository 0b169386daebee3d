package schemav6

import (
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal/internal/schemaconv"
	"github.com/selfheal/selfheal/issues"
)

// node is a compiled subschema with what its issues take from the schema,
// worked out once by Compile or FromCompiled: converting an error then
// mostly copies it, and every call shares the same strings and slices
// (which a formatter may key a cache on). Each is checked against the
// error before use, so an error the node did not raise is still worded
// from what it carries.
type node struct {
	sch *jsonschema.Schema
	doc any // its value in the schema document, nil when unknown

	// at is where in the instance the subschema applies, as far as the
	// schema alone says (see schemaconv.Locate); nil when it cannot say,
	// below propertyNames and contentSchema.
	at issues.Path

	types    []string                 // the library's types, as kind.Type wants them
	expected issues.Types             // the same types as the document lists them
	origin   string                   // of the numeric bounds
	bounds   [numBounds]issues.Number // minimum … multipleOf as written
	constant []any                    // the const, as an issue's allowed values
	required []prop                   // the required properties, in the schema's order
	declared []string                 // the declared property names, sorted

	// isFalse marks the false schema; toks are its location's tokens and
	// evaluable, when it stands for unevaluatedProperties or
	// additionalProperties, the names its object's schemas declare.
	isFalse   bool
	toks      []string
	evaluable []string
}

// prop is a required property.
type prop struct {
	name     string
	path     issues.Path  // below the node's at, when that is exact
	expected issues.Types // its declared type
}

// The numeric keywords, in the order of node.bounds.
const (
	minimum = iota
	exclusiveMinimum
	maximum
	exclusiveMaximum
	multipleOf
	numBounds
)

var boundKeywords = [numBounds]string{"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf"}

// boundOf returns the numeric keyword kw of sch.
func boundOf(sch *jsonschema.Schema, kw int) *big.Rat {
	return [numBounds]*big.Rat{sch.Minimum, sch.ExclusiveMinimum, sch.Maximum, sch.ExclusiveMaximum, sch.MultipleOf}[kw]
}

// prepare finds every subschema reachable from s.sch and works out its node.
func (s *Schema) prepare() {
	s.nodes = map[string]*node{}
	s.counts = map[int]issues.Number{}
	s.place(s.sch, issues.Path{})
	for _, n := range s.nodes {
		s.fill(n)
	}
	s.index = newNodeIndex(s.nodes)
}

// nodeIndex finds nodes by the address of their location's text. An
// error's SchemaURL is its subschema's Location itself, so comparing
// addresses in a small open-addressed table finds the node in a few
// nanoseconds, where a map hashes the whole URL. A location it does not
// find (one the library copied, or of a subschema not indexed) is looked
// up by its text.
type nodeIndex struct {
	slots []*node // a power of two, at most half full
	shift uint    // 64 − log2(len(slots))
}

// newNodeIndex indexes nodes by the address of their location's text.
func newNodeIndex(nodes map[string]*node) nodeIndex {
	bits := uint(1)
	for 1<<bits < 2*len(nodes) {
		bits++
	}
	ix := nodeIndex{slots: make([]*node, 1<<bits), shift: 64 - bits}
	for _, n := range nodes {
		i := ix.home(n.sch.Location)
		for ix.slots[i] != nil {
			i = (i + 1) & uint(len(ix.slots)-1)
		}
		ix.slots[i] = n
	}
	return ix
}

// home is the slot where the search for loc starts: the address of its
// text, Fibonacci-hashed.
func (ix nodeIndex) home(loc string) uint {
	return uint(uint64(uintptr(unsafe.Pointer(unsafe.StringData(loc)))) * 0x9E3779B97F4A7C15 >> ix.shift)
}

// find returns the node whose location is loc's very text, or nil.
func (ix nodeIndex) find(loc string) *node {
	if len(ix.slots) == 0 {
		return nil
	}
	for i := ix.home(loc); ; i = (i + 1) & uint(len(ix.slots)-1) {
		n := ix.slots[i]
		if n == nil || unsafe.StringData(n.sch.Location) == unsafe.StringData(loc) && len(n.sch.Location) == len(loc) {
			return n
		}
	}
}

// place records sch, applied at the instance path at, and the subschemas
// below it. The first path a subschema is found at is the one it keeps:
// one reached along several is still right wherever the instance agrees.
func (s *Schema) place(sch *jsonschema.Schema, at issues.Path) {
	if sch == nil {
		return
	}
	if _, ok := s.nodes[sch.Location]; ok {
		return
	}
	s.nodes[sch.Location] = &node{sch: sch, at: at, doc: s.docs.Lookup(sch.Location)}
	// Below a key or an index, or where the instance is another value.
	below := func(x *jsonschema.Schema, el any) {
		if at == nil {
			s.place(x, nil)
			return
		}
		s.place(x, append(slices.Clip(at), el))
	}
	for _, x := range []*jsonschema.Schema{sch.Ref, sch.RecursiveRef, sch.Not, sch.If, sch.Then, sch.Else} {
		s.place(x, at)
	}
	if sch.DynamicRef != nil {
		s.place(sch.DynamicRef.Ref, at)
	}
	for _, l := range [][]*jsonschema.Schema{sch.AllOf, sch.AnyOf, sch.OneOf} {
		for _, x := range l {
			s.place(x, at)
		}
	}
	for _, x := range sch.DependentSchemas {
		s.place(x, at)
	}
	for _, d := range sch.Dependencies {
		if x, ok := d.(*jsonschema.Schema); ok {
			s.place(x, at)
		}
	}
	for _, name := range schemaconv.SortedKeys(sch.Properties) {
		below(sch.Properties[name], name)
	}
	for _, x := range sch.PatternProperties {
		below(x, nil)
	}
	if x, ok := sch.AdditionalProperties.(*jsonschema.Schema); ok {
		below(x, nil)
	}
	below(sch.UnevaluatedProperties, nil)
	for i, x := range sch.PrefixItems {
		below(x, i)
	}
	switch it := sch.Items.(type) {
	case *jsonschema.Schema:
		below(it, nil)
	case []*jsonschema.Schema:
		for i, x := range it {
			below(x, i)
		}
	}
	if x, ok := sch.AdditionalItems.(*jsonschema.Schema); ok {
		below(x, nil)
	}
	for _, x := range []*jsonschema.Schema{sch.Items2020, sch.UnevaluatedItems, sch.Contains} {
		below(x, nil)
	}
	s.place(sch.PropertyNames, nil)
	s.place(sch.ContentSchema, nil)
}

// fill works out what the issues of n take from the schema.
func (s *Schema) fill(n *node) {
	sch := n.sch
	if sch.Types != nil {
		n.types = sch.Types.ToStrings()
		n.expected = s.types(sch.Location, n.types)
	}
	n.origin = numOrigin(sch)
	for kw := range numBounds {
		if r := boundOf(sch, kw); r != nil {
			n.bounds[kw] = s.literal(sch.Location, boundKeywords[kw], r)
		}
	}
	if sch.Const != nil {
		n.constant = []any{*sch.Const}
	}
	exact := n.at != nil && !slices.Contains(n.at, nil)
	for _, name := range sch.Required {
		p := prop{name: name, expected: s.propType(sch, name)}
		if exact {
			p.path = append(slices.Clip(n.at), name)
		}
		n.required = append(n.required, p)
	}
	n.declared = declared(sch)
	for _, c := range []*int{sch.MinLength, sch.MaxLength, sch.MinItems, sch.MaxItems,
		sch.MinProperties, sch.MaxProperties, sch.MinContains, sch.MaxContains} {
		if c != nil {
			s.counts[*c] = issues.Number(strconv.Itoa(*c))
		}
	}
	if items, ok := sch.Items.([]*jsonschema.Schema); ok {
		s.counts[len(items)] = issues.Number(strconv.Itoa(len(items)))
	}
	if sch.Bool != nil && !*sch.Bool {
		n.isFalse = true
		n.toks = schemaconv.Fragment(sch.Location)
		if len(n.toks) > 0 {
			switch n.toks[len(n.toks)-1] {
			case "unevaluatedProperties", "additionalProperties":
				n.evaluable = schemaconv.Evaluable(s.at(sch.Location[:strings.LastIndexByte(sch.Location, '/')]), subschema)
			}
		}
	}
}

// bound returns the numeric keyword kw of the schema at loc (n, when
// known) as the document wrote it, for the library's value want.
func (s *Schema) bound(n *node, loc string, kw int, want *big.Rat) issues.Number {
	if n != nil && want != nil && boundOf(n.sch, kw) == want {
		return n.bounds[kw]
	}
	return s.literal(loc, boundKeywords[kw], want)
}

// expectedTypes words the types lib of the schema at loc (n, when known).
func (s *Schema) expectedTypes(n *node, loc string, lib []string) issues.Types {
	if n != nil && n.types != nil && slices.Equal(n.types, lib) {
		return n.expected
	}
	return s.types(loc, lib)
}

// numOrigin is the origin of a numeric bound of n.
func (n *node) numOrigin() string {
	if n == nil {
		return issues.OriginNumber
	}
	return n.origin
}

// constValues returns the const want of n as allowed values.
func (n *node) constValues(want any) []any {
	if n != nil && n.constant != nil && same(n.constant[0], want) {
		return n.constant
	}
	return []any{want}
}

// same reports whether the library's v is the schema's own c: the same
// map or slice, or an equal value of a comparable type.
func same(c, v any) bool {
	rc, rv := reflect.ValueOf(c), reflect.ValueOf(v)
	switch {
	case !rc.IsValid() || !rv.IsValid():
		return rc.IsValid() == rv.IsValid()
	case rc.Type() != rv.Type():
		return false
	case rc.Kind() == reflect.Map || rc.Kind() == reflect.Slice:
		return rc.UnsafePointer() == rv.UnsafePointer() && rc.Len() == rv.Len()
	}
	return rc.Comparable() && rc.Equal(rv)
}
