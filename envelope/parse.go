package envelope

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// ErrNotEnvelope is returned, wrapped with the reason and a line number, when
// Parse is given text that is not exactly one of this package's envelopes.
// Test for it with errors.Is.
var ErrNotEnvelope = errors.New("envelope: not a tool_error or validation_error envelope")

// Document is what [Parse] read: exactly one of its fields is set.
type Document struct {
	ToolError  *ToolError
	Validation *ValidationError
}

// Parse reads back a <tool_error> or <validation_error> envelope, the client
// side of the wire contract: a model-facing client, a test or a proxy can
// switch on the code and read every section as typed values.
//
// Text before the first <tool_error or <validation_error start tag and after
// its end tag is ignored, so a tool result with a preamble or trailing
// newline parses. The envelope itself is read strictly with encoding/xml:
// unknown, repeated or misordered elements, unknown attributes, stray text,
// comments, an unknown severity or a malformed retry_after are errors
// wrapping [ErrNotEnvelope], never guesses. Element text is returned exactly,
// leading and trailing spaces included.
//
// For anything the renderers wrote, Parse returns the values given to them,
// except for what rendering normalizes: the replacements of the escaping (C0
// controls read back as the visible text \u00XX, invalid UTF-8 bytes and
// U+FFFE/U+FFFF as U+FFFD), an empty Code as INTERNAL_ERROR, an unknown
// Severity as error, RetryAfter as whole seconds (rounded up, capped), an
// empty validation Recovery as DefaultRecovery, omitted sections as nil or
// empty, and a negative Contract.More as 0.
func Parse(text string) (Document, error) {
	start := findStart(text)
	if start < 0 {
		return Document{}, fmt.Errorf("%w: no <tool_error> or <validation_error> element found", ErrNotEnvelope)
	}
	p := &parser{
		d:     xml.NewDecoder(strings.NewReader(text[start:])),
		line0: strings.Count(text[:start], "\n"),
	}
	t, err := p.token()
	if err != nil {
		return Document{}, err
	}
	root, ok := t.(xml.StartElement)
	if !ok { // unreachable: text[start:] begins with a start tag
		return Document{}, p.errorf("no start tag")
	}
	if root.Name.Local == "tool_error" {
		e, err := p.toolError(root)
		return Document{ToolError: e}, err
	}
	v, err := p.validation(root)
	return Document{Validation: v}, err
}

// findStart returns the offset of the first <tool_error or <validation_error
// start tag (the name followed by a space, '/', '>' or the end), or -1.
func findStart(s string) int {
	best := -1
	for _, tag := range [...]string{"<tool_error", "<validation_error"} {
		for off := 0; ; {
			i := strings.Index(s[off:], tag)
			if i < 0 {
				break
			}
			j := off + i + len(tag)
			if j == len(s) || strings.IndexByte(" \t\r\n/>", s[j]) >= 0 {
				if best < 0 || off+i < best {
					best = off + i
				}
				break
			}
			off = j
		}
	}
	return best
}

// parser walks the tokens of one envelope. Lines in errors count from the
// start of the text given to Parse.
type parser struct {
	d     *xml.Decoder
	line0 int // newlines before the envelope's start
}

func (p *parser) errorf(format string, args ...any) error {
	line, _ := p.d.InputPos()
	return fmt.Errorf("%w: line %d: %s", ErrNotEnvelope, p.line0+line, fmt.Sprintf(format, args...))
}

// token returns the next element or text token. Comments, processing
// instructions and directives are refused: the renderers write none.
func (p *parser) token() (xml.Token, error) {
	t, err := p.d.Token()
	switch {
	case err == io.EOF:
		return nil, p.errorf("unexpected end of input")
	case err != nil:
		if se, ok := errors.AsType[*xml.SyntaxError](err); ok {
			se.Line += p.line0
		}
		return nil, fmt.Errorf("%w: %w", ErrNotEnvelope, err)
	}
	switch t := t.(type) {
	case xml.StartElement:
		if t.Name.Space != "" {
			return nil, p.errorf("unexpected namespaced element <%s:%s>", t.Name.Space, t.Name.Local)
		}
	case xml.EndElement, xml.CharData:
	default:
		return nil, p.errorf("unexpected %T", t)
	}
	return t, nil
}

