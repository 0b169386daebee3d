package envelope_test

import (
	"encoding/xml"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/testkit/race"
)

func TestParseSeeds(t *testing.T) {
	d, err := envelope.Parse("Tool failed:\n\n  " + seedToolError + "\n\ntrailing text <not xml")
	if err != nil {
		t.Fatal(err)
	}
	want := envelope.Wrap(seedBuilder())
	if d.Validation != nil || !reflect.DeepEqual(*d.ToolError, want) {
		t.Errorf("Parse = %#v\nwant %#v", d.ToolError, want)
	}

	d, err = envelope.Parse(seedValidation)
	if err != nil {
		t.Fatal(err)
	}
	wantV := seedValidationError()
	wantV.Recovery = envelope.DefaultRecovery // written out, read back
	if d.ToolError != nil || !reflect.DeepEqual(*d.Validation, wantV) {
		t.Errorf("Parse = %#v\nwant %#v", d.Validation, wantV)
	}
}

func TestParseRoundTrip(t *testing.T) {
	toolErrors := []envelope.ToolError{
		{Code: "C", Severity: envelope.SeverityError},
		{Code: "C", Severity: envelope.SeverityWarning, Message: "  spaced  \n\tlines\r\n ", Recovery: " r "},
		{Code: `a"b<c&d>`, Severity: envelope.SeverityCritical, Message: "]]>", Actions: []string{"", " ", "x"},
			Details: []envelope.Detail{{"", ""}, {"k\n\t\r", "v\n\t\r"}, {"k\n\t\r", "dup keys are kept in a literal"}}, RetryAfter: 86400 * time.Second},
		{Code: "C", Severity: envelope.SeverityError, Message: "m", RetryAfter: time.Second},
		{Code: "C", Severity: envelope.SeverityError, Message: "m", RetryAfter: 100 * time.Millisecond},
		{Code: "C", Severity: envelope.SeverityError, Message: "m", RetryAfter: 37 * time.Millisecond},
		{Code: "C", Severity: envelope.SeverityError, Message: "m", RetryAfter: 9999 * time.Millisecond},
		{Code: "C", Severity: envelope.SeverityError, Message: "m", RetryAfter: 10 * time.Second},
	}
	for _, te := range toolErrors {
		d, err := envelope.Parse(te.String())
		if err != nil || d.ToolError == nil || !reflect.DeepEqual(*d.ToolError, te) {
			t.Errorf("round trip of %#v:\n%s\ngot %#v, %v", te, te.String(), d.ToolError, err)
		}
	}
	validations := []envelope.ValidationError{
		{Action: "", Recovery: "r"},
		{Action: " a\n", Fields: []envelope.Field{{"", ""}, {" n\t", " t\r\n "}}, More: " more ", Recovery: " r ",
			Contract: &envelope.Contract{More: 3, Changes: []envelope.ContractChange{{}, {"BREAKING", "f\n", " d ", "\tb", "a\r"}}}},
		{Action: "a", Recovery: "r", Contract: &envelope.Contract{More: 1}},
		// The server's message keeps what element text keeps: spaces at both
		// ends, newlines, and a \r (written &#13;).
		{Action: "write_file", Fields: []envelope.Field{{"content", "t"}}, ServerMessage: "  MCP error -32602:\n\tline 2\r\n]]> & <x/>  ",
			Recovery: "r", Contract: &envelope.Contract{Changes: []envelope.ContractChange{{"RISKY", "f", "d", "", ""}}}},
		{Action: "a", More: "m", ServerMessage: "'aaaa…' (5000 characters)", Recovery: "r"},
	}
	for _, v := range validations {
		d, err := envelope.Parse(v.String())
		if err != nil || d.Validation == nil || !reflect.DeepEqual(*d.Validation, v) {
			t.Errorf("round trip of %#v:\n%s\ngot %#v, %v", v, v.String(), d.Validation, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	te := func(inner string) string {
		return `<tool_error code="X" severity="error"><message>m</message>` + inner + `</tool_error>`
	}
	for _, tc := range []struct {
		name, text, want string
	}{
		{"empty", "", "no <tool_error> or <validation_error>"},
		{"plain text", "NOT_FOUND: no invoice", "no <tool_error>"},
		{"other element", "<tool_errors code='x'/>", "no <tool_error>"},
		{"truncated", seedToolError[:60], "unexpected EOF"},
		{"unclosed", `<tool_error code="X" severity="error"><message>m</message>`, "unexpected EOF"},
		{"no message", `<tool_error code="X" severity="error"></tool_error>`, "no <message>"},
		{"recovery without message", `<tool_error code="X" severity="error"><recovery>r</recovery></tool_error>`, "no <message>"},
		{"attribute on list", te("<details id='1'><detail key='k'>v</detail></details>"), `unexpected attribute "id"`},
		{"no code", `<tool_error severity="error"><message>m</message></tool_error>`, "no code attribute"},
		{"empty code", `<tool_error code="" severity="error"><message>m</message></tool_error>`, "empty code"},
		{"no severity", `<tool_error code="X"><message>m</message></tool_error>`, "no severity attribute"},
		{"unknown severity", `<tool_error code="X" severity="fatal"><message>m</message></tool_error>`, `unknown severity "fatal"`},
		{"extra attribute", `<tool_error code="X" severity="error" id="1"><message>m</message></tool_error>`, `unexpected attribute "id"`},
		{"duplicate attribute", `<tool_error code="X" code="Y" severity="error"><message>m</message></tool_error>`, `unexpected attribute "code"`},
		{"namespace", `<tool_error xmlns="urn:x" code="X" severity="error"><message>m</message></tool_error>`, "namespaced"},
		{"unknown element", te("<hint>x</hint>"), "unexpected element <hint>"},
		{"repeated", te("<message>m</message>"), "repeated or out of order"},
		{"out of order", te("<retry_after>1 second</retry_after><recovery>r</recovery>"), "repeated or out of order"},
		{"attribute on message", `<tool_error code="X" severity="error"><message lang="en">m</message></tool_error>`, `unexpected attribute "lang"`},
		{"nested in text", te("<recovery>a<b>c</b></recovery>"), "unexpected <b> inside <recovery>"},
		{"stray text", te("oops"), "unexpected text"},
		{"comment", te("<!-- c -->"), "unexpected comment"},
		{"bad list item", te("<available_actions><detail key='k'>v</detail></available_actions>"), "unexpected element <detail> in <available_actions>"},
		{"detail without key", te("<details><detail>v</detail></details>"), "no key attribute"},
		{"retry zero", te("<retry_after>0 seconds</retry_after>"), "malformed retry_after"},
		{"retry grammar", te("<retry_after>1 seconds</retry_after>"), "malformed retry_after"},
		{"retry float", te("<retry_after>1e+21 seconds</retry_after>"), "malformed retry_after"},
		{"retry over cap", te("<retry_after>86401 seconds</retry_after>"), "malformed retry_after"},
		{"retry fraction zero", te("<retry_after>0.0 seconds</retry_after>"), "malformed retry_after"},
		{"retry fraction trailing zero", te("<retry_after>0.10 seconds</retry_after>"), "malformed retry_after"},
		{"retry fraction too fine", te("<retry_after>0.0001 seconds</retry_after>"), "malformed retry_after"},
		{"retry fraction from 10 seconds", te("<retry_after>10.5 seconds</retry_after>"), "malformed retry_after"},
		{"retry fraction without digits", te("<retry_after>1. seconds</retry_after>"), "malformed retry_after"},
		{"retry fraction without whole", te("<retry_after>.5 seconds</retry_after>"), "malformed retry_after"},
		{"retry negative fraction", te("<retry_after>-1.5 seconds</retry_after>"), "malformed retry_after"},
		{"retry fraction sign", te("<retry_after>1.+5 seconds</retry_after>"), "malformed retry_after"},
		{"retry fraction singular", te("<retry_after>0.5 second</retry_after>"), "malformed retry_after"},
		{"retry one as decimal", te("<retry_after>1.0 seconds</retry_after>"), "malformed retry_after"},
		{"unknown entity", te("<recovery>&nbsp;</recovery>"), "invalid character entity"},
		{"raw control", te("<recovery>\x01</recovery>"), "illegal character"},
		{"invalid utf-8", te("<recovery>\xff</recovery>"), "invalid UTF-8"},
		{"validation without recovery", `<validation_error action="a"></validation_error>`, "no <recovery>"},
		{"validation without action", `<validation_error><recovery>r</recovery></validation_error>`, "no action attribute"},
		{"server message after contract", `<validation_error action="a"><contract_awareness/><server_message>s</server_message><recovery>r</recovery></validation_error>`, "out of order"},
		{"server message repeated", `<validation_error action="a"><server_message>s</server_message><server_message>t</server_message><recovery>r</recovery></validation_error>`, "repeated or out of order"},
		{"server message with attribute", `<validation_error action="a"><server_message code="-32602">s</server_message><recovery>r</recovery></validation_error>`, `unexpected attribute "code"`},
		{"field after more", `<validation_error action="a"><more>m</more><field name="f">t</field><recovery>r</recovery></validation_error>`, "out of order"},
		{"field without name", `<validation_error action="a"><field>t</field><recovery>r</recovery></validation_error>`, "no name attribute"},
		{"change without field", `<validation_error action="a"><contract_awareness><change severity="RISKY">d</change></contract_awareness><recovery>r</recovery></validation_error>`, "no field attribute"},
		{"bad omitted", `<validation_error action="a"><contract_awareness omitted="-1"></contract_awareness><recovery>r</recovery></validation_error>`, "malformed omitted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := envelope.Parse(tc.text)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error", tc.text, d)
			}
			if !errors.Is(err, envelope.ErrNotEnvelope) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse(%q) error = %v, want ErrNotEnvelope containing %q", tc.text, err, tc.want)
			}
			if d != (envelope.Document{}) {
				t.Errorf("a failed Parse returned a document: %+v", d)
			}
		})
	}
}

