package schemaconv

import (
	"encoding/json"
	"math/big"
	"slices"
	"testing"

	"github.com/selfheal/selfheal/issues"
)

func TestSinkMerges(t *testing.T) {
	arr := []any{"a", "b", "c", "d"}
	var k Sink
	k.Unrecognized(issues.Path{"o"}, nil, "z", []string{"a", "z"}, "jsonschema:additionalProperties")
	k.Unrecognized(issues.Path{"o"}, nil, "y", nil, "jsonschema:additionalProperties")
	k.ExcessItem(issues.Path{"tail"}, arr, 3, "jsonschema:items")
	k.ExcessItem(issues.Path{"tail"}, arr, 2, "jsonschema:items")
	k.ExcessItem(issues.Path{"gaps"}, arr, 1, "jsonschema:items")
	k.ExcessItem(issues.Path{"gaps"}, arr, 3, "jsonschema:items")
	list := k.Finish()
	if len(list) != 4 {
		t.Fatalf("got %v", list)
	}
	if is := list[0]; is.Code != issues.UnrecognizedKeys || !slices.Equal(is.Keys, []string{"y", "z"}) || !slices.Equal(is.Allowed, []string{"a"}) {
		t.Errorf("keys: %+v", is)
	}
	if is := list[1]; is.Code != issues.TooBig || is.Maximum != "2" || is.Path.Key() != "tail" {
		t.Errorf("tail: %+v", is)
	}
	for _, is := range list[2:] {
		if is.Check != issues.CheckNever || is.Path[0] != "gaps" {
			t.Errorf("gap: %+v", is)
		}
	}
	var empty Sink
	if empty.Finish() != nil {
		t.Error("an empty sink gave issues")
	}
}

func TestFragmentAndDocs(t *testing.T) {
	if got := Fragment("mem:///s.json#/properties/a~1b/items/0"); !slices.Equal(got, []string{"properties", "a/b", "items", "0"}) {
		t.Errorf("fragment: %q", got)
	}
	if Fragment("mem:///s.json#") != nil || Fragment("mem:///s.json") != nil {
		t.Error("no fragment gave tokens")
	}
	doc := map[string]any{"allOf": []any{map[string]any{"minimum": json.Number("1e9"), "exclusiveMaximum": true, "maximum": json.Number("0.10")}}}
	d := Docs{"mem:///s.json": doc}
	if got := d.Literal("mem:///s.json#/allOf/0", "minimum", big.NewRat(1e9, 1)); got != "1e9" {
		t.Errorf("minimum: %q", got)
	}
	if got := d.Literal("mem:///s.json#/allOf/0", "exclusiveMaximum", big.NewRat(1, 10)); got != "0.10" {
		t.Errorf("draft 4 exclusiveMaximum: %q", got)
	}
	if got := Docs(nil).Literal("mem:///s.json#/allOf/0", "minimum", big.NewRat(1, 4)); got != "0.25" {
		t.Errorf("no document: %q", got)
	}
	if d.Lookup("mem:///s.json#/allOf/1") != nil || d.Lookup("other#") != nil {
		t.Error("lookup found what is not there")
	}
}

func TestLocateAndDecode(t *testing.T) {
	base := map[string]any{"a": []any{"x", "y"}}
	p, v := Locate(base, issues.Path{"in"}, []string{"a", "1"})
	if p.String() != issues.Path([]any{"in", "a", 1}).String() || v != "y" {
		t.Errorf("got %v %v", p, v)
	}
	if p, v := Locate(base, nil, []string{"a", "9", "b"}); len(p) != 3 || p[1] != "9" || v != nil {
		t.Errorf("missing: %v %v", p, v)
	}
	if _, list := DecodeArgs([]byte(`{"a": 1} x`)); len(list) != 1 || list[0].Code != issues.InvalidFormat || list[0].Format != "json" {
		t.Errorf("trailing data: %v", list)
	}
	if v, list := DecodeArgs([]byte(` {"n": 1.50} `)); list != nil || v.(map[string]any)["n"] != json.Number("1.50") {
		t.Errorf("valid: %v %v", v, list)
	}
	if JSONType(json.Number("2")) != "integer" || JSONType(json.Number("2.5")) != "number" || JSONType(2.0) != "number" {
		t.Error("JSONType")
	}
}