// child returns the next child element of the current element, or false at
// its end tag. Whitespace between elements is skipped; other text is an error.
func (p *parser) child() (xml.StartElement, bool, error) {
	for {
		t, err := p.token()
		if err != nil {
			return xml.StartElement{}, false, err
		}
		switch t := t.(type) {
		case xml.StartElement:
			return t, true, nil
		case xml.EndElement:
			return xml.StartElement{}, false, nil
		case xml.CharData:
			if strings.TrimLeft(string(t), " \t\r\n") != "" {
				return xml.StartElement{}, false, p.errorf("unexpected text %.40q between elements", t)
			}
		}
	}
}

// text returns the character data of the leaf element se, exactly as written
// (entities decoded, nothing trimmed), and consumes its end tag.
func (p *parser) text(se xml.StartElement) (string, error) {
	var b strings.Builder
	for {
		t, err := p.token()
		if err != nil {
			return "", err
		}
		switch t := t.(type) {
		case xml.CharData:
			b.Write(t)
		case xml.EndElement:
			return b.String(), nil
		case xml.StartElement:
			return "", p.errorf("unexpected <%s> inside <%s>", t.Name.Local, se.Name.Local)
		}
	}
}

// attrs returns the values of se's attributes in the order of names; the
// first required names must be present, and any other attribute is an error.
func (p *parser) attrs(se xml.StartElement, required int, names ...string) ([]string, error) {
	vals := make([]string, len(names))
	seen := make([]bool, len(names))
	for _, a := range se.Attr {
		i := -1
		for j, n := range names {
			if a.Name.Space == "" && a.Name.Local == n {
				i = j
			}
		}
		if i < 0 || seen[i] {
			return nil, p.errorf("unexpected attribute %q on <%s>", a.Name.Local, se.Name.Local)
		}
		vals[i], seen[i] = a.Value, true
	}
	for i := range required {
		if !seen[i] {
			return nil, p.errorf("<%s> has no %s attribute", se.Name.Local, names[i])
		}
	}
	return vals, nil
}

// order checks that child name comes after the previous one in want (only
// the repeatable name may repeat) and returns its position.
func (p *parser) order(parent, name string, prev int, want []string, repeatable string) (int, error) {
	for i, w := range want {
		if w != name {
			continue
		}
		if i < prev || i == prev && name != repeatable {
			return 0, p.errorf("<%s> repeated or out of order in <%s>", name, parent)
		}
		return i, nil
	}
	return 0, p.errorf("unexpected element <%s> in <%s>", name, parent)
}

var toolErrorOrder = []string{"", "message", "recovery", "available_actions", "details", "retry_after"}

