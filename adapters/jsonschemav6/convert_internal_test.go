package jsonschemav6

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal/adapters/internal/schema"
	"github.com/selfheal/selfheal/issues"
)

// TestAppendIssuesKnown: a Schema converts each failure with the instance
// at hand; the root package's Engine, handed the library's error alone,
// uses a nil *Schema and issues.Unknown{}. Both find every failure; the
// first also knows the missing property's type and writes the bound as the
// schema did.
func TestAppendIssuesKnown(t *testing.T) {
	const url = "mem:///tool.json"
	doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(`{"type": "object",
		"properties": {"qty": {"type": "integer", "minimum": 1.0}, "sku": {"type": "string"}},
		"required": ["sku"]}`))
	c := jsonschema.NewCompiler()
	_ = c.AddResource(url, doc)
	sch := c.MustCompile(url)
	args := map[string]any{"qty": json.Number("0")}
	err := sch.Validate(args)

	known, _ := (&Schema{sch: sch, subs: index(sch, schema.Docs{url: doc})}).appendIssues(nil, err, args)
	bare, _ := (*Schema)(nil).appendIssues(nil, err, issues.Unknown{})
	var got []string
	for _, is := range append(known, bare...) {
		got = append(got, fmt.Sprintf("%s %s expected=%q minimum=%q", is.Path, is.Code, is.Expected, is.Minimum))
	}
	want := []string{
		`sku invalid_type expected="string" minimum=""`,
		`qty too_small expected="" minimum="1.0"`,
		`sku invalid_type expected="" minimum=""`,
		`qty too_small expected="" minimum="1"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
