package jsonschemav5_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/selfheal/selfheal/adapters/jsonschemav5"
	"github.com/selfheal/selfheal/issues"
)

func TestCompileErrors(t *testing.T) {
	for _, c := range []struct{ schema, want string }{
		{`{"type": "object",}`, "not valid JSON"},
		{`{"type": "objekt"}`, "does not compile"},
		{`{"$ref": "http://example.com/remote.json"}`, "does not compile"},
		{`{} {}`, "after the JSON value"},
	} {
		_, err := jsonschemav5.Compile([]byte(c.schema))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error saying %q", c.schema, err, c.want)
		}
	}
}

func TestValidateJSONMalformed(t *testing.T) {
	s, err := jsonschemav5.Compile([]byte(`{"type": "object"}`))
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

// TestValidNoAllocation: a valid instance costs the library's Validate and
// nothing more.
func TestValidNoAllocation(t *testing.T) {
	s, err := jsonschemav5.Compile([]byte(`{"type":"object","required":["a"],"properties":{"a":{"type":"integer","minimum":1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	v := map[string]any{"a": 5}
	lib := testing.AllocsPerRun(100, func() { _ = s.Compiled().Validate(v) })
	ours := testing.AllocsPerRun(100, func() { _ = s.Validate(v) })
	if ours > lib {
		t.Errorf("Validate allocates %v per run, the library %v", ours, lib)
	}
}

// TestFromCompiled: a schema compiled with the library directly still
// gives every constraint, written from the library's exact values.
func TestFromCompiled(t *testing.T) {
	c := jsonschema.NewCompiler()
	if err := c.AddResource("s.json", strings.NewReader(`{"properties":{"n":{"minimum":1e9},"r":{"maximum":0.1}}}`)); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	fc := jsonschemav5.FromCompiled(sch)
	list := fc.Validate(map[string]any{"n": 1.0, "r": 0.5})
	if len(list) != 2 {
		t.Fatalf("got %v", list)
	}
	for _, is := range list {
		switch is.Path.Key() {
		case "n":
			if is.Minimum != "1000000000" {
				t.Errorf("n: minimum %q", is.Minimum)
			}
		case "r":
			if is.Maximum != "0.1" {
				t.Errorf("r: maximum %q", is.Maximum)
			}
		}
	}
	if _, ok := jsonschemav5.Issues(errors.New("other"), nil); ok {
		t.Error("a foreign error was accepted")
	}
	if _, ok := jsonschemav5.Issues(nil, nil); ok {
		t.Error("nil was accepted")
	}
	// Without the schema: codes, paths and values sent, no bounds.
	inst := map[string]any{"n": 1.0}
	bare, ok := jsonschemav5.Issues(sch.Validate(inst), inst)
	if !ok || len(bare) != 1 || bare[0].Code != issues.TooSmall || bare[0].Path.Key() != "n" {
		t.Errorf("bare: %v %v", ok, bare)
	}
}
