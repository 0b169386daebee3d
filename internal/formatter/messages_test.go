package formatter

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/internal/catalog"
	"github.com/selfheal/selfheal/internal/templates"
)

// builtFamilies are the keys the formatter builds from an issue's facts
// (see Formatter.msg): the first parts of those keys.
var builtFamilies = []string{"too_small", "too_big", "invalid_format", "custom", "condition", "unit", "type",
	"format", "invalid_union", "invalid_key", "invalid_element",
	"recovery"} // New looks it up once

// literalKeys returns the keys the formatter's code names as literals:
// the argument of every call of a method m.
func literalKeys(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "m" {
				lit, ok := call.Args[0].(*ast.BasicLit)
				if !ok {
					t.Errorf("%s: a message key that is not a literal", fset.Position(call.Pos()))
					return true
				}
				k, _ := strconv.Unquote(lit.Value)
				keys = append(keys, k)
			}
			return true
		})
	}
	if len(keys) < 50 {
		t.Fatalf("found %d literal keys: the parse missed them", len(keys))
	}
	return keys
}

// Every key the formatter names is a message of every shipped catalog: a
// misspelt key fails here instead of falling back to other wording in
// front of a model. And every shipped catalog has the keys English has
// (but the formats' own descriptions, which are data about a format).
func TestMessageKeys(t *testing.T) {
	keys := literalKeys(t)
	en := catalog.Default()
	for _, lc := range catalog.Available() {
		cat := lc
		for _, k := range keys {
			if !slices.ContainsFunc(cat.Keys(), func(id templates.ID) bool { return id.String() == k }) {
				t.Errorf("%s: the formatter names %q, which the catalog does not have", cat.Tag(), k)
			}
		}
		for _, id := range en.Keys() {
			if id[0] != "format" && cat.Message(id[0], id[1], id[2]) == nil {
				t.Errorf("%s: no message %q", cat.Tag(), id.String())
			}
		}
	}
}

// Every message of the catalogs is one the formatter names, or one of a
// family it builds keys in: a catalog key no line can reach is dead
// wording.
func TestEveryCatalogKeyReachable(t *testing.T) {
	keys := literalKeys(t)
	for _, lc := range catalog.Available() {
		cat := lc
		for _, id := range cat.Keys() {
			if !slices.Contains(keys, id.String()) && !slices.Contains(builtFamilies, id[0]) {
				t.Errorf("%s: no line words key %q", cat.Tag(), id.String())
			}
		}
	}
}
