package selfheal_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDeps: wiring is explicit, so a program links only the validation
// libraries whose adapters it imports. The root package imports no adapter
// (an engine reads raw library errors only through the adapters given to
// WithAdapters); each MCP integration links the JSON Schema library it
// validates with, and nothing else.
func TestDeps(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	const mod = "github.com/selfheal/selfheal"
	want := map[string][]string{
		mod:                               nil,
		mod + "/examples/quickstart":      nil,
		mod + "/adapters/jsondecode":      nil,
		mod + "/adapters/jsonschemav5":    {"jsonschema/v5"},
		mod + "/adapters/jsonschemav6":    {"jsonschema/v6"},
		mod + "/adapters/validatorv10":    {"validator"},
		mod + "/mcp/gosdk":                {"jsonschema/v6"},
		mod + "/mcp/mcpgo":                {"jsonschema/v6"},
		mod + "/mcp/proxy":                {"jsonschema/v6"},
		mod + "/internal/formatter":       nil,
		mod + "/mcp/internal/toolcall":    {"jsonschema/v6"},
		mod + "/adapters/internal/schema": nil,
		mod + "/internal/issuesx":         nil,
		mod + "/locales":                  nil,
		mod + "/envelope":                 nil,
		mod + "/issues":                   nil,
		mod + "/contract":                 nil,
		mod + "/mcp/guard":                nil,
		mod + "/internal/nearmiss":        nil,
	}
	// The libraries, by the prefix of their packages' paths.
	libs := []struct{ name, prefix string }{
		{"validator", "github.com/go-playground/"},
		{"jsonschema/v5", "github.com/santhosh-tekuri/jsonschema/v5"},
		{"jsonschema/v6", "github.com/santhosh-tekuri/jsonschema/v6"},
	}
	pkgs := make([]string, 0, len(want))
	for p := range want {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	args := append([]string{"list", "-f", `{{.ImportPath}} {{join .Deps " "}}`}, pkgs...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		pkg, deps := fields[0], fields[1:]
		seen++
		var linked []string
		for _, lib := range libs {
			if slices.ContainsFunc(deps, func(d string) bool {
				return d == lib.prefix || strings.HasPrefix(d, strings.TrimSuffix(lib.prefix, "/")+"/")
			}) {
				linked = append(linked, lib.name)
			}
		}
		if !slices.Equal(linked, want[pkg]) {
			t.Errorf("%s links %q, want %q", pkg, linked, want[pkg])
		}
		if pkg == mod && slices.ContainsFunc(deps, func(d string) bool { return strings.HasPrefix(d, mod+"/adapters/") }) {
			t.Errorf("the root package imports an adapter")
		}
	}
	if seen != len(want) {
		t.Errorf("go list answered for %d packages of %d:\n%s", seen, len(want), out)
	}
}
