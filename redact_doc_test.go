package selfheal

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/internal/formatter"
)

// WithRedact's doc is where a user reads the default list of sensitive
// names, since the formatter that holds it is internal: it must name each.
func TestWithRedactDocListsDefaults(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "selfheal.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var doc string
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "WithRedact" {
			doc = fn.Doc.Text()
		}
	}
	doc = strings.Join(strings.Fields(doc), " ")
	for _, name := range formatter.DefaultRedact() {
		if !strings.Contains(doc, " "+name+",") && !strings.Contains(doc, " "+name+" ") {
			t.Errorf("WithRedact's doc does not name %q", name)
		}
	}
}
