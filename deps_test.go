package selfheal_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps: the root package recognises the adapters' errors through
// issues.Carrier and imports no adapter, so a program links only the
// validation libraries it uses; a go-sdk server links no
// go-playground/validator.
func TestDeps(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	for _, pkg := range []string{"github.com/selfheal/selfheal", "github.com/selfheal/selfheal/mcp/gosdk"} {
		for _, d := range deps(pkg) {
			if strings.HasPrefix(d, "github.com/go-playground/") {
				t.Errorf("%s links %s", pkg, d)
			}
		}
	}
	for _, d := range deps("github.com/selfheal/selfheal") {
		if strings.HasPrefix(d, "github.com/selfheal/selfheal/adapters/") {
			t.Errorf("the root package imports %s", d)
		}
	}
}
