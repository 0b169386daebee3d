package toolcall

import (
	"testing"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
	"github.com/selfheal/selfheal/issues"
)

// The integration's MaxDepth is the tool's one limit: it wins over a
// jsonschemav6.WithMaxDepth among SchemaOpts, and 0 is the default.
func TestSchemaOptionsDepth(t *testing.T) {
	for _, tc := range []struct {
		max, schemaMax, want int
	}{
		{0, 0, issues.DefaultMaxDepth},
		{5, 0, 5},
		{0, 7, issues.DefaultMaxDepth},
		{5, 7, 5},
		{-1, 7, -1},
	} {
		c := Config{MaxDepth: tc.max, SchemaOpts: []jsonschemav6.Option{jsonschemav6.WithMaxDepth(tc.schemaMax)}}
		sch, err := jsonschemav6.Compile([]byte(`{}`), c.SchemaOptions()...)
		if err != nil {
			t.Fatal(err)
		}
		// The limit in force: Validate admits nesting up to it and refuses
		// one level more; -1 admits anything.
		if tc.want < 0 {
			if list := sch.Validate(jsonschematest.Nested(200)); list != nil {
				t.Errorf("MaxDepth %d over schema %d: 200 levels refused: %v", tc.max, tc.schemaMax, list)
			}
		} else if sch.Validate(jsonschematest.Nested(tc.want)) != nil || !IsDepthRefusal(sch.Validate(jsonschematest.Nested(tc.want+1))) {
			t.Errorf("MaxDepth %d over schema %d: the limit is not %d", tc.max, tc.schemaMax, tc.want)
		}
		if len(c.SchemaOpts) != 1 {
			t.Errorf("SchemaOptions changed SchemaOpts: %d", len(c.SchemaOpts))
		}
	}
}

func TestDepthIssues(t *testing.T) {
	if list := DepthIssues([]byte(`{"a":[1]}`), 2); list != nil {
		t.Errorf("within: %v", list)
	}
	list := DepthIssues([]byte(`{"a":[[1]]}`), 2)
	if !IsDepthRefusal(list) || list[0].Path.String() != "a[0]" {
		t.Errorf("past: %v", list)
	}
	if IsDepthRefusal(issues.List{{Code: issues.TooBig}}) || IsDepthRefusal(append(list, list...)) {
		t.Error("not a depth refusal, yet reported as one")
	}
}
