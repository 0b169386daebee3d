package jsonschemav6_test

import (
	"errors"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
)

// compile is Compile with its defaults, for the shared tests.
func compile(schema []byte) (*jsonschemav6.Schema, error) { return jsonschemav6.Compile(schema) }

func TestCompileErrors(t *testing.T) {
	jsonschematest.CompileErrors(t, compile)
}

func TestValidateJSONMalformed(t *testing.T) {
	jsonschematest.ValidateJSONMalformed(t, compile)
}

// TestValidNoAllocation: a valid instance costs the library's Validate and
// nothing more.
func TestValidNoAllocation(t *testing.T) {
	jsonschematest.ValidNoAllocation(t, compile, func(s *jsonschemav6.Schema, v any) error { return s.Compiled().Validate(v) })
}

// TestIssuesWithoutSchema: the package-level Issues words what the error
// carries: exact values, written plainly.
func TestIssuesWithoutSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	if err := c.AddResource("s.json", map[string]any{"properties": map[string]any{
		"n": map[string]any{"minimum": 1e9}, "r": map[string]any{"maximum": 0.1}}}); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	inst := map[string]any{"n": 1.0, "r": 0.5}
	list, ok := jsonschemav6.Issues(sch.Validate(inst), inst)
	if !ok || len(list) != 2 {
		t.Fatalf("got %v %v", ok, list)
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
	if _, ok := jsonschemav6.Issues(errors.New("other"), nil); ok {
		t.Error("a foreign error was accepted")
	}
	if _, ok := jsonschemav6.Issues(nil, nil); ok {
		t.Error("nil was accepted")
	}
	fc := jsonschemav6.FromCompiled(sch)
	if list := fc.Validate(map[string]any{"n": 2e9}); list != nil {
		t.Errorf("valid: %v", list)
	}
}
