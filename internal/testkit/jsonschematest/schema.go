package jsonschematest

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/internal/testkit/race"

	"github.com/selfheal/selfheal/issues"
)

// Schema is what the shared tests below ask of an adapter's compiled schema.
type Schema interface {
	Validate(instance any) issues.List
	ValidateJSON(data []byte) issues.List
}

// Conformance runs the suite through compile (see Run) and, when record is
// set, writes the summary to file (the adapter's recorded pass counts).
func Conformance(t *testing.T, adapter string, compile Compiler, known map[string]string, record bool, file string) {
	summary := Run(t, adapter, compile, known)
	if record {
		if err := os.WriteFile(file, []byte(summary), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// CompileErrors checks that compile, the adapter's Compile with its
// defaults, refuses a schema that is not JSON, one the meta-schema rejects,
// one whose reference cannot be loaded and one followed by more data, each
// with an error that says which.
func CompileErrors[S Schema](t *testing.T, compile func(schema []byte) (S, error)) {
	t.Helper()
	for _, c := range []struct{ schema, want string }{
		{`{"type": "object",}`, "not valid JSON"},
		{`{"type": "objekt"}`, "does not compile"},
		{`{"$ref": "http://example.com/remote.json"}`, "does not compile"},
		{`{} {}`, "after the JSON value"},
	} {
		_, err := compile([]byte(c.schema))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error saying %q", c.schema, err, c.want)
		}
	}
}

// ValidateJSONMalformed checks that ValidateJSON reports malformed JSON as
// one invalid_format issue (format "json") at the root, and nothing for
// well-formed valid data.
func ValidateJSONMalformed[S Schema](t *testing.T, compile func(schema []byte) (S, error)) {
	t.Helper()
	s, err := compile([]byte(`{"type": "object"}`))
	if err != nil {
		t.Fatal(err)
	}
	list := s.ValidateJSON([]byte(`{"a": 1,}`))
	if len(list) != 1 || list[0].Code != issues.InvalidFormat || list[0].Format != "json" || len(list[0].Path) != 0 {
		t.Fatalf("got %#v", list)
	}
	if list := s.ValidateJSON([]byte(`{"a": 1}`)); list != nil {
		t.Fatalf("valid: got %v", list)
	}
}

// ValidNoAllocation checks that the adapter's Validate of a valid instance
// allocates no more than lib, the library's own Validate of the schema.
func ValidNoAllocation[S Schema](t *testing.T, compile func(schema []byte) (S, error), lib func(s S, instance any) error) {
	t.Helper()
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	s, err := compile([]byte(`{"type":"object","required":["a"],"properties":{"a":{"type":"integer","minimum":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	v := map[string]any{"a": 5}
	libAllocs := testing.AllocsPerRun(100, func() { _ = lib(s, v) })
	ours := testing.AllocsPerRun(100, func() { _ = s.Validate(v) })
	if ours > libAllocs {
		t.Errorf("Validate allocates %v per run, the library %v", ours, libAllocs)
	}
}

// PropertyNamesPath checks that a propertyNames failure sits at the object
// whose key failed, every time: jsonschema v6.0.3 records its location in
// a slice that a later sibling overwrites, and map order varies per run.
func PropertyNamesPath[S Schema](t *testing.T, compile func(schema []byte) (S, error)) {
	sch, err := compile([]byte(`{"type": "object", "properties": {
		"name": {"type": "string"}, "email": {"type": "string"}, "age": {"type": "integer"},
		"labels": {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}},
		"items": {"type": "array", "items": {"type": "object", "propertyNames": {"maxLength": 3}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	instance := map[string]any{"name": "x", "email": "y", "age": 1.0,
		"labels": map[string]any{"Bad Key": 1.0},
		"items":  []any{map[string]any{"ok": 1.0}, map[string]any{"toolong": 1.0}, map[string]any{"long2": 1.0}}}
	const want = "items[1]:invalid_key items[2]:invalid_key labels:invalid_key"
	for i := 0; i < 200; i++ {
		var got []string
		for _, is := range sch.Validate(instance) {
			got = append(got, is.Path.String()+":"+string(is.Code))
		}
		slices.Sort(got)
		if s := strings.Join(got, " "); s != want {
			t.Fatalf("run %d: %s, want %s", i, s, want)
		}
	}
}
