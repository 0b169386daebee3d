package jsonschemav5_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/adapters/jsonschemav5"
)

// TestPropertyNamesPath: jsonschema v6.0.3 records a propertyNames failure
// with a location that a later sibling overwrites; the issue must still sit
// at the object whose key failed, every time (map order varies per run).
func TestPropertyNamesPath(t *testing.T) {
	sch, err := jsonschemav5.Compile([]byte(`{"type": "object", "properties": {
		"name": {"type": "string"}, "email": {"type": "string"}, "age": {"type": "integer"},
		"labels": {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}},
		"items": {"type": "array", "items": {"type": "object", "propertyNames": {"maxLength": 3}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	instance := map[string]any{"name": "x", "email": "y", "age": 1.0,
		"labels": map[string]any{"Bad Key": 1.0},
		"items":  []any{map[string]any{"ok": 1.0}, map[string]any{"toolong": 1.0}, map[string]any{"long2": 1.0}}}
	for i := 0; i < 200; i++ {
		list := sch.Validate(instance)
		var got []string
		for _, is := range list {
			got = append(got, is.Path.String()+":"+string(is.Code))
		}
		want := "[items[1]:invalid_key items[2]:invalid_key labels:invalid_key]"
		slices.Sort(got)
		if s := "[" + strings.Join(got, " ") + "]"; s != want {
			t.Fatalf("run %d: %s, want %s", i, s, want)
		}
	}
}
