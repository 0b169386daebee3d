package formatter

import (
	"strings"
	"sync"
	"testing"

	"github.com/selfheal/selfheal/internal/catalog"
	"github.com/selfheal/selfheal/issues"
)

// The pooled state must never change a line: every golden case, in every
// language, with and without examples, renders the same on its first call
// and on the calls after it, which reuse the first one's buffers and memos.
func TestRepeatedCallsRenderTheSameLines(t *testing.T) {
	all := append(cases[:len(cases):len(cases)], formatCases()...)
	for _, cat := range catalog.Available() {
		for _, examples := range []bool{true, false} {
			f := New(Options{Catalog: cat, Examples: examples})
			for _, c := range all {
				list := issues.List{c.issue}
				first := string(f.AppendValidation(nil, "t", list))
				for pass := 2; pass <= 3; pass++ {
					if got := string(f.AppendValidation(nil, "t", list)); got != first {
						t.Fatalf("%s %s (examples %v), call %d:\n%s\nfirst call:\n%s", cat.Tag(), c.name, examples, pass, got, first)
					}
				}
			}
		}
	}
}

// A line is copied into the envelope unscanned only where its template's
// text is plain: a value with markup in it is escaped on every call.
func TestLinesAreEscaped(t *testing.T) {
	f := New(DefaultOptions())
	for _, tc := range []struct {
		is   issues.Issue
		want string
	}{
		{issues.Issue{Code: issues.TooSmall, Path: issues.Path{"bio"}, Input: "a<b>&c", Origin: "string", Minimum: "10", Inclusive: true},
			`  <field name="bio">You sent: 'a&lt;b>&amp;c' (6 characters). Expected at least 10 characters.</field>` + "\n"},
		{issues.Issue{Code: issues.TooSmall, Path: issues.Path{"bio"}, Input: "plain", Origin: "string", Minimum: "10", Inclusive: true},
			`  <field name="bio">You sent: 'plain' (5 characters). Expected at least 10 characters.</field>` + "\n"},
		{issues.Issue{Code: issues.InvalidFormat, Path: issues.Path{"a<b"}, Input: "x]]", Format: "regex", Pattern: "^]]>$"},
			`  <field name="[&quot;a&lt;b&quot;]">You sent: 'x]]'. Expected to match '^]]&gt;$'.</field>` + "\n"},
	} {
		for call := 1; call <= 4; call++ {
			out := string(f.AppendValidation(nil, "t", issues.List{tc.is}))
			if !strings.Contains(out, tc.want) {
				t.Errorf("call %d:\n%s\nwant the line\n%s", call, out, tc.want)
			}
		}
	}
}

// Nothing is kept from one call to the next: a path changed in place gets
// its own name and its own sensitivity.
func TestPathChangedInPlace(t *testing.T) {
	f := New(DefaultOptions())
	path := issues.Path{"user", "name"}
	is := issues.Issue{Code: issues.TooSmall, Path: path, Input: "ab", Origin: "string", Minimum: "3", Inclusive: true}
	for range 3 {
		f.AppendValidation(nil, "t", issues.List{is})
	}
	path[1] = "password"
	out := string(f.AppendValidation(nil, "t", issues.List{is}))
	want := `<field name="user.password">You sent: a value not shown because the field is sensitive (2 characters).`
	if !strings.Contains(out, want) {
		t.Errorf("after changing the path in place:\n%s\nwant %s", out, want)
	}
	path[1] = 7
	if out := string(f.AppendValidation(nil, "t", issues.List{is})); !strings.Contains(out, `<field name="user[7]">`) {
		t.Errorf("after changing the path in place:\n%s", out)
	}
}

// A formatter is shared by every goroutine that uses it: rendering all
// golden cases from several goroutines at once, over and over, gives each
// case's line every time (and is race-free under -race).
func TestConcurrentLines(t *testing.T) {
	all := append(cases[:len(cases):len(cases)], formatCases()...)
	want := make([]string, len(all))
	ref := New(DefaultOptions())
	for i, c := range all {
		want[i] = string(ref.AppendValidation(nil, "t", issues.List{c.issue}))
	}
	f := New(DefaultOptions())
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			var buf []byte
			for round := range 6 {
				for k := range all {
					i := (k*7 + g*13 + round) % len(all) // each goroutine in its own order
					buf = f.AppendValidation(buf[:0], "t", issues.List{all[i].issue})
					if string(buf) != want[i] {
						errs <- all[i].name + ":\n" + string(buf) + "\nwant:\n" + want[i]
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
