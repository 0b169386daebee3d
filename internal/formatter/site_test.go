package formatter

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/selfheal/selfheal/internal/catalog"
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/internal/race"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/locales"
)

// siteIssues are issues the rules word from their facts, as adapters build
// them at a site: each is rendered below with many values through one site.
var siteIssues = []issues.Issue{
	{Code: issues.TooSmall, Path: issues.Path{"age"}, Origin: issues.OriginNumber, Minimum: "18", Inclusive: true, Source: "validator:gte"},
	{Code: issues.TooSmall, Path: issues.Path{"bio"}, Origin: issues.OriginString, Minimum: "10", Inclusive: true, Source: "validator:min"},
	{Code: issues.TooSmall, Path: issues.Path{"count"}, Minimum: "3", Source: "validator:gt"}, // origin from the value
	{Code: issues.TooBig, Path: issues.Path{"tags"}, Origin: issues.OriginArray, Maximum: "2", Inclusive: true, Exact: true, Source: "validator:len"},
	{Code: issues.TooBig, Path: issues.Path{"items", 3, "qty"}, Origin: issues.OriginInteger, Maximum: "99", Inclusive: true, Source: "validator:lte"},
	{Code: issues.InvalidFormat, Path: issues.Path{"email"}, Format: "email", Source: "validator:email"},
	{Code: issues.InvalidFormat, Path: issues.Path{"when"}, Format: "datetime", Layout: "2006-01-02", Source: "validator:datetime"},
	{Code: issues.InvalidFormat, Path: issues.Path{"code"}, Format: "starts_with", Prefix: "ab", Source: "validator:startswith"},
	{Code: issues.InvalidType, Path: issues.Path{"name"}, Absent: true, Expected: issuesx.TypesOf("string"), Source: "validator:required"},
	{Code: issues.TooSmall, Path: issues.Path{"password"}, Origin: issues.OriginString, Minimum: "12", Inclusive: true, Source: "validator:min"}, // sensitive
	{Code: issues.InvalidFormat, Path: issues.Path{strings.Repeat("k", 300)}, Format: "uuid", Source: "validator:uuid"},                          // a cut name
	// Worded from the value too: a quoted number, a did-you-mean.
	{Code: issues.InvalidType, Path: issues.Path{"qty"}, Expected: issuesx.TypesOf("integer"), Source: "jsonschema:type"},
	{Code: issues.InvalidValue, Path: issues.Path{"role"}, Values: []any{"admin", "member", 3}, Source: "jsonschema:enum"},
}

// siteInputs are values of every kind a model may send.
var siteInputs = []any{
	"", "a", "sss", "not-an-email-3", "36", "Admin", "membr", strings.Repeat("é", 200), "<b>&amp;</b>]]>", "]]", "x]", "bad\xffutf8", "\xe2\x82", "\u2028line",
	3, 42.5, -1, json.Number("17"), json.Number("1e400"), issues.Number("7"), true, nil,
	[]any{1, "x"}, map[string]any{"a": 1}, issues.Unknown{}, issues.Unknown{Type: "string"},
}

// TestSiteLines holds what a site keeps to the usual wording: every issue,
// with every value, in turn through one site (so that each is worded from
// what the first one left there), reads as it does without a site, in
// English and Japanese alike, through two formatters sharing the sites.
//
// A third formatter's messages begin their text after a value with what
// cannot be escaped apart from it (see xmlenc.AppendTextAnywhere), or are
// empty: its site lines are written the way the others' are not.
func TestSiteLines(t *testing.T) {
	en := New(DefaultOptions())
	ja := New(Options{Catalog: locales.Match("ja"), Examples: true})
	ref := (*catalog.Catalog)(locales.Default())
	oddCat, err := ref.With(map[string]string{
		"too_small.number":     "{sent}>{minimum}",
		"too_small.string":     "{sent}]]>{size}]",
		"too_big.array":        "{sent}\u00e9 and more",
		"too_big.array.exact":  "{sent}]>{maximum}]", // "]]>" after an array
		"invalid_type.missing": "",
	}, ref)
	if err != nil {
		t.Fatal(err)
	}
	odd := New(Options{Catalog: (*locales.Catalog)(oddCat)})
	for _, base := range siteIssues {
		// A site keeps the line of the first value's kind (of a value
		// line, the lines of the first kinds and messages): each kind in
		// turn is the first.
		for _, first := range siteInputs {
			site := new(issuesx.Site)
			for _, in := range append([]any{first}, siteInputs...) {
				is := base
				is.Input = in
				list := issues.List{is}
				for _, f := range []*Formatter{en, ja, odd} {
					want := string(f.AppendValidation(nil, "t", list))
					got := string(f.AppendValidationAt(nil, "t", list, []*issuesx.Site{site}))
					if got != want {
						t.Fatalf("%v with %#v through a site made for %#v:\n%s\nwant\n%s", base.Path, in, first, got, want)
					}
				}
			}
			n := len(site.Lines())
			switch {
			case wordedByValue(&base, nil) && n < 3:
				// A line per kind of value and message chosen, as room allows.
				t.Errorf("%v: the site keeps %d lines, want one or more per formatter", base.Path, n)
			case !wordedByValue(&base, nil) && n != 3:
				t.Errorf("%v: the site keeps %d lines, want one per formatter", base.Path, n)
			}
		}
	}
}

