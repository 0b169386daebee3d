package fuzz

import (
	"encoding/xml"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/selfheal/selfheal/envelope"
)

// Names in this file start with "parse" or "Fuzz": other packages' targets
// share package fuzz.

// FuzzParse gives envelope.Parse arbitrary text, seeded with rendered
// envelopes and the spellings XML allows besides ours. Whatever the input,
// Parse does not panic, and when it accepts the text:
//
//  1. the envelope is well-formed XML under encoding/xml's strict decoder,
//     and reads there as the same values (Parse never accepts what is not
//     XML, and never misreads what is);
//  2. rendering what Parse returned and parsing that again gives it back
//     (after the normalizations Parse's documentation lists), and rendering
//     is then a fixed point.
//
// The converse, that Parse rejects what is not our shape, is the table of
// envelope's TestParseErrors and TestParseStrict; FuzzToolError and
// FuzzValidationError check Parse(Render(x)) == x from the renderer's side.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"",
		"<tool_error",
		"<tool_error/>",
		envelope.Error(envelope.NotFound, "No invoice with that ID").
			Suggest("List invoices first, then retry with a real ID").
			Actions("billing.list_invoices").
			Detail("requestedId", "inv_2026_9999").
			RetryAfter(30 * time.Second).String(),
		envelope.Error(envelope.RateLimited, "Too many calls").RetryAfter(1500 * time.Millisecond).String(),
		envelope.ToolError{Code: `a"b<c&d>`, Severity: envelope.SeverityWarning, Message: "]]>\r\n\t\x00\xff",
			Actions: []string{"", "x"}, Details: []envelope.Detail{{Key: "k\t\n\r", Value: "v"}}, RetryAfter: time.Second}.String(),
		envelope.ValidationError{Action: "billing.create_invoice",
			Fields:        []envelope.Field{{Name: "amount", Text: "Too small. You sent: 0. Expected a number >= 1."}, {Name: `labels["a.b"]`, Text: "'42'"}},
			More:          "…and 3 more issues not shown.",
			ServerMessage: "MCP error -32602: Invalid arguments for tool billing.create_invoice: amount: Number must be >= 1\r\n]]> & <",
			Contract: &envelope.Contract{More: 2, Changes: []envelope.ContractChange{
				{Severity: "BREAKING", Field: "amount", Description: "Minimum raised from 0 to 1", Before: "0", After: "1"},
				{Severity: "RISKY", Field: "labels", Description: "New optional field"}}},
		}.String(),
		"preamble <tool_error  code = 'X'\n\tseverity='warning' ><message >a<![CDATA[<b>]]>&#x1F642;&#13;\r\n</message\n></tool_error > trailing",
		`<validation_error action='a&#9;b'><field name="f"/><contract_awareness omitted="2"/><recovery/></validation_error>`,
		"<validation_error action=\"write_file\">\n  <server_message>Error: ENOENT&#10;<![CDATA[<at> ]]]]><![CDATA[>]]>\n\tx</server_message>\n  <recovery>r</recovery>\n</validation_error>",
		`<validation_error action="a"><more/><server_message/><contract_awareness/><recovery/></validation_error>`,
		"<tool_error code=\"a\tb\r\nc\" severity=\"error\"><message>m</message><details><detail key='k'/></details></tool_error>",
		`<tool_error code="X" severity="error"><message>m</message><!-- c --></tool_error>`,
		`<tool_error code="X" severity="error"><message>m</mess></tool_error>`,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		doc, err := envelope.Parse(text)
		if err != nil {
			if err == nil || !strings.HasPrefix(err.Error(), "envelope: not a tool_error or validation_error envelope") || doc != (envelope.Document{}) {
				t.Fatalf("Parse(%q) = %+v, %v: want an empty document and the not-an-envelope error", text, doc, err)
			}
			return
		}
		if (doc.ToolError == nil) == (doc.Validation == nil) {
			t.Fatalf("Parse(%q) = %+v: want exactly one envelope", text, doc)
		}

		// (1) The same values under encoding/xml.
		if ref := parseReference(t, text); !reflect.DeepEqual(parseAttrSpaces(doc), parseAttrSpaces(ref)) {
			t.Fatalf("Parse(%q)\n= %s\nencoding/xml reads %s", text, parseDump(doc), parseDump(ref))
		}

		// (2) Render, parse again: the same document, and the same bytes.
		want := parseNormalized(doc)
		out := parseRender(doc)
		again, err := envelope.Parse(out)
		if err != nil || !reflect.DeepEqual(again, want) {
			t.Fatalf("Parse(%q) = %s\nrendered %q\nread back %s, %v", text, parseDump(want), out, parseDump(again), err)
		}
		if out2 := parseRender(again); out2 != out {
			t.Fatalf("rendering is not a fixed point:\n%q\n%q", out, out2)
		}
	})
}

