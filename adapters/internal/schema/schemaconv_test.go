package schema

import (
	"encoding/json"
	"math/big"
	"slices"
	"testing"

	"github.com/selfheal/selfheal/internal/issuesx"
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
	if is := list[1]; is.Code != issues.TooBig || is.Maximum != "2" || issuesx.LastKey(is.Path) != "tail" {
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
	if got := Literal(d.Object("mem:///s.json#/allOf/0"), "minimum", big.NewRat(1e9, 1)); got != "1e9" {
		t.Errorf("minimum: %q", got)
	}
	if got := Literal(d.Object("mem:///s.json#/allOf/0"), "exclusiveMaximum", big.NewRat(1, 10)); got != "0.10" {
		t.Errorf("draft 4 exclusiveMaximum: %q", got)
	}
	if got := Literal(Docs(nil).Object("mem:///s.json#/allOf/0"), "minimum", big.NewRat(1, 4)); got != "0.25" {
		t.Errorf("no document: %q", got)
	}
	if d.Object("mem:///s.json#/allOf/1") != nil || d.Object("other#") != nil {
		t.Error("lookup found what is not there")
	}
}

func TestLocateAndDecode(t *testing.T) {
	base := map[string]any{"a": []any{"x", "y"}}
	p, v := Locate(base, []string{"a", "1"})
	if p.String() != issues.Path([]any{"a", 1}).String() || v != "y" {
		t.Errorf("got %v %v", p, v)
	}
	if p, v := Locate(base, []string{"a", "9", "b"}); len(p) != 3 || p[1] != "9" || v != nil {
		t.Errorf("missing: %v %v", p, v)
	}
	if _, list := DecodeArgs([]byte(`{"a": 1} x`), 0); len(list) != 1 || list[0].Code != issues.InvalidFormat || list[0].Format != "json" {
		t.Errorf("trailing data: %v", list)
	}
	if v, list := DecodeArgs([]byte(` {"n": 1.50} `), 0); list != nil || v.(map[string]any)["n"] != json.Number("1.50") {
		t.Errorf("valid: %v %v", v, list)
	}
	if JSONType(json.Number("2")) != "integer" || JSONType(json.Number("2.5")) != "number" || JSONType(2.0) != "number" {
		t.Error("JSONType")
	}
}

// TestLocate: the instance decides what each token of a location is, a
// key or an index, and the root is an empty path, not nil.
func TestLocate(t *testing.T) {
	base := map[string]any{"a": []any{"x", map[string]any{"b": true}}, "7": 1}
	for _, c := range []struct {
		toks []string
		want string
	}{
		{[]string{"a", "1", "b"}, "a[1].b"},
		{[]string{"a"}, "a"},
		{nil, "(root)"},
		{[]string{"7"}, `["7"]`},
		{[]string{"a", "0", "b"}, "a[0].b"},
		{[]string{"a", "1", "b", "c"}, "a[1].b.c"},
	} {
		if p, _ := Locate(base, c.toks); p.String() != c.want || p == nil {
			t.Errorf("%v: got %v, want %s", c.toks, p, c.want)
		}
	}
}

// TestSinkFrom: a sink after the caller's issues leaves them alone and
// returns them when it adds none.
func TestSinkFrom(t *testing.T) {
	dst := issues.List{{Code: issues.Custom, Message: "caller's"}}
	allowed := []string{"a", "b"}
	k := Sink{Out: dst, From: 1}
	k.UnrecognizedKeys(issues.Path{"o"}, nil, []string{"x", "y"}, allowed, "jsonschema:additionalProperties")
	k.Add(issues.TooBig, issues.Path{"n"}, 3, "jsonschema:maximum").Maximum = "2"
	list := k.Finish()
	if len(list) != 3 || list[0].Message != "caller's" || list[2].Maximum != "2" {
		t.Fatalf("got %v", list)
	}
	if is := list[1]; !slices.Equal(is.Keys, []string{"x", "y"}) || !slices.Equal(is.Allowed, allowed) {
		t.Errorf("keys: %+v", is)
	}
	empty := Sink{Out: dst, From: 1}
	if got := empty.Finish(); len(got) != 1 {
		t.Errorf("nothing added: %v", got)
	}
}

// TestSinkManyObjects: unrecognized keys of many objects still merge per
// object once the sink keys them by path.
func TestSinkManyObjects(t *testing.T) {
	var k Sink
	for round := range 2 {
		for i := range 20 {
			k.Unrecognized(issues.Path{"items", i}, nil, string(rune('a'+round)), nil, "jsonschema:unevaluatedProperties")
		}
	}
	k.UnrecognizedKeys(issues.Path{"items", 3}, nil, []string{"c", "d"}, nil, "jsonschema:additionalProperties")
	list := k.Finish()
	if len(list) != 20 {
		t.Fatalf("%d issues", len(list))
	}
	for i, is := range list {
		want := []string{"a", "b"}
		if i == 3 {
			want = []string{"a", "b", "c", "d"}
		}
		if is.Path[1] != i || !slices.Equal(is.Keys, want) {
			t.Errorf("%d: %v %v", i, is.Path, is.Keys)
		}
	}
}
