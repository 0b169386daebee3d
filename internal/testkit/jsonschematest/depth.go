package jsonschematest

import (
	"strconv"
	"strings"
	"testing"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/issues"
)

// DepthSchema is what Depth asks of an adapter's compiled schema beyond
// Schema.
type DepthSchema interface {
	Schema
	AppendValidate(dst issues.List, instance any) issues.List
}

// NestedJSON is a JSON object whose key "a" holds arrays nested so that
// the whole document is depth levels deep ({"a":[[…]]}).
func NestedJSON(depth int) []byte {
	return []byte(`{"a":` + strings.Repeat("[", depth-1) + "1" + strings.Repeat("]", depth-1) + "}")
}

// Nested is NestedJSON decoded, built by hand so that it may be deeper
// than encoding/json decodes.
func Nested(depth int) any {
	var v any = 1.0
	for range depth - 1 {
		v = []any{v}
	}
	return map[string]any{"a": v}
}

// Depth checks the depth limit of an adapter: compile is its Compile with
// WithMaxDepth(maxDepth). A 10,000-deep instance is refused by Validate,
// AppendValidate and ValidateJSON with exactly one too_big issue of origin
// depth, whose rendered validation_error is small; at the limit an
// instance is validated, one level past it refused; the limit is
// configurable and can be turned off.
func Depth[S DepthSchema](t *testing.T, compile func(schema []byte, maxDepth int) (S, error)) {
	t.Helper()
	open := []byte(`{"type": "object"}`)
	s, err := compile(open, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantPath := make(issues.Path, issues.DefaultMaxDepth)
	wantPath[0] = "a"
	for i := 1; i < len(wantPath); i++ {
		wantPath[i] = 0
	}
	refused := func(t *testing.T, how string, list issues.List, max int, path issues.Path) {
		t.Helper()
		if len(list) != 1 {
			t.Fatalf("%s: %d issues, want 1: %v", how, len(list), list)
		}
		is := list[0]
		if is.Code != issues.TooBig || is.Origin != issues.OriginDepth || is.Source != "selfheal:depth" ||
			is.Maximum != issues.Number(strconv.Itoa(max)) || !is.Inclusive || is.Input != (issues.Unknown{Type: "array"}) {
			t.Fatalf("%s: got %+v", how, is)
		}
		if is.Path.Compare(path) != 0 {
			t.Fatalf("%s: path %v, want %v", how, is.Path, path)
		}
	}

	t.Run("10000 deep", func(t *testing.T) {
		list := s.Validate(Nested(10000))
		refused(t, "Validate", list, issues.DefaultMaxDepth, wantPath)
		refused(t, "ValidateJSON", s.ValidateJSON(NestedJSON(10000)), issues.DefaultMaxDepth, wantPath)
		dst := issues.List{{Code: issues.Custom, Message: "kept"}}
		got := s.AppendValidate(dst, Nested(10000))
		if len(got) != 2 || got[0].Message != "kept" {
			t.Fatalf("AppendValidate: got %v", got)
		}
		refused(t, "AppendValidate", got[1:], issues.DefaultMaxDepth, wantPath)
		text := selfheal.New().Format("deep.tool", list)
		if len(text) >= 4096 || !strings.Contains(text, "Nested too deeply.") || strings.Count(text, "<field ") != 1 {
			t.Fatalf("rendered %d bytes:\n%s", len(text), text)
		}
	})

	t.Run("boundary", func(t *testing.T) {
		max := issues.DefaultMaxDepth
		if list := s.Validate(Nested(max)); list != nil {
			t.Errorf("Validate at the limit: %v", list)
		}
		if list := s.ValidateJSON(NestedJSON(max)); list != nil {
			t.Errorf("ValidateJSON at the limit: %v", list)
		}
		refused(t, "Validate past the limit", s.Validate(Nested(max+1)), max, wantPath)
		refused(t, "ValidateJSON past the limit", s.ValidateJSON(NestedJSON(max+1)), max, wantPath)
	})

	t.Run("configured", func(t *testing.T) {
		s3, err := compile([]byte(`{"type": "object", "properties": {"a": {"type": "array"}}}`), 3)
		if err != nil {
			t.Fatal(err)
		}
		if list := s3.ValidateJSON(NestedJSON(3)); list != nil {
			t.Errorf("at 3: %v", list)
		}
		refused(t, "ValidateJSON at 4", s3.ValidateJSON(NestedJSON(4)), 3, issues.Path{"a", 0, 0})
		refused(t, "Validate at 4", s3.Validate(Nested(4)), 3, issues.Path{"a", 0, 0})
		// Within the limit, the schema's own issues come as before.
		if list := s3.ValidateJSON([]byte(`{"a": {}}`)); len(list) != 1 || list[0].Code != issues.InvalidType {
			t.Errorf("schema issue: %v", list)
		}
	})

	t.Run("off", func(t *testing.T) {
		off, err := compile(open, -1)
		if err != nil {
			t.Fatal(err)
		}
		if list := off.Validate(Nested(200)); list != nil {
			t.Errorf("Validate: %v", list)
		}
		if list := off.ValidateJSON(NestedJSON(200)); list != nil {
			t.Errorf("ValidateJSON: %v", list)
		}
	})
}
