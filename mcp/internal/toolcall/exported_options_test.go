package toolcall

import (
	"bytes"
	"go/format"
	"path/filepath"
	"testing"
	"text/template"

	"github.com/selfheal/selfheal/internal/testkit/golden"
)

// The options of mcp/gosdk and mcp/mcpgo, their Option and CallOption and
// the With… wrappers with the documentation users read, are written once,
// in exported_options.go.tmpl; each package's options.go is its rendering,
// a golden file that -update rewrites. What differs between the two is only
// what their SDKs do differently, in the template's {{if}}s.
func TestExportedOptions(t *testing.T) {
	defer func() {
		if t.Failed() { // golden.Check's hint alone would have a hand edit overwritten
			t.Log("each options.go is rendered from exported_options.go.tmpl: edit the template, then run -update")
		}
	}()
	tmpl := template.Must(template.ParseFiles("exported_options.go.tmpl"))
	for _, pkg := range []string{"gosdk", "mcpgo"} {
		var b bytes.Buffer
		if err := tmpl.Execute(&b, struct{ Pkg string }{pkg}); err != nil {
			t.Fatal(err)
		}
		src, err := format.Source(b.Bytes())
		if err != nil {
			t.Fatalf("%s: %v\n%s", pkg, err, b.Bytes())
		}
		// golden.Check names its files under testdata/: these goldens are
		// the packages' own sources, three levels up from there.
		golden.Check(t, filepath.Join("..", "..", "..", pkg, "options.go"), src)
	}
}