// Syntax errors keep their type and report lines counted from the start of
// the text, preamble included.
func TestParseErrorLine(t *testing.T) {
	_, err := envelope.Parse("one\ntwo\n<tool_error code=\"X\" severity=\"error\">\n<message>m</mess>")
	var se *xml.SyntaxError
	if !errors.As(err, &se) || se.Line != 4 {
		t.Errorf("error = %v, want an *xml.SyntaxError on line 4", err)
	}
}

// Every form String writes reads back as the duration it stands for.
func TestParseRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		text string
		want time.Duration
	}{
		{"0.001 seconds", time.Millisecond},
		{"0.037 seconds", 37 * time.Millisecond},
		{"0.1 seconds", 100 * time.Millisecond},
		{"0.25 seconds", 250 * time.Millisecond},
		{"1 second", time.Second},
		{"1.001 seconds", 1001 * time.Millisecond},
		{"1.5 seconds", 1500 * time.Millisecond},
		{"9.999 seconds", 9999 * time.Millisecond},
		{"10 seconds", 10 * time.Second},
		{"30 seconds", 30 * time.Second},
		{"86400 seconds", 24 * time.Hour},
	} {
		d, err := envelope.Parse(`<tool_error code="RATE_LIMITED" severity="error"><message>m</message><retry_after>` + tc.text + `</retry_after></tool_error>`)
		if err != nil || d.ToolError == nil || d.ToolError.RetryAfter != tc.want {
			t.Errorf("retry_after %q: %+v, %v; want %v", tc.text, d.ToolError, err, tc.want)
		}
	}
}

