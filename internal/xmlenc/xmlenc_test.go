package xmlenc_test

import (
	"fmt"
	"testing"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/testkit/race"
	"github.com/selfheal/selfheal/internal/xmlenc"
)

// The streaming writer and envelope.ValidationError.AppendXML give the same
// bytes: the envelope renders through this package.
func TestStreamingMatchesValue(t *testing.T) {
	v := envelope.ValidationError{
		Action: "billing.create_invoice",
		Fields: []envelope.Field{
			{Name: "amount", Text: "Too small. You sent: 0. Expected a number >= 1."},
			{Name: "items[0].qty", Text: "Too big. You sent: 1000. Expected at most 99 & <fewer>."},
		},
		More: "…and 1 more issue not shown.",
	}
	dst := xmlenc.AppendValidationOpen(nil, v.Action)
	dst = xmlenc.AppendField(dst, v.Fields[0].Name, []byte(v.Fields[0].Text)) // mixed string and []byte
	dst = xmlenc.AppendField(dst, []byte(v.Fields[1].Name), v.Fields[1].Text)
	dst = xmlenc.AppendValidationClose(dst, v.More, nil, "")
	if string(dst) != v.String() {
		t.Errorf("streamed:\n%s\nvalue:\n%s", dst, v.String())
	}

	// A section (envelope's contract_awareness) goes between more and recovery.
	v.Contract = &envelope.Contract{More: 2}
	dst = xmlenc.AppendValidationOpen(dst[:0], v.Action)
	for _, f := range v.Fields {
		dst = xmlenc.AppendField(dst, f.Name, f.Text)
	}
	dst = xmlenc.AppendValidationClose(dst, v.More, func(b []byte) []byte {
		return append(b, "  <contract_awareness omitted=\"2\">\n  </contract_awareness>\n"...)
	}, "")
	if string(dst) != v.String() {
		t.Errorf("streamed with a section:\n%s\nvalue:\n%s", dst, v.String())
	}

	// The server's message goes between more and the section.
	v.ServerMessage = "MCP error -32602: Invalid arguments for tool create_invoice: ]]> & <"
	dst = xmlenc.AppendValidationOpen(dst[:0], v.Action)
	for _, f := range v.Fields {
		dst = xmlenc.AppendField(dst, f.Name, f.Text)
	}
	dst = xmlenc.AppendValidationEnd(dst, v.More, v.ServerMessage, func(b []byte) []byte {
		return append(b, "  <contract_awareness omitted=\"2\">\n  </contract_awareness>\n"...)
	}, "")
	if string(dst) != v.String() {
		t.Errorf("streamed with a server message:\n%s\nvalue:\n%s", dst, v.String())
	}
}

// The formatter's hot path streams into a reused buffer without allocating.
func TestStreamingDoesNotAllocate(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	name, text := []byte("items[0].name"), []byte("Too long. You sent: 'aaaa…' (5000 characters). Expected at most 64 characters.")
	nasty := "]]> & < \x00 \xff \uFFFE \r\n\t\""
	buf := make([]byte, 0, 4096)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"streaming []byte", func() {
			buf = xmlenc.AppendValidationOpen(buf[:0], "a")
			buf = xmlenc.AppendField(buf, name, text)
			buf = xmlenc.AppendField(buf, "s", nasty)
			buf = xmlenc.AppendValidationClose(buf, "", nil, "")
		}},
		{"AppendText", func() { buf = xmlenc.AppendText(buf[:0], nasty) }},
		{"AppendAttr", func() { buf = xmlenc.AppendAttr(buf[:0], nasty) }},
	} {
		if n := testing.AllocsPerRun(100, tc.f); n != 0 {
			t.Errorf("%s: %v allocs per run, want 0", tc.name, n)
		}
	}
}

func ExampleAppendField() {
	// A formatter streams the envelope into its own reused buffer: no
	// ValidationError value, no strings built, no allocation once warm.
	buf := make([]byte, 0, 512)
	line := []byte("Too small. You sent: 0. Expected a number >= 1.")

	buf = xmlenc.AppendValidationOpen(buf, "billing.create_invoice")
	buf = xmlenc.AppendField(buf, "amount", line)
	buf = xmlenc.AppendValidationClose(buf, "…and 2 more issues not shown.", nil, "")
	fmt.Println(string(buf))
	// Output:
	// <validation_error action="billing.create_invoice">
	//   <field name="amount">Too small. You sent: 0. Expected a number >= 1.</field>
	//   <more>…and 2 more issues not shown.</more>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}

func ExampleAppendText() {
	// Text that would break the XML is escaped, forbidden characters are
	// shown or replaced, and everything else stays readable.
	fmt.Println(string(xmlenc.AppendText(nil, "a < b && c > d ]]> \x00 \xff")))
	// Output:
	// a &lt; b &amp;&amp; c > d ]]&gt; \u0000 �
}
