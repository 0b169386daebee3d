package schema

import (
	"reflect"
	"testing"
)

// toy is a library's subschema, as small as the readings need.
type toy struct {
	ref    *toy
	allOf  []*toy
	props  map[string]*toy
	req    []string
	one    any
	hasOne bool
}

func readToy(x *toy) Subschema[*toy] {
	return Subschema[*toy]{Ref: x.ref, AllOf: x.allOf, Properties: x.props, Required: x.req, One: x.one, HasOne: x.hasOne}
}

// TestUnionBranches: tags and required names are read through $refs, a
// tag's one value through its own; a cycle of $refs ends.
func TestUnionBranches(t *testing.T) {
	daily := &toy{one: "daily", hasOne: true}
	viaRef := &toy{ref: &toy{one: "weekly", hasOne: true}}
	base := &toy{req: []string{"kind"}, props: map[string]*toy{"kind": viaRef, "at": {}}}
	cycle := &toy{req: []string{"x"}}
	cycle.ref = cycle
	got := UnionBranches([]*toy{
		{props: map[string]*toy{"kind": daily}, req: []string{"kind", "at"}},
		{ref: base, req: []string{"day"}},
		cycle,
		nil,
	}, readToy)
	want := []Branch{
		{Tags: map[string]any{"kind": "daily"}, Required: []string{"kind", "at"}},
		{Tags: map[string]any{"kind": "weekly"}, Required: []string{"day", "kind"}},
		{Required: []string{"x", "x", "x", "x", "x", "x", "x", "x"}},
		{},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// TestEvaluable: the names declared in place, through $ref and allOf,
// sorted, each once; a cycle ends; no schema, no names.
func TestEvaluable(t *testing.T) {
	leaf := &toy{props: map[string]*toy{"b": nil, "a": nil}}
	root := &toy{props: map[string]*toy{"c": nil, "a": nil}, allOf: []*toy{leaf}}
	root.ref = root
	if got, want := Evaluable(root, readToy), []string{"a", "b", "c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := Evaluable(nil, readToy); got != nil {
		t.Errorf("no schema: %q", got)
	}
}
