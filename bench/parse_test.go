package bench

import (
	"encoding/xml"
	"fmt"
	"testing"
	"time"

	"github.com/selfheal/selfheal/envelope"
)

// The client side: envelope.Parse beside what a Go client would write
// without it, encoding/xml unmarshalling the same bytes into plain structs
// (which checks far less: no order, no unknown elements, no severity or
// retry_after grammar).

// xmlToolError and xmlValidation are the plain structs of the baseline.
type xmlToolError struct {
	Code       string   `xml:"code,attr"`
	Severity   string   `xml:"severity,attr"`
	Message    string   `xml:"message"`
	Recovery   string   `xml:"recovery"`
	Actions    []string `xml:"available_actions>action"`
	Details    []xmlKV  `xml:"details>detail"`
	RetryAfter string   `xml:"retry_after"`
}

type xmlKV struct {
	Key   string `xml:"key,attr"`
	Value string `xml:",chardata"`
}

type xmlValidation struct {
	Action string `xml:"action,attr"`
	Fields []struct {
		Name string `xml:"name,attr"`
		Text string `xml:",chardata"`
	} `xml:"field"`
	More     string `xml:"more"`
	Recovery string `xml:"recovery"`
}

// parseSeedToolError is docs/ARCHITECTURE.md 2.1's example, byte for byte.
func parseSeedToolError() string {
	return envelope.Error(envelope.NotFound, "No invoice with that ID").
		Suggest("List invoices first, then retry with a real ID").
		Actions("billing.list_invoices").
		Detail("requestedId", "inv_2026_9999").
		RetryAfter(30 * time.Second).
		String()
}

// parseValidation10 is a validation_error of 10 field lines, as the
// formatter words them.
func parseValidation10() string {
	v := envelope.ValidationError{Action: "users.create"}
	for i := range 10 {
		v.Fields = append(v.Fields, envelope.Field{
			Name: fmt.Sprintf("items[%d].email", i),
			Text: "Invalid email format. You sent: 'not-an-email'. Expected a valid email address, e.g. 'user@example.com'.",
		})
	}
	return v.String()
}

// BenchmarkParse reads the seed's tool_error and a 10-field validation_error
// with envelope.Parse and with xml.Unmarshal into a plain struct.
func BenchmarkParse(b *testing.B) {
	for _, tc := range []struct {
		name, text string
		plain      func() any
	}{
		{"tool_error", parseSeedToolError(), func() any { return new(xmlToolError) }},
		{"validation_error=10", parseValidation10(), func() any { return new(xmlValidation) }},
	} {
		data := []byte(tc.text)
		b.Run(tc.name+"/selfheal", func(b *testing.B) {
			b.SetBytes(int64(len(tc.text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := envelope.Parse(tc.text); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/encoding-xml", func(b *testing.B) {
			b.SetBytes(int64(len(tc.text)))
			b.ReportAllocs()
			for b.Loop() {
				if err := xml.Unmarshal(data, tc.plain()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestParseBaselineReadsTheSame checks that both sides of BenchmarkParse
// read the same values, so that the comparison is of equal work.
func TestParseBaselineReadsTheSame(t *testing.T) {
	d, err := envelope.Parse(parseSeedToolError())
	if err != nil {
		t.Fatal(err)
	}
	var x xmlToolError
	if err := xml.Unmarshal([]byte(parseSeedToolError()), &x); err != nil {
		t.Fatal(err)
	}
	te := d.ToolError
	if x.Code != string(te.Code) || x.Severity != string(te.Severity) || x.Message != te.Message ||
		x.Recovery != te.Recovery || len(x.Actions) != 1 || x.Actions[0] != te.Actions[0] ||
		len(x.Details) != 1 || x.Details[0].Key != te.Details[0].Key || x.Details[0].Value != te.Details[0].Value ||
		x.RetryAfter != "30 seconds" || te.RetryAfter != 30*time.Second {
		t.Errorf("tool_error: Parse = %+v, xml.Unmarshal = %+v", te, x)
	}

	d, err = envelope.Parse(parseValidation10())
	if err != nil {
		t.Fatal(err)
	}
	var v xmlValidation
	if err := xml.Unmarshal([]byte(parseValidation10()), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Fields) != 10 || len(d.Validation.Fields) != 10 || v.Recovery != d.Validation.Recovery {
		t.Fatalf("validation_error: Parse = %+v, xml.Unmarshal = %+v", d.Validation, v)
	}
	for i, f := range v.Fields {
		if g := d.Validation.Fields[i]; f.Name != g.Name || f.Text != g.Text {
			t.Errorf("field %d: Parse = %+v, xml.Unmarshal = %+v", i, g, f)
		}
	}
}
