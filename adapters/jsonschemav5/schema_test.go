package jsonschemav5_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/selfheal/selfheal/adapters/jsonschemav5"
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
	"github.com/selfheal/selfheal/issues"
)

// compile is Compile with its defaults, for the shared tests.
func compile(schema []byte) (*jsonschemav5.Schema, error) { return jsonschemav5.Compile(schema) }

func TestCompileErrors(t *testing.T) {
	jsonschematest.CompileErrors(t, compile)
}

func TestValidateJSONMalformed(t *testing.T) {
	jsonschematest.ValidateJSONMalformed(t, compile)
}

// TestValidNoAllocation: a valid instance costs the library's Validate and
// nothing more.
func TestValidNoAllocation(t *testing.T) {
	jsonschematest.ValidNoAllocation(t, compile, func(s *jsonschemav5.Schema, v any) error { return s.Compiled().Validate(v) })
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
		switch issuesx.LastKey(is.Path) {
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
	if !ok || len(bare) != 1 || bare[0].Code != issues.TooSmall || issuesx.LastKey(bare[0].Path) != "n" {
		t.Errorf("bare: %v %v", ok, bare)
	}
}
