package jsondecode_test

import (
	"strings"
	"testing"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsondecode"
	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
	"github.com/selfheal/selfheal/issues"
)

// TestDecodeMaxDepth: input nested deeper than issues.DefaultMaxDepth is
// refused before it is parsed, with exactly one issue, whatever the target;
// input at the limit decodes.
func TestDecodeMaxDepth(t *testing.T) {
	type args struct {
		A any `json:"a"`
	}
	want := make(issues.Path, issues.DefaultMaxDepth)
	want[0] = "a"
	for i := 1; i < len(want); i++ {
		want[i] = 0
	}
	refused := func(t *testing.T, err error) {
		t.Helper()
		list, ok := err.(issues.List)
		if !ok || len(list) != 1 {
			t.Fatalf("got %T %v, want one issue", err, err)
		}
		is := list[0]
		if is.Code != issues.TooBig || is.Origin != issues.OriginDepth || is.Maximum != "64" ||
			is.Source != "selfheal:depth" || is.Input != (issues.Unknown{Type: "array"}) || is.Path.Compare(want) != 0 {
			t.Fatalf("got %+v", is)
		}
		text := selfheal.New().Format("deep.tool", err)
		if len(text) >= 4096 || strings.Count(text, "<field ") != 1 || !strings.Contains(text, "Nested too deeply.") {
			t.Fatalf("rendered %d bytes:\n%s", len(text), text)
		}
	}
	t.Run("10000 deep", func(t *testing.T) {
		var a args
		refused(t, jsondecode.Decode(jsonschematest.NestedJSON(10000), &a))
		if a.A != nil {
			t.Errorf("the target was filled: %v", a.A)
		}
		var m map[string]any
		refused(t, jsondecode.Decode(jsonschematest.NestedJSON(10000), &m))
	})
	t.Run("100000 deep, beyond encoding/json", func(t *testing.T) {
		var a args
		refused(t, jsondecode.Decode(jsonschematest.NestedJSON(100000), &a))
	})
	t.Run("boundary", func(t *testing.T) {
		var a args
		if err := jsondecode.Decode(jsonschematest.NestedJSON(issues.DefaultMaxDepth), &a); err != nil {
			t.Fatalf("at the limit: %v", err)
		}
		refused(t, jsondecode.Decode(jsonschematest.NestedJSON(issues.DefaultMaxDepth+1), &a))
	})
}