func parseRender(d envelope.Document) string {
	if d.ToolError != nil {
		return d.ToolError.String()
	}
	return d.Validation.String()
}

// parseNormalized is d as rendering and parsing again gives it back: an
// empty validation recovery is written as the default one, and an empty
// contract section is omitted.
func parseNormalized(d envelope.Document) envelope.Document {
	if v := d.Validation; v != nil {
		n := *v
		if n.Recovery == "" {
			n.Recovery = envelope.DefaultRecovery
		}
		if c := n.Contract; c != nil && len(c.Changes) == 0 && c.More == 0 {
			n.Contract = nil
		}
		d.Validation = &n
	}
	return d
}

// parseAttrSpaces returns d with tabs and newlines in attribute values made
// spaces: encoding/xml leaves raw ones as they are, where XML (and Parse)
// reads them as spaces, and it cannot tell them from &#9; and &#10;.
func parseAttrSpaces(d envelope.Document) envelope.Document {
	sp := strings.NewReplacer("\t", " ", "\n", " ").Replace
	if e := d.ToolError; e != nil {
		n := *e
		n.Code, n.Severity = envelope.Code(sp(string(n.Code))), envelope.Severity(sp(string(n.Severity)))
		n.Details = nil
		for _, kv := range e.Details {
			n.Details = append(n.Details, envelope.Detail{Key: sp(kv.Key), Value: kv.Value})
		}
		d.ToolError = &n
	}
	if v := d.Validation; v != nil {
		n := *v
		n.Action = sp(n.Action)
		n.Fields = nil
		for _, f := range v.Fields {
			n.Fields = append(n.Fields, envelope.Field{Name: sp(f.Name), Text: f.Text})
		}
		if c := v.Contract; c != nil {
			nc := &envelope.Contract{More: c.More}
			for _, ch := range c.Changes {
				nc.Changes = append(nc.Changes, envelope.ContractChange{Severity: sp(ch.Severity), Field: sp(ch.Field),
					Description: ch.Description, Before: sp(ch.Before), After: sp(ch.After)})
			}
			n.Contract = nc
		}
		d.Validation = &n
	}
	return d
}

// parseNode is an element as encoding/xml reads it.
type parseNode struct {
	name  string
	attrs map[string]string
	text  string
	kids  []*parseNode
}

