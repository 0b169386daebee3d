package envelope_test

import (
	"encoding/xml"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/selfheal/selfheal/envelope"
)

func TestParseSeeds(t *testing.T) {
	d, err := envelope.Parse("Tool failed:\n\n  " + seedToolError + "\n\ntrailing text <not xml")
	if err != nil {
		t.Fatal(err)
	}
	want := seedBuilder().ToolError()
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
		{"comment", te("<!-- c -->"), "unexpected xml.Comment"},
		{"bad list item", te("<available_actions><detail key='k'>v</detail></available_actions>"), "unexpected element <detail> in <available_actions>"},
		{"detail without key", te("<details><detail>v</detail></details>"), "no key attribute"},
		{"retry zero", te("<retry_after>0 seconds</retry_after>"), "malformed retry_after"},
		{"retry grammar", te("<retry_after>1 seconds</retry_after>"), "malformed retry_after"},
		{"retry float", te("<retry_after>1e+21 seconds</retry_after>"), "malformed retry_after"},
		{"retry over cap", te("<retry_after>86401 seconds</retry_after>"), "malformed retry_after"},
		{"unknown entity", te("<recovery>&nbsp;</recovery>"), "invalid character entity"},
		{"raw control", te("<recovery>\x01</recovery>"), "illegal character"},
		{"invalid utf-8", te("<recovery>\xff</recovery>"), "invalid UTF-8"},
		{"validation without recovery", `<validation_error action="a"></validation_error>`, "no <recovery>"},
		{"validation without action", `<validation_error><recovery>r</recovery></validation_error>`, "no action attribute"},
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
