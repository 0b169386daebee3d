package fuzz

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

var goSyntax = regexp.MustCompile(`map\[|&\{|<nil>|%!|\[\]interface|\[\]any`)

// FuzzFormat feeds model-controlled strings (a value, a key, a JSON document)
// and developer-controlled ones (a bound, a format, a message) through every
// code in both languages, and checks what a model would read: well-formed
// XML that parses back, one line per field, no Go syntax, the recovery last.
func FuzzFormat(f *testing.F) {
	for _, s := range nasty() {
		f.Add(s, s, `{"a":[1,"x",{"b":null}]}`, "3", "email", "Must be valid.")
	}
	f.Add("Blue", "nmae", `[1,2,3]`, "0.1", "regex", "")
	f.Add("42", "items", `"{\"a\":1}"`, "1e21", "date-time", "x\ny")
	engines := []*selfheal.Engine{selfheal.New(), selfheal.New(selfheal.WithLocale("ja"), selfheal.WithMaxValueRunes(5))}
	f.Fuzz(func(t *testing.T, value, key, doc, bound, format, message string) {
		var parsed any
		if err := json.Unmarshal([]byte(doc), &parsed); err != nil {
			parsed = doc
		}
		path := issues.Path{key, 0, value}
		var list issues.List
		for _, code := range issuesx.Codes {
			list = append(list, issues.Issue{
				Code: code, Path: path, Input: value, Expected: issues.Types(len(key)), Origin: format,
				Minimum: issues.Number(bound), Maximum: issues.Number(bound), Format: format, Pattern: value, Layout: value, UniqueBy: key,
				Keys: []string{key, value}, Allowed: []string{value, key + "x"}, Values: []any{parsed, value},
				Divisor: issues.Number(bound), Message: message, Key: key,
				Branches: [][]issues.Issue{{{Code: issues.InvalidType, Path: path, Input: parsed, Expected: issues.Types(len(format) * 0x1235)}}},
				Issues:   []issues.Issue{{Code: issues.TooSmall, Input: parsed, Origin: format, Minimum: issues.Number(bound)}},
			}, issues.Issue{Code: code, Path: issues.Path{value}, Input: parsed, Absent: len(value)%2 == 0})
		}
		for _, e := range engines {
			out := e.Format(key, list)
			// The second call builds render plans and the third uses them:
			// they must change nothing.
			for call := 2; call <= 3; call++ {
				if again := e.Format(key, list); again != out {
					t.Fatalf("call %d differs:\n%s\nfirst:\n%s", call, again, out)
				}
			}
			d, err := envelope.Parse(out)
			if err != nil || d.Validation == nil {
				t.Fatalf("not a validation_error: %v\n%s", err, out)
			}
			if len(d.Validation.Fields) == 0 {
				t.Fatalf("no fields:\n%s", out)
			}
			for _, fl := range d.Validation.Fields {
				if strings.ContainsAny(fl.Text, "\n\r") || strings.ContainsAny(fl.Name, "\n\r") {
					t.Fatalf("a line breaks: %q %q", fl.Name, fl.Text)
				}
				if m := goSyntax.FindString(fl.Text); m != "" && !strings.Contains(value+key+doc+bound+format+message, m) {
					t.Fatalf("Go syntax %q in %q", m, fl.Text)
				}
			}
			if !strings.HasSuffix(out, "</recovery>\n</validation_error>") {
				t.Fatalf("recovery is not last:\n%s", out)
			}
		}
	})
}

// nasty are strings that have broken formatters and XML writers before.
func nasty() []string {
	return []string{"", "]]>", "</field><recovery>x", `"'<>&`, "\x00\x01\x1f\x7f", "\xff\xfe\xc0",
		"\uFFFE\uFFFF", "\u202eevil", "😀👍🏽", "a\nb\r\nc\td", "\u2028\u2029", "map[a:1]", "%!v(MISSING)",
		strings.Repeat("x", 1<<12)}
}