// parseReference reads the envelope Parse found in text (from the first
// <tool_error or <validation_error to the end of that element) with
// encoding/xml's strict decoder, failing the test unless it is well-formed,
// and maps its elements to a Document without judging their shape.
func parseReference(t *testing.T, text string) envelope.Document {
	t.Helper()
	start := -1
	for _, tag := range []string{"<tool_error", "<validation_error"} {
		for off := 0; ; {
			i := strings.Index(text[off:], tag)
			if i < 0 {
				break
			}
			if j := off + i + len(tag); j == len(text) || strings.ContainsRune(" \t\r\n/>", rune(text[j])) {
				if start < 0 || off+i < start {
					start = off + i
				}
				break
			}
			off += i + len(tag)
		}
	}
	if start < 0 {
		t.Fatalf("Parse accepted %q, which has no envelope start tag", text)
	}
	d := xml.NewDecoder(strings.NewReader(text[start:]))
	d.Strict = true
	var stack []*parseNode
	var root *parseNode
	for root == nil || len(stack) > 0 {
		tok, err := d.Token()
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			t.Fatalf("Parse accepted %q, which encoding/xml refuses: %v", text, err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &parseNode{name: tok.Name.Local, attrs: map[string]string{}}
			if tok.Name.Space != "" {
				t.Fatalf("Parse accepted %q: namespaced element %v", text, tok.Name)
			}
			for _, a := range tok.Attr {
				if a.Name.Space != "" {
					t.Fatalf("Parse accepted %q: namespaced attribute %v", text, a.Name)
				}
				n.attrs[a.Name.Local] = a.Value
			}
			if root == nil {
				root = n
			} else {
				top := stack[len(stack)-1]
				top.kids = append(top.kids, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			stack[len(stack)-1].text += string(tok)
		default:
			t.Fatalf("Parse accepted %q, where encoding/xml reads a %T", text, tok)
		}
	}
	return parseDocument(t, text, root)
}

// parseDocument maps the elements of root to a Document.
func parseDocument(t *testing.T, text string, root *parseNode) envelope.Document {
	bad := func(n *parseNode) {
		t.Helper()
		t.Fatalf("Parse accepted %q, where encoding/xml reads <%s %v>%q", text, n.name, n.attrs, n.text)
	}
	container := func(n *parseNode) {
		t.Helper()
		if strings.Trim(n.text, " \t\r\n") != "" {
			bad(n)
		}
	}
	container(root)
	switch root.name {
	case "tool_error":
		e := &envelope.ToolError{Code: envelope.Code(root.attrs["code"]), Severity: envelope.Severity(root.attrs["severity"])}
		for _, k := range root.kids {
			switch k.name {
			case "message":
				e.Message = k.text
			case "recovery":
				e.Recovery = k.text
			case "available_actions":
				container(k)
				for _, a := range k.kids {
					e.Actions = append(e.Actions, a.text)
				}
			case "details":
				container(k)
				for _, kv := range k.kids {
					e.Details = append(e.Details, envelope.Detail{Key: kv.attrs["key"], Value: kv.text})
				}
			case "retry_after":
				secs, err := strconv.ParseFloat(strings.Fields(k.text + " x")[0], 64)
				if err != nil {
					bad(k)
				}
				e.RetryAfter = time.Duration(math.Round(secs*1000)) * time.Millisecond
			default:
				bad(k)
			}
		}
		return envelope.Document{ToolError: e}
	case "validation_error":
		v := &envelope.ValidationError{Action: root.attrs["action"]}
		for _, k := range root.kids {
			switch k.name {
			case "field":
				v.Fields = append(v.Fields, envelope.Field{Name: k.attrs["name"], Text: k.text})
			case "more":
				v.More = k.text
			case "server_message":
				v.ServerMessage = k.text
			case "recovery":
				v.Recovery = k.text
			case "contract_awareness":
				container(k)
				v.Contract = &envelope.Contract{}
				if s, ok := k.attrs["omitted"]; ok {
					n, err := strconv.Atoi(s)
					if err != nil {
						bad(k)
					}
					v.Contract.More = n
				}
				for _, c := range k.kids {
					v.Contract.Changes = append(v.Contract.Changes, envelope.ContractChange{Severity: c.attrs["severity"],
						Field: c.attrs["field"], Description: c.text, Before: c.attrs["before"], After: c.attrs["after"]})
				}
			default:
				bad(k)
			}
		}
		return envelope.Document{Validation: v}
	}
	bad(root)
	return envelope.Document{}
}

func parseDump(d envelope.Document) string {
	if d.ToolError != nil {
		return strconv.Quote(d.ToolError.String())
	}
	if d.Validation != nil {
		return strconv.Quote(d.Validation.String()) + " " + strconv.Quote(d.Validation.Recovery)
	}
	return "(none)"
}