// Parse accepts the other spellings XML defines to mean the same as the
// renderers' own, and reads them as XML does.
func TestParseXMLSpellings(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       envelope.ToolError
	}{
		{"single quotes and spaces", "<tool_error  code = 'X'\n\tseverity='warning' ><message >m</message\n></tool_error >",
			envelope.ToolError{Code: "X", Severity: envelope.SeverityWarning, Message: "m"}},
		{"quotes inside the other quotes", `<tool_error code='a"b' severity="error"><message>'"</message></tool_error>`,
			envelope.ToolError{Code: `a"b`, Severity: envelope.SeverityError, Message: `'"`}},
		{"entities", `<tool_error code="&#x4E;&#79;&apos;&quot;" severity="error"><message>&lt;&gt;&amp;&#9;&#x1F642;&#0013;&#65;</message></tool_error>`,
			envelope.ToolError{Code: `NO'"`, Severity: envelope.SeverityError, Message: "<>&\t🙂\rA"}},
		{"cdata", `<tool_error code="X" severity="error"><message>a<![CDATA[<b>&amp;]]]]><![CDATA[>]]>c</message></tool_error>`,
			envelope.ToolError{Code: "X", Severity: envelope.SeverityError, Message: "a<b>&amp;]]>c"}},
		{"empty elements", `<tool_error code="X" severity="error"><message/><recovery></recovery><available_actions/><details></details></tool_error>`,
			envelope.ToolError{Code: "X", Severity: envelope.SeverityError}},
		{"empty leaf in a list", `<tool_error code="X" severity="error"><message>m</message><available_actions><action/></available_actions><details><detail key="k"/></details></tool_error>`,
			envelope.ToolError{Code: "X", Severity: envelope.SeverityError, Message: "m", Actions: []string{""}, Details: []envelope.Detail{{"k", ""}}}},
		{"line ends in text", "<tool_error code=\"X\" severity=\"error\"><message>a\r\nb\rc\n\r\n</message><recovery><![CDATA[\r\n\r]]></recovery></tool_error>",
			envelope.ToolError{Code: "X", Severity: envelope.SeverityError, Message: "a\nb\nc\n\n", Recovery: "\n\n"}},
		{"whitespace in attributes", "<tool_error code=\"a\tb\nc\r\nd\re&#9;&#10;&#13;\" severity=\"error\"><message>m</message></tool_error>",
			envelope.ToolError{Code: "a b c d e\t\n\r", Severity: envelope.SeverityError, Message: "m"}},
		{"lone > in text and attributes", `<tool_error code="a>b" severity="error"><message>]>]&gt;>]</message></tool_error>`,
			envelope.ToolError{Code: "a>b", Severity: envelope.SeverityError, Message: "]>]>>]"}},
		{"retry_after through an entity", `<tool_error code="X" severity="error"><message>m</message><retry_after>&#50; seconds</retry_after></tool_error>`,
			envelope.ToolError{Code: "X", Severity: envelope.SeverityError, Message: "m", RetryAfter: 2 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := envelope.Parse(tc.text)
			if err != nil || d.ToolError == nil || !reflect.DeepEqual(*d.ToolError, tc.want) {
				t.Errorf("Parse(%q) = %#v, %v\nwant %#v", tc.text, d.ToolError, err, tc.want)
			}
		})
	}

	d, err := envelope.Parse(`<validation_error action='a'><field name="f"/><contract_awareness omitted="2"/><recovery/></validation_error>`)
	want := envelope.ValidationError{Action: "a", Fields: []envelope.Field{{"f", ""}}, Contract: &envelope.Contract{More: 2}}
	if err != nil || d.Validation == nil || !reflect.DeepEqual(*d.Validation, want) {
		t.Errorf("validation_error of empty elements: %#v, %v\nwant %#v", d.Validation, err, want)
	}
	d, err = envelope.Parse(`<tool_error code="X" severity="error"/>`)
	if err == nil || !strings.Contains(err.Error(), "no <message>") {
		t.Errorf("empty tool_error: %#v, %v", d, err)
	}
}

