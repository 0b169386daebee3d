package jsonschemav6_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/issues"
)

// fieldLines renders list as a model reads it and returns its field lines.
func fieldLines(list issues.List) []string {
	if len(list) == 0 {
		return nil
	}
	var out []string
	for line := range strings.Lines(selfheal.New(selfheal.WithExamples(false)).Format("t", list)) {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "<field ") {
			out = append(out, line)
		}
	}
	return out
}

// Patterns are ECMAScript regular expressions, as JSON Schema defines them.
func TestECMAScriptPatterns(t *testing.T) {
	for _, tc := range []struct {
		schema, args string
		want         []string // field lines; none when valid
	}{
		// Negative lookahead: the issue that made whole tools unchecked.
		{`{"properties": {"user": {"pattern": "^(?!admin)[a-z]+$"}}}`, `{"user": "alice"}`, nil},
		{`{"properties": {"user": {"pattern": "^(?!admin)[a-z]+$"}}}`, `{"user": "admin"}`,
			[]string{`<field name="user">You sent: 'admin'. Expected to match '^(?!admin)[a-z]+$'.</field>`}},
		// Lookahead.
		{`{"properties": {"pw": {"pattern": "^(?=.*\\d)(?=.*[a-z]).{8,}$"}}}`, `{"pw": "abcdefg1"}`, nil},
		{`{"properties": {"pw": {"pattern": "^(?=.*\\d)(?=.*[a-z]).{8,}$"}}}`, `{"pw": "abcdefgh"}`,
			[]string{`<field name="pw">You sent: 'abcdefgh'. Expected to match '^(?=.*\d)(?=.*[a-z]).{8,}$'.</field>`}},
		// Lookbehind, negative.
		{`{"properties": {"file": {"pattern": "^.*(?<!\\.)$"}}}`, `{"file": "notes.txt"}`, nil},
		{`{"properties": {"file": {"pattern": "^.*(?<!\\.)$"}}}`, `{"file": "notes."}`,
			[]string{`<field name="file">You sent: 'notes.'. Expected to match '^.*(?&lt;!\.)$'.</field>`}},
		// Lookbehind, positive.
		{`{"properties": {"price": {"pattern": "(?<=\\$)\\d+"}}}`, `{"price": "$12"}`, nil},
		{`{"properties": {"price": {"pattern": "(?<=\\$)\\d+"}}}`, `{"price": "12"}`,
			[]string{`<field name="price">You sent: '12'. Expected to match '(?&lt;=\$)\d+'.</field>`}},
		// Backreference.
		{`{"properties": {"q": {"pattern": "^(['\"])[a-z]+\\1$"}}}`, `{"q": "'abc'"}`, nil},
		{`{"properties": {"q": {"pattern": "^(['\"])[a-z]+\\1$"}}}`, `{"q": "'abc\""}`,
			[]string{`<field name="q">You sent: '\'abc"'. Expected to match '^(['"])[a-z]+\1$'.</field>`}},
		// Unicode properties, short and long names, a script.
		{`{"properties": {"name": {"pattern": "^\\p{L}+$"}}}`, `{"name": "école"}`, nil},
		{`{"properties": {"name": {"pattern": "^\\p{Letter}+$"}}}`, `{"name": "Ωmega"}`, nil},
		{`{"properties": {"name": {"pattern": "^\\p{Letter}+$"}}}`, `{"name": "r2d2"}`,
			[]string{`<field name="name">You sent: 'r2d2'. Expected to match '^\p{Letter}+$'.</field>`}},
		{`{"properties": {"name": {"pattern": "^\\p{Script=Greek}+$"}}}`, `{"name": "λόγος"}`, nil},
		{`{"properties": {"name": {"pattern": "^\\p{Script=Greek}+$"}}}`, `{"name": "logos"}`,
			[]string{`<field name="name">You sent: 'logos'. Expected to match '^\p{Script=Greek}+$'.</field>`}},
		// \d is [0-9], in either engine; \p{Nd} is every decimal digit.
		{`{"properties": {"zip": {"pattern": "^\\d{5}$"}}}`, `{"zip": "12345"}`, nil},
		{`{"properties": {"zip": {"pattern": "^\\d{5}$"}}}`, `{"zip": "١٢٣٤٥"}`,
			[]string{`<field name="zip">You sent: '١٢٣٤٥'. Expected to match '^\d{5}$'.</field>`}},
		{`{"properties": {"zip": {"pattern": "^(?!0)\\d{5}$"}}}`, `{"zip": "١٢٣٤٥"}`,
			[]string{`<field name="zip">You sent: '١٢٣٤٥'. Expected to match '^(?!0)\d{5}$'.</field>`}},
		{`{"properties": {"zip": {"pattern": "^\\p{Nd}{5}$"}}}`, `{"zip": "١٢٣٤٥"}`, nil},
		// ECMAScript's \s and "." where Go's differ: a no-break space is
		// white space, a carriage return is not matched by ".".
		{`{"properties": {"tag": {"pattern": "^\\S+$"}}}`, `{"tag": "a\u00a0b"}`,
			[]string{"<field name=\"tag\">You sent: 'a\u00a0b'. Expected to match '^\\S+$'.</field>"}},
		{`{"properties": {"tag": {"pattern": "^.$"}}}`, `{"tag": "\r"}`,
			[]string{`<field name="tag">You sent: '\r'. Expected to match '^.$'.</field>`}},
		{`{"properties": {"tag": {"pattern": "^.$"}}}`, `{"tag": "😀"}`, nil},
		// \cC, ECMAScript's control escape.
		{`{"properties": {"c": {"pattern": "^\\cC$"}}}`, `{"c": "\u0003"}`, nil},
		// Not ECMAScript, read as the servers that write them do.
		{`{"properties": {"id": {"pattern": "^(?P<n>\\d+)$"}}}`, `{"id": "ab"}`,
			[]string{`<field name="id">You sent: 'ab'. Expected to match '^(?P&lt;n>\d+)$'.</field>`}},
		{`{"properties": {"slug": {"pattern": "^(?!-)[\\w-.]+$"}}}`, `{"slug": "a.b-c"}`, nil},
		{`{"properties": {"slug": {"pattern": "^(?!-)[\\w-.]+$"}}}`, `{"slug": "-a"}`,
			[]string{`<field name="slug">You sent: '-a'. Expected to match '^(?!-)[\w-.]+$'.</field>`}},
		// patternProperties: which keys a pattern covers, and their values.
		{`{"patternProperties": {"^(?!x-)[a-z]+$": {"type": "integer"}}, "additionalProperties": false}`,
			`{"count": 1, "x-trace": 2}`,
			[]string{`<field name="(root)">Unknown key. You sent: 'x-trace'. Expected the object without it.</field>`}},
		{`{"patternProperties": {"^(?!x-)[a-z]+$": {"type": "integer"}}, "additionalProperties": false}`,
			`{"count": "1"}`,
			[]string{`<field name="count">You sent: '1'. Expected an integer: 1.</field>`}},
		{`{"patternProperties": {"^\\p{Lu}": {"type": "string"}}}`, `{"École": 1, "école": 1}`,
			[]string{`<field name="[&quot;École&quot;]">You sent: 1. Expected a string.</field>`}},
	} {
		s, err := jsonschemav6.Compile([]byte(tc.schema))
		if err != nil {
			t.Errorf("%s: %v", tc.schema, err)
			continue
		}
		got := fieldLines(s.ValidateJSON([]byte(tc.args)))
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s with %s:\n got %q\nwant %q", tc.schema, tc.args, got, tc.want)
		}
	}
}

