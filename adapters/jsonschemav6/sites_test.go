package jsonschemav6_test

import (
	"bytes"
	"testing"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/internal/facade"
	"github.com/selfheal/selfheal/internal/formatter"
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/internal/jsonschematest"
	"github.com/selfheal/selfheal/issues"
)

// siteFormatters are the formatters of jsonschematest.SiteEngines.
func siteFormatters(t *testing.T) []*formatter.Formatter {
	t.Helper()
	var fs []*formatter.Formatter
	for _, e := range jsonschematest.SiteEngines(t) {
		fs = append(fs, facade.Formatter(e))
	}
	return fs
}

// checkSites fails t unless list reads the same through sites as without
// them, on the first call (when formatters work out the sites' lines) and
// on the calls after it (when they use them). It returns how many issues
// had a site.
func checkSites(t *testing.T, name string, fs []*formatter.Formatter, list issues.List, sites []*issuesx.Site) int {
	t.Helper()
	n := 0
	for i, s := range sites {
		if s == nil {
			continue
		}
		if i >= len(list) {
			t.Errorf("%s: a site at %d, past the %d issues", name, i, len(list))
		}
		n++
	}
	for _, f := range fs {
		want := f.AppendValidation(nil, "t", list)
		for call := 1; call <= 2; call++ {
			if got := f.AppendValidationAt(nil, "t", list, sites); !bytes.Equal(got, want) {
				t.Errorf("%s: call %d through sites:\n%s\nwant\n%s", name, call, got, want)
			}
		}
	}
	return n
}

// TestSiteLines: every failing instance of the JSON Schema Test Suite reads
// the same through the sites its issues were built at as without them.
func TestSiteLines(t *testing.T) {
	if testing.Short() {
		t.Skip("the whole suite, again")
	}
	fs := siteFormatters(t)
	sited := 0
	compile := func(schema []byte, cfg jsonschematest.Config) (jsonschematest.Validator, error) {
		s, err := compileSuiteSchema(schema, cfg)
		if err != nil {
			return nil, err
		}
		return func(instance any) issues.List {
			list, sites := s.ValidateAt(instance)
			sited += checkSites(t, string(schema), fs, list, sites)
			return list
		}, nil
	}
	jsonschematest.Run(t, "jsonschemav6 with sites", compile, knownV6)
	// Sizes, bounds, patterns and missing properties at fixed places: the
	// suite has a few hundred.
	if sited < 150 {
		t.Errorf("%d issues had a site, want at least 150", sited)
	}
}

// TestSiteLinesNearMiss: a near miss goes after the library's issues,
// which keep their indexes and so their sites, the missing property it
// stands for too (their merged line is worded at its site), and every
// call reads the same through the sites as without them.
func TestSiteLinesNearMiss(t *testing.T) {
	s, err := jsonschemav6.Compile([]byte(`{
		"type": "object",
		"required": ["email", "name", "zip"],
		"properties": {
			"email": {"type": "string"},
			"name": {"type": "string", "minLength": 2},
			"zip": {"type": "string", "pattern": "^[0-9]{5}$"}
		}
	}`), jsonschemav6.WithTypos(true))
	if err != nil {
		t.Fatal(err)
	}
	fs := siteFormatters(t)
	for _, tc := range []struct {
		name     string
		instance map[string]any
		sited    int
	}{
		{"no near miss", map[string]any{"name": "A", "zip": "x"}, 3},
		{"a near miss for the first", map[string]any{"emial": "a@b.c", "name": "A", "zip": "x"}, 3},
		{"a near miss for the last", map[string]any{"email": "a@b.c", "name": "A", "zpi": "x"}, 2},
	} {
		list, sites := s.ValidateAt(tc.instance)
		if n := checkSites(t, tc.name, fs, list, sites); n != tc.sited {
			t.Errorf("%s: %d issues had a site, want %d (%v)", tc.name, n, tc.sited, list)
		}
	}
}