// What is well-formed XML but not our shape, and what is not well-formed,
// beyond TestParseErrors: still errors.
func TestParseStrict(t *testing.T) {
	te := func(inner string) string {
		return `<tool_error code="X" severity="error"><message>m</message>` + inner + `</tool_error>`
	}
	msg := func(text string) string { return te("<recovery>" + text + "</recovery>") }
	for _, tc := range []struct {
		name, text, want string
		syntax           bool // an *xml.SyntaxError
	}{
		{"]]> in text", msg("a]]>b"), "unescaped ]]>", true},
		{"< in attribute", `<tool_error code="a<b" severity="error"><message>m</message></tool_error>`, "unescaped <", true},
		{"unquoted attribute", `<tool_error code=X severity="error"><message>m</message></tool_error>`, "unquoted", true},
		{"attribute without value", `<tool_error code severity="error"><message>m</message></tool_error>`, "attribute name without =", true},
		{"attributes not spaced", `<tool_error code="X"severity="error"><message>m</message></tool_error>`, "in the start tag of <tool_error>", true},
		{"unclosed attribute", `<tool_error code="X severity="error"><message>m</message></tool_error>`, "", true},
		{"truncated start tag", `<tool_error code="X`, "unexpected EOF", true},
		{"truncated entity", `<tool_error code="X" severity="error"><message>&am`, "unexpected EOF", true},
		{"entity without semicolon", msg("&amp x"), "no semicolon", true},
		{"NUL reference", msg("&#0;"), "illegal character code U+0000", true},
		{"control reference", msg("&#x1b;"), "illegal character code U+001B", true},
		{"surrogate reference", msg("&#xD800;"), "invalid character entity", true},
		{"U+FFFE reference", msg("&#xFFFE;"), "illegal character code U+FFFE", true},
		{"reference out of range", msg("&#x110000;"), "invalid character entity", true},
		{"upper-case X reference", msg("&#X41;"), "invalid character entity", true},
		{"signed reference", msg("&#+65;"), "invalid character entity", true},
		{"empty reference", msg("&#;"), "invalid character entity", true},
		{"raw U+FFFF", msg("\uFFFF"), "illegal character code U+FFFF", true},
		{"raw surrogate", msg("\xed\xa0\x80"), "invalid UTF-8", true},
		{"control in attribute", `<tool_error code="a` + "\x1b" + `" severity="error"><message>m</message></tool_error>`, "illegal character", true},
		{"control in CDATA", msg("<![CDATA[\x00]]>"), "illegal character", true},
		{"invalid UTF-8 in CDATA", msg("<![CDATA[\xff]]>"), "invalid UTF-8", true},
		{"unclosed CDATA", msg("<![CDATA[abc"), "unexpected EOF", true},
		{"mismatched end tag", te("<details><detail key='k'>v</details></details>"), "element <detail> closed by </details>", true},
		{"end tag with attribute", te("<recovery>r</recovery x='1'>"), "invalid characters between </recovery and >", true},
		{"unclosed list", te("<available_actions><action>a</action>"), "closed by </tool_error>", true},
		{"empty element name", te("< recovery>r</recovery>"), "expected element name", true},
		{"CDATA between elements", te("<![CDATA[ ]]>"), "unexpected CDATA section", false},
		{"processing instruction", te("<?pi x?>"), "unexpected processing instruction", false},
		{"doctype", te("<!DOCTYPE x>"), "unexpected declaration", false},
		{"comment in text", msg("a<!-- c -->b"), "unexpected comment in <recovery>", false},
		{"entity between elements", te("&#32;"), "unexpected text", false},
		{"prefixed element", te("<x:recovery>r</x:recovery>"), "unexpected element <x:recovery>", false},
		{"namespace prefix declared", `<tool_error xmlns:x="urn:x" code="X" severity="error"><message>m</message></tool_error>`, "namespaced", false},
		{"prefixed attribute", `<tool_error x:code="X" severity="error"><message>m</message></tool_error>`, `unexpected attribute "x:code"`, false},
		{"self-closed list item with bad attribute", te("<details><detail name='k'/></details>"), `unexpected attribute "name" on <detail>`, false},
		{"text in list", te("<available_actions>a<action>b</action></available_actions>"), "unexpected text", false},
		{"severity in another case", `<tool_error code="X" severity="Error"><message>m</message></tool_error>`, "unknown severity", false},
		{"retry with spaces", te("<retry_after> 30 seconds</retry_after>"), "malformed retry_after", false},
		{"retry leading zero", te("<retry_after>030 seconds</retry_after>"), "malformed retry_after", false},
		{"omitted empty", `<validation_error action="a"><contract_awareness omitted=""/><recovery>r</recovery></validation_error>`, "malformed omitted", false},
		{"omitted zero", `<validation_error action="a"><contract_awareness omitted="0"/><recovery>r</recovery></validation_error>`, "malformed omitted", false},
		{"omitted with plus", `<validation_error action="a"><contract_awareness omitted="+1"/><recovery>r</recovery></validation_error>`, "malformed omitted", false},
		{"text in contract", `<validation_error action="a"><contract_awareness>x</contract_awareness><recovery>r</recovery></validation_error>`, "unexpected text", false},
		{"unknown change attribute", `<validation_error action="a"><contract_awareness><change severity="R" field="f" note="n">d</change></contract_awareness><recovery>r</recovery></validation_error>`, `unexpected attribute "note" on <change>`, false},
		{"two recoveries", `<validation_error action="a"><recovery>r</recovery><recovery>r</recovery></validation_error>`, "repeated or out of order", false},
		{"field after recovery", `<validation_error action="a"><recovery>r</recovery><field name="f">t</field></validation_error>`, "out of order", false},
		{"more attribute", `<validation_error action="a"><more n="1">m</more><recovery>r</recovery></validation_error>`, `unexpected attribute "n" on <more>`, false},
		{"validation self-closed", `<validation_error action="a"/>`, "no <recovery>", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := envelope.Parse(tc.text)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error", tc.text, d)
			}
			if !errors.Is(err, envelope.ErrNotEnvelope) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse(%q) error = %v, want ErrNotEnvelope containing %q", tc.text, err, tc.want)
			}
			if _, ok := errors.AsType[*xml.SyntaxError](err); ok != tc.syntax {
				t.Errorf("Parse(%q) error = %v: an *xml.SyntaxError is %v, want %v", tc.text, err, ok, tc.syntax)
			}
			if d != (envelope.Document{}) {
				t.Errorf("a failed Parse returned a document: %+v", d)
			}
		})
	}
}