// TestSiteLinesAllocs: a line worded from its site allocates nothing.
func TestSiteLinesAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	f := New(DefaultOptions())
	list := make(issues.List, len(siteIssues))
	sites := make([]*issuesx.Site, len(siteIssues))
	for i := range list {
		list[i], sites[i] = siteIssues[i], new(issuesx.Site)
		list[i].Input = "abc"
	}
	buf := f.AppendValidationAt(nil, "t", list, sites)
	if n := testing.AllocsPerRun(200, func() { buf = f.AppendValidationAt(buf[:0], "t", list, sites) }); n != 0 {
		t.Errorf("AppendValidationAt allocates %v times per call", n)
	}
}

// TestSiteLinesConcurrent: formatters working out and reading the lines of
// shared sites from many goroutines at once (run it with -race).
func TestSiteLinesConcurrent(t *testing.T) {
	fs := []*Formatter{New(DefaultOptions()), New(Options{Catalog: locales.Match("ja")}), New(Options{MaxValueRunes: 5})}
	sites := make([]*issuesx.Site, len(siteIssues))
	for i := range sites {
		sites[i] = new(issuesx.Site)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := fs[g%len(fs)]
			list := make(issues.List, len(siteIssues))
			for n := range 50 {
				for i := range list {
					list[i] = siteIssues[i]
					list[i].Input = siteInputs[(n+i)%len(siteInputs)]
				}
				got := string(f.AppendValidationAt(nil, "t", list, sites))
				if want := string(f.AppendValidation(nil, "t", list)); got != want {
					t.Errorf("goroutine %d:\n%s\nwant\n%s", g, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestSiteLinesFullSite: a formatter that finds a site kept by as many
// formatters as it may hold words its issues the usual way, without
// allocating, and as they read without the site; for an issue worded from
// its value too as well.
func TestSiteLinesFullSite(t *testing.T) {
	for _, tc := range []struct {
		is    issues.Issue
		input any
	}{
		{siteIssues[1], "abc"},
		{siteIssues[len(siteIssues)-1], "Admin"}, // a did-you-mean
	} {
		site := new(issuesx.Site)
		is := tc.is
		is.Input = tc.input
		list, sites := issues.List{is}, []*issuesx.Site{site}
		for n := 1; !site.Full(); n++ {
			if n > 64 {
				t.Fatalf("%v: %d lines kept by %d formatters, and the site is not full", is.Path, len(site.Lines()), n-1)
			}
			New(DefaultOptions()).AppendValidationAt(nil, "t", list, sites)
		}
		f := New(DefaultOptions())
		want := string(f.AppendValidation(nil, "t", list))
		buf := f.AppendValidationAt(nil, "t", list, sites)
		if string(buf) != want {
			t.Errorf("%v through a full site:\n%s\nwant\n%s", is.Path, buf, want)
		}
		if race.Enabled {
			continue
		}
		if n := testing.AllocsPerRun(100, func() { buf = f.AppendValidationAt(buf[:0], "t", list, sites) }); n != 0 {
			t.Errorf("%v: a formatter finding the site full allocates %v times per call", is.Path, n)
		}
	}
}