func (p *parser) toolError(root xml.StartElement) (*ToolError, error) {
	a, err := p.attrs(root, 2, "code", "severity")
	if err != nil {
		return nil, err
	}
	e := &ToolError{Code: Code(a[0]), Severity: Severity(a[1])}
	if e.Code == "" {
		return nil, p.errorf("empty code")
	}
	if e.Severity.norm() != e.Severity {
		return nil, p.errorf("unknown severity %q", e.Severity)
	}
	stage, message := 0, false
	for {
		c, ok, err := p.child()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if stage, err = p.order("tool_error", c.Name.Local, stage, toolErrorOrder, ""); err != nil {
			return nil, err
		}
		if _, err = p.attrs(c, 0); err != nil { // no child of tool_error has attributes
			return nil, err
		}
		switch c.Name.Local {
		case "message":
			e.Message, err = p.text(c)
			message = true
		case "recovery":
			e.Recovery, err = p.text(c)
		case "available_actions":
			err = p.list(c, "action", 0, nil, func(_ []string, text string) {
				e.Actions = append(e.Actions, text)
			})
		case "details":
			err = p.list(c, "detail", 1, []string{"key"}, func(a []string, text string) {
				e.Details = append(e.Details, Detail{a[0], text})
			})
		case "retry_after":
			var s string
			if s, err = p.text(c); err == nil {
				e.RetryAfter, err = p.retry(s)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if !message {
		return nil, p.errorf("<tool_error> has no <message>")
	}
	return e, nil
}

// element reads the leaf element se: its attributes (as attrs) and its text.
func (p *parser) element(se xml.StartElement, required int, names ...string) ([]string, string, error) {
	a, err := p.attrs(se, required, names...)
	if err != nil {
		return nil, "", err
	}
	text, err := p.text(se)
	return a, text, err
}

// list reads the children of the list element se (whose own attributes the
// caller has read): item elements with the given attributes, each handed to
// add.
func (p *parser) list(se xml.StartElement, item string, required int, names []string, add func(attrs []string, text string)) error {
	for {
		c, ok, err := p.child()
		if err != nil || !ok {
			return err
		}
		if c.Name.Local != item {
			return p.errorf("unexpected element <%s> in <%s>", c.Name.Local, se.Name.Local)
		}
		a, text, err := p.element(c, required, names...)
		if err != nil {
			return err
		}
		add(a, text)
	}
}

// retry reads "1 second" or "N seconds", exactly as AppendXML writes them.
func (p *parser) retry(s string) (time.Duration, error) {
	num, unit, _ := strings.Cut(s, " ")
	n, err := strconv.ParseInt(num, 10, 64)
	want := "seconds"
	if n == 1 {
		want = "second"
	}
	if err != nil || n < 1 || n > int64(MaxRetryAfter/time.Second) || strconv.FormatInt(n, 10) != num || unit != want {
		return 0, p.errorf("malformed retry_after %.40q", s)
	}
	return time.Duration(n) * time.Second, nil
}

var validationOrder = []string{"", "field", "more", "contract_awareness", "recovery"}

func (p *parser) validation(root xml.StartElement) (*ValidationError, error) {
	a, err := p.attrs(root, 1, "action")
	if err != nil {
		return nil, err
	}
	v := &ValidationError{Action: a[0]}
	stage := 0
	for {
		c, ok, err := p.child()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if stage, err = p.order("validation_error", c.Name.Local, stage, validationOrder, "field"); err != nil {
			return nil, err
		}
		switch c.Name.Local {
		case "field":
			var a []string
			var text string
			if a, text, err = p.element(c, 1, "name"); err == nil {
				v.Fields = append(v.Fields, Field{a[0], text})
			}
		case "more":
			_, v.More, err = p.element(c, 0)
		case "contract_awareness":
			v.Contract, err = p.contract(c)
		case "recovery":
			_, v.Recovery, err = p.element(c, 0)
		}
		if err != nil {
			return nil, err
		}
	}
	if stage != len(validationOrder)-1 {
		return nil, p.errorf("<validation_error> has no <recovery>")
	}
	return v, nil
}

func (p *parser) contract(se xml.StartElement) (*Contract, error) {
	a, err := p.attrs(se, 0, "omitted")
	if err != nil {
		return nil, err
	}
	c := &Contract{}
	if a[0] != "" {
		n, err := strconv.Atoi(a[0])
		if err != nil || n < 1 || strconv.Itoa(n) != a[0] {
			return nil, p.errorf("malformed omitted count %.40q", a[0])
		}
		c.More = n
	}
	err = p.list(se, "change", 2, []string{"severity", "field", "before", "after"}, func(a []string, text string) {
		c.Changes = append(c.Changes, ContractChange{Severity: a[0], Field: a[1], Description: text, Before: a[2], After: a[3]})
	})
	return c, err
}
