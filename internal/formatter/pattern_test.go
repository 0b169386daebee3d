package formatter

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/internal/catalog"
	"github.com/selfheal/selfheal/issues"
)

// A pattern is shown as its schema wrote the regular expression, not as a
// value is: its backslashes and quotes are its own. What would break the
// line is shown as its escape, and a long pattern says its length.
func TestPatternLines(t *testing.T) {
	en := New(Options{})
	jaOpts := Options{}
	jaOpts.Catalog = catalog.Match("ja")
	ja := New(jaOpts)
	regex := func(pattern string) issues.Issue {
		return issues.Issue{Code: issues.InvalidFormat, Path: P{"v"}, Input: "x", Format: "regex", Pattern: pattern}
	}
	for _, tc := range []struct {
		f    *Formatter
		is   issues.Issue
		want string
	}{
		{en, regex(`^\d{5}$`),
			`You sent: 'x'. Expected to match '^\d{5}$'.`},
		{ja, regex(`^\d{5}$`),
			`送信値: 'x'。期待: '^\d{5}$' に一致。`},
		{en, regex(`^(?!admin)[\w.-]+\\$`),
			`You sent: 'x'. Expected to match '^(?!admin)[\w.-]+\\$'.`},
		{en, regex(`^[^']+$`),
			`You sent: 'x'. Expected to match '^[^']+$'.`},
		{en, regex("^a\nb\x00\u2028$"),
			`You sent: 'x'. Expected to match '^a\nb\u0000\u2028$'.`},
		{en, regex(strings.Repeat("a", 5000)),
			"You sent: 'x'. Expected to match '" + strings.Repeat("a", 120) + "…' (5000 characters)."},
		{ja, regex(strings.Repeat("a", 5000)),
			"送信値: 'x'。期待: '" + strings.Repeat("a", 120) + "…'（5000文字） に一致。"},
		// Other parameters are literal text, quoted as values are.
		{en, issues.Issue{Code: issues.InvalidFormat, Path: P{"v"}, Input: "x", Format: "starts_with", Prefix: `it's\`},
			`You sent: 'x'. Expected to start with 'it\'s\\'.`},
	} {
		if got := string(tc.f.AppendLine(nil, &tc.is)); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.is.Pattern+tc.is.Prefix, got, tc.want)
		}
	}
}

// The one place that escapes XML escapes a pattern shown as written, and
// the document parses.
func TestPatternEscaped(t *testing.T) {
	f := New(Options{})
	is := issues.Issue{Code: issues.InvalidFormat, Path: P{"v"}, Input: "x", Format: "regex", Pattern: `^<a\s*href="[^"&]+">$`}
	out := string(f.AppendValidation(nil, "t", issues.List{is}))
	want := `Expected to match '^&lt;a\s*href="[^"&amp;]+">$'.</field>`
	if !strings.Contains(out, want) {
		t.Fatalf("got\n%s\nwant the line to end\n%s", out, want)
	}
	dec := xml.NewDecoder(strings.NewReader(out))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("%v in\n%s", err, out)
		}
	}
}