// A pattern that backtracks without end on a crafted string is cut short:
// the call returns, and what could not be judged passes (the server
// decides). The same pattern that Go's regexp reads alike is judged, in
// linear time.
func TestPathologicalPattern(t *testing.T) {
	crafted := `{"v": "` + strings.Repeat("a", 30) + `b"}`
	ecma, err := jsonschemav6.Compile([]byte(`{"properties": {"v": {"pattern": "^(?=a)(a+)+$"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if list := ecma.ValidateJSON([]byte(crafted)); list != nil {
		t.Errorf("a match cut short refused the call: %v", list)
	}
	if list := ecma.ValidateJSON([]byte(`{"v": "b"}`)); len(list) != 1 {
		t.Errorf("a quick mismatch: %v", list)
	}
	linear, err := jsonschemav6.Compile([]byte(`{"properties": {"v": {"pattern": "^(a+)+$"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`<field name="v">You sent: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab'. Expected to match '^(a+)+$'.</field>`}
	if got := fieldLines(linear.ValidateJSON([]byte(crafted))); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// A pattern no engine compiles is a Go error of Compile, or, with
// WithUncompilablePatterns, skipped and reported once, the rest of the
// schema still checked.
func TestUncompilablePatterns(t *testing.T) {
	schema := []byte(`{
		"properties": {
			"a": {"pattern": "^(abc$", "minLength": 3},
			"b": {"pattern": "^(abc$"},
			"c": {"pattern": "^(?!admin)"}
		},
		"patternProperties": {"[z-a]": {"type": "integer"}}
	}`)
	_, err := jsonschemav6.Compile(schema)
	if err == nil || !strings.Contains(err.Error(), "does not compile") || !strings.Contains(err.Error(), "^(abc$") {
		t.Fatalf("without the option: %v", err)
	}
	if _, err := jsonschemav6.Compile(schema, jsonschemav6.WithUncompilablePatterns(nil)); err == nil {
		t.Fatal("a nil report: no error")
	}

	var reported []string
	s, err := jsonschemav6.Compile(schema, jsonschemav6.WithUncompilablePatterns(func(pattern string, err error) {
		if err == nil {
			t.Errorf("%s: reported without a reason", pattern)
		}
		reported = append(reported, pattern)
	}))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(reported) != "[[z-a] ^(abc$]" && fmt.Sprint(reported) != "[^(abc$ [z-a]]" {
		t.Errorf("reported %q, want each pattern once", reported)
	}
	got := fieldLines(s.ValidateJSON([]byte(`{"a": "x", "b": "anything", "c": "admin", "zz": "not an integer"}`)))
	want := []string{
		`<field name="a">You sent: 'x' (1 character). Expected at least 3 characters.</field>`,
		`<field name="c">You sent: 'admin'. Expected to match '^(?!admin)'.</field>`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if len(reported) != 2 {
		t.Errorf("validating reported patterns again: %q", reported)
	}

	// The keys a skipped entry may have been meant for are not additional.
	closed, err := jsonschemav6.Compile([]byte(`{"patternProperties": {"^x-(": {"type": "integer"}}, "additionalProperties": false}`),
		jsonschemav6.WithUncompilablePatterns(func(string, error) {}))
	if err != nil {
		t.Fatal(err)
	}
	if list := closed.ValidateJSON([]byte(`{"x-trace": "abc"}`)); list != nil {
		t.Errorf("a key of a skipped entry: %v", list)
	}
}

// A value of format "regex" is judged by the same engines, and is never
// reported as a pattern of the schema.
func TestFormatRegex(t *testing.T) {
	reported := 0
	s, err := jsonschemav6.Compile([]byte(`{"properties": {"re": {"format": "regex"}}}`),
		jsonschemav6.WithUncompilablePatterns(func(string, error) { reported++ }))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		re    string
		valid bool
	}{
		{`(?<=a+)b`, true},
		{`(?<n>a)\\k<n>`, true},
		{`^\\cA[^]$`, true},
		{`^\\d+$`, true},
		{`(abc`, false},
	} {
		list := s.ValidateJSON([]byte(`{"re": "` + tc.re + `"}`))
		if (len(list) == 0) != tc.valid {
			t.Errorf("%s: %v, want valid %v", tc.re, list, tc.valid)
		}
	}
	if reported != 0 {
		t.Errorf("values of format regex reported as patterns: %d", reported)
	}
}

// The meta-schema's check that a pattern is a regex goes through the same
// engine, in every draft; a regexp engine set through WithCompiler
// replaces Compile's.
func TestPatternEngineDrafts(t *testing.T) {
	for _, draft := range []string{
		"https://json-schema.org/draft/2020-12/schema",
		"https://json-schema.org/draft/2019-09/schema",
		"http://json-schema.org/draft-07/schema#",
		"http://json-schema.org/draft-06/schema#",
		"http://json-schema.org/draft-04/schema#",
	} {
		schema := []byte(`{"$schema": "` + draft + `", "properties": {"user": {"pattern": "^(?!admin)"}},
			"patternProperties": {"^(?!x-)": {"type": "string"}}}`)
		s, err := jsonschemav6.Compile(schema)
		if err != nil {
			t.Errorf("%s: %v", draft, err)
			continue
		}
		if list := s.Validate(map[string]any{"user": "admin", "name": 1.0, "x-n": 1.0}); fmt.Sprint(list) != "user: invalid_format; name: invalid_type" && fmt.Sprint(list) != "name: invalid_type; user: invalid_format" {
			t.Errorf("%s: %v", draft, list)
		}
		_, err = jsonschemav6.Compile(schema, jsonschemav6.WithCompiler(func(c *jsonschema.Compiler) { c.UseRegexpEngine(nil) }))
		if err == nil || !strings.Contains(err.Error(), "(?!") {
			t.Errorf("%s with Go's regexp set through WithCompiler: %v", draft, err)
		}
	}
}
