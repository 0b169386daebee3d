package jsonschemav5

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/selfheal/selfheal/adapters/internal/schema"
	"github.com/selfheal/selfheal/internal/jsonvalue"
)

// TestAppendRaw: an error handed over alone, without the instance or the
// compiled schema, gives one custom issue per failure carrying the
// library's own message, at the path it names.
func TestAppendRaw(t *testing.T) {
	sch := jsonschema.MustCompileString("tool.json", `{"type": "object",
		"properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
		"required": ["name"]}`)
	err := sch.Validate(map[string]any{"tags": []any{"ok", 7}})

	list, ok := appendRaw(nil, err)
	var got []string
	for _, is := range list {
		got = append(got, fmt.Sprintf("%s %s: %s", is.Path, is.Code, is.Message))
	}
	want := []string{"(root) custom: missing properties: 'name'", "tags[1] custom: expected string, but got number"}
	if !ok || !slices.Equal(got, want) {
		t.Errorf("got %v %q, want true %q", ok, got, want)
	}
}

// TestPointer: version 5 escapes a pointer's tokens and then
// percent-encodes them: a key holding '/' or a space reads back whole.
func TestPointer(t *testing.T) {
	if got, want := pointer("/labels/a~1b%20c/0"), []string{"labels", "a/b c", "0"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestAppendIssuesKnown: with the schema prepared, the issues know the
// missing property's type and write the bound as the schema did.
func TestAppendIssuesKnown(t *testing.T) {
	const url = "mem:///tool.json"
	text := `{"type": "object",
		"properties": {"qty": {"type": "integer", "minimum": 1.0}, "sku": {"type": "string"}},
		"required": ["sku"]}`
	doc, _ := jsonvalue.Decode([]byte(text))
	c := jsonschema.NewCompiler()
	_ = c.AddResource(url, strings.NewReader(text))
	sch := c.MustCompile(url)
	args := map[string]any{"qty": json.Number("0")}
	err := sch.Validate(args)

	s := &Schema{sch: sch, locs: schema.Index(sch, read), docs: schema.Docs{url: doc}}
	list, _ := s.appendIssues(nil, err, args)
	var got []string
	for _, is := range list {
		got = append(got, fmt.Sprintf("%s %s expected=%q minimum=%q", is.Path, is.Code, is.Expected, is.Minimum))
	}
	want := []string{`sku invalid_type expected="string" minimum=""`, `qty too_small expected="" minimum="1.0"`}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