// Errors that are not syntax errors name the line and the byte offset of
// the element at fault.
func TestParseErrorPosition(t *testing.T) {
	text := "preamble\n<tool_error code=\"X\" severity=\"error\">\n  <message>m</message>\n  <hint>h</hint>\n</tool_error>"
	_, err := envelope.Parse(text)
	want := "line 4, offset " + strconv.Itoa(strings.Index(text, "<hint>")) + ": unexpected element <hint> in <tool_error>"
	if err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error = %v, want one ending in %q", err, want)
	}
}

// Parse allocates per token, as encoding/xml does (names, attributes, the
// decoder): 108 allocations for the seed's tool_error and 47 for its
// validation_error with Go 1.26. No budget needs fewer (a client parses
// after a network round trip, see bench/README.md); the ceiling catches
// allocating per byte of text instead.
func TestParseAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	for _, tc := range []struct {
		text string
		max  float64
	}{{seedToolError, 135}, {seedValidation, 60}} {
		if n := testing.AllocsPerRun(100, func() { _, _ = envelope.Parse(tc.text) }); n > tc.max {
			t.Errorf("Parse(%.30q…): %v allocs per run, want at most %v", tc.text, n, tc.max)
		}
	}
}

// Cost is linear in the text whatever it holds: many CDATA sections or
// entities in one element are joined once, not copied again per piece.
func TestParseManyPieces(t *testing.T) {
	const n = 200_000
	text := `<tool_error code="X" severity="error"><message>` + strings.Repeat("<![CDATA[a]]>&amp;", n) + `</message></tool_error>`
	d, err := envelope.Parse(text)
	if err != nil || d.ToolError.Message != strings.Repeat("a&", n) {
		t.Fatalf("Parse of %d CDATA sections and entities: %v", n, err)
	}
}
