package jsonschemav6

import (
	"maps"
	"slices"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal/adapters/internal/schema"
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

// sub is a compiled subschema with what wording its failures reads of it,
// found once by Compile. Sorting the declared names and walking the
// document to the subschema's "type" and bounds on every failure cost more
// than the library's own Validate on go-sdk's benchmark arguments (5
// failures: 17 us and 75 allocations against 5 us), where DESIGN section 5
// wants a bad call at dispatch within 1 × go-sdk's own check.
type sub struct {
	sch      *jsonschema.Schema
	obj      map[string]any // the subschema in its document; nil when unknown
	declared []string       // its property names, sorted
	types    issues.Types   // its "type", in the order the document lists them
}

// index finds every subschema reachable from root, with its object in docs.
func index(root *jsonschema.Schema, docs schema.Docs) map[string]sub {
	subs := map[string]sub{}
	for loc, x := range schema.Index(root, read) {
		u := sub{sch: x, obj: docs.Object(loc), declared: slices.Sorted(maps.Keys(x.Properties))}
		if x.Types != nil {
			u.types = types(u.obj, x.Types.ToStrings())
		}
		subs[loc] = u
	}
	return subs
}

// at returns the compiled subschema at a location; its sch is nil when
// unknown.
func (s *Schema) at(loc string) sub {
	if s == nil {
		return sub{}
	}
	return s.subs[loc]
}

// types lists the types lib in the order the document's obj lists them, or
// else in the library's order.
func types(obj map[string]any, lib []string) issues.Types {
	switch t := obj["type"].(type) {
	case string:
		return issuesx.TypesOf(t)
	case []any:
		names := make([]string, 0, len(t))
		for _, x := range t {
			if n, ok := x.(string); ok {
				names = append(names, n)
			}
		}
		if len(names) == len(lib) {
			return issuesx.TypesOf(names...)
		}
	}
	return issuesx.TypesOf(lib...)
}

// count writes n, a count of characters, items or properties.
func count(n int) issues.Number { return issues.Number(strconv.Itoa(n)) }
