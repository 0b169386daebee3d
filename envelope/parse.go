package envelope

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// errNotEnvelope is what every error of Parse wraps, with the reason and a
// line number: the text is not exactly one of this package's envelopes.
var errNotEnvelope = errors.New("envelope: not a tool_error or validation_error envelope")

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
// newline parses. The envelope itself is read strictly, with encoding/xml:
// text that is not well-formed XML gives an *xml.SyntaxError, and unknown,
// repeated or misordered elements, unknown attributes, stray text, comments,
// processing instructions, namespaces, an unknown severity or a retry_after
// that String would not write are errors too. Every error wraps the same
// sentinel and names the line, counted from the start of text. Element text
// is returned exactly, leading and trailing spaces included.
//
// Besides the renderers' own spelling, Parse accepts what XML defines to
// mean the same: entities and character references, CDATA sections inside
// element text, single quotes, empty elements written <name/>, and any
// whitespace between elements and attributes. As XML specifies, a raw \r or
// \r\n in text reads as \n, and a raw tab or line end in an attribute value
// as one space (the renderers escape all of them).
//
// For anything the renderers wrote, Parse returns the values given to them,
// except for what rendering normalizes: the replacements of the escaping (C0
// controls read back as the visible text \u00XX, invalid UTF-8 bytes and
// U+FFFE/U+FFFF as U+FFFD), an empty Code as INTERNAL_ERROR, an unknown
// Severity as error, RetryAfter as written (rounded up to the millisecond
// below 10 seconds, to the second from there, capped), an empty validation
// Recovery as DefaultRecovery, omitted sections as nil or empty, and a
// negative Contract.More as 0.
func Parse(text string) (Document, error) {
	start := findStart(text)
	if start < 0 {
		return Document{}, fmt.Errorf("%w: no <tool_error> or <validation_error> element found", errNotEnvelope)
	}
	p := &parser{d: xml.NewDecoder(strings.NewReader(text[start:])), src: text, base: start}
	el, err := p.start()
	if err != nil {
		return Document{}, err
	}
	if el.Name.Local == "tool_error" {
		e, err := p.toolError(el)
		if err != nil {
			return Document{}, err
		}
		return Document{ToolError: e}, nil
	}
	v, err := p.validation(el)
	if err != nil {
		return Document{}, err
	}
	return Document{Validation: v}, nil
}

// findStart returns the offset of the first <tool_error or <validation_error
// start tag (the name followed by a space, '/', '>' or the end), or -1.
func findStart(s string) int {
	for off := 0; ; {
		i := strings.IndexByte(s[off:], '<')
		if i < 0 {
			return -1
		}
		off += i + 1
		for _, name := range [...]string{"tool_error", "validation_error"} {
			if strings.HasPrefix(s[off:], name) {
				if j := off + len(name); j == len(s) || strings.IndexByte(" \t\r\n/>", s[j]) >= 0 {
					return off - 1
				}
			}
		}
	}
}

// parser reads one envelope with an encoding/xml decoder over text[base:].
// It uses RawToken, which leaves namespace prefixes as written, so end tags
// are matched here.
type parser struct {
	d    *xml.Decoder
	src  string // the whole text given to Parse
	base int    // the offset in text of d's input
}

// element is a start tag, with what encoding/xml does not check for us.
type element struct {
	xml.StartElement
	raw string // the tag as written
	at  int    // its offset in the text given to Parse
}

func (p *parser) line(off int) int { return 1 + strings.Count(p.src[:off], "\n") }

// errorf reports text that is well-formed XML but not our shape, at off.
func (p *parser) errorf(off int, format string, args ...any) error {
	return fmt.Errorf("%w: line %d, offset %d: %s", errNotEnvelope, p.line(off), off, fmt.Sprintf(format, args...))
}

// syntaxf reports text that is not well-formed XML, at off.
func (p *parser) syntaxf(off int, format string, args ...any) error {
	return fmt.Errorf("%w: %w", errNotEnvelope, &xml.SyntaxError{Msg: fmt.Sprintf(format, args...), Line: p.line(off)})
}

// next returns the next token, its text as written and its offset.
func (p *parser) next() (tok xml.Token, raw string, at int, err error) {
	at = p.base + int(p.d.InputOffset())
	tok, err = p.d.RawToken()
	end := p.base + int(p.d.InputOffset())
	var se *xml.SyntaxError
	switch {
	case err == io.EOF:
		return nil, "", at, p.syntaxf(end, "unexpected EOF")
	case errors.As(err, &se):
		// The decoder counts lines from the envelope, not from text.
		return nil, "", at, p.syntaxf(end, "%s", se.Msg)
	case err != nil:
		return nil, "", at, fmt.Errorf("%w: %w", errNotEnvelope, err)
	}
	return tok, p.src[at:end], at, nil
}

// start reads the start tag at the decoder's position.
func (p *parser) start() (element, error) {
	tok, raw, at, err := p.next()
	if err != nil {
		return element{}, err
	}
	se, _ := tok.(xml.StartElement)
	return element{se, raw, at}, nil
}

// name is n as written.
func name(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// spaceRepl normalizes the whitespace of a start tag as XML does the raw
// whitespace of attribute values, which encoding/xml keeps.
var spaceRepl = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ", "\t", " ")

// attrs returns the values of el's attributes in the order of names, and
// which were present (bit i for names[i]). The first required names must be
// present, and any other attribute is an error.
func (p *parser) attrs(el element, names []string, required int) (vals []string, seen uint, err error) {
	tag := name(el.Name)
	// encoding/xml reads `a="1"b="2"` as two attributes; XML needs a space.
	var quote byte
	norm := false
	for i := 0; i < len(el.raw); i++ {
		switch c := el.raw[i]; {
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case c == quote:
			quote = 0
			if n := el.raw[i+1]; strings.IndexByte(" \t\r\n/>", n) < 0 {
				return nil, 0, p.syntaxf(el.at+i+1, "unexpected %q in the start tag of <%s>", n, tag)
			}
		case quote != 0 && (c == '\t' || c == '\n' || c == '\r'):
			norm = true
		}
	}
	if norm {
		tok, err := xml.NewDecoder(strings.NewReader(spaceRepl.Replace(el.raw))).RawToken()
		if err != nil {
			return nil, 0, fmt.Errorf("%w: %w", errNotEnvelope, err)
		}
		el.Attr = tok.(xml.StartElement).Attr
	}
	if err := p.surrogateRef(el.raw, el.at); err != nil {
		return nil, 0, err
	}
	vals = make([]string, len(names))
	for _, a := range el.Attr {
		n := name(a.Name)
		i := slices.Index(names, n)
		if i < 0 || seen&(1<<i) != 0 {
			if n == "xmlns" || a.Name.Space == "xmlns" {
				return nil, 0, p.errorf(el.at, "unexpected attribute %q on <%s>: namespaced envelopes are not ours", n, tag)
			}
			return nil, 0, p.errorf(el.at, "unexpected attribute %q on <%s>", n, tag)
		}
		vals[i], seen = a.Value, seen|1<<i
	}
	for i := range required {
		if seen&(1<<i) == 0 {
			return nil, 0, p.errorf(el.at, "<%s> has no %s attribute", tag, names[i])
		}
	}
	return vals, seen, nil
}

// surrogateRef refuses a character reference to a surrogate in raw, text
// or a tag at offset at. XML forbids it, as it does &#0;, but encoding/xml
// reads it as U+FFFD.
func (p *parser) surrogateRef(raw string, at int) error {
	for i := 0; ; {
		j := strings.Index(raw[i:], "&#")
		if j < 0 {
			return nil
		}
		i += j + 2
		ref, _, _ := strings.Cut(raw[i:], ";")
		num, base := ref, 10
		if hex, ok := strings.CutPrefix(ref, "x"); ok {
			num, base = hex, 16
		}
		if v, err := strconv.ParseUint(num, base, 32); err == nil && v >= 0xD800 && v <= 0xDFFF {
			return p.syntaxf(at+i-2, "invalid character entity &#%s;", ref)
		}
	}
}

// end checks that tok, at at, closes the element named tag.
func (p *parser) end(tok xml.EndElement, tag string, at int) error {
	if got := name(tok.Name); got != tag {
		return p.syntaxf(at, "element <%s> closed by </%s>", tag, got)
	}
	return nil
}

// markup names what tok is when it is neither an element nor text.
func markup(tok xml.Token) string {
	switch tok.(type) {
	case xml.Comment:
		return "comment"
	case xml.ProcInst:
		return "processing instruction"
	case xml.Directive:
		return "declaration"
	}
	return ""
}

// text reads the content of the leaf element el after its start tag: text
// and CDATA sections, up to and including its end tag.
func (p *parser) text(el element) (string, error) {
	tag := name(el.Name)
	var b []byte
	for {
		tok, raw, at, err := p.next()
		if err != nil {
			return "", err
		}
		switch tok := tok.(type) {
		case xml.CharData:
			if !strings.HasPrefix(raw, "<![CDATA[") {
				if err := p.surrogateRef(raw, at); err != nil {
					return "", err
				}
			}
			b = append(b, tok...)
		case xml.EndElement:
			return string(b), p.end(tok, tag, at)
		case xml.StartElement:
			return "", p.errorf(at, "unexpected <%s> inside <%s>", name(tok.Name), tag)
		default:
			return "", p.errorf(at, "unexpected %s in <%s>", markup(tok), tag)
		}
	}
}

// leaf reads the leaf element el: its attributes (as attrs) and its text.
func (p *parser) leaf(el element, names []string, required int) (string, []string, error) {
	vals, _, err := p.attrs(el, names, required)
	if err != nil {
		return "", nil, err
	}
	text, err := p.text(el)
	return text, vals, err
}

// children reads the content of el after its start tag, up to and including
// its end tag, calling child for each child element; child reads the
// element whole. Only whitespace may lie between elements.
func (p *parser) children(el element, child func(element) error) error {
	tag := name(el.Name)
	for {
		tok, raw, at, err := p.next()
		if err != nil {
			return err
		}
		switch tok := tok.(type) {
		case xml.CharData:
			if strings.HasPrefix(raw, "<![CDATA[") {
				return p.errorf(at, "unexpected CDATA section between elements of <%s>", tag)
			}
			// The raw text, not tok: &#32; is not whitespace between elements.
			if strings.Trim(raw, " \t\r\n") != "" {
				return p.errorf(at, "unexpected text %.40q between elements of <%s>", raw, tag)
			}
		case xml.EndElement:
			return p.end(tok, tag, at)
		case xml.StartElement:
			if err := child(element{tok, raw, at}); err != nil {
				return err
			}
		default:
			return p.errorf(at, "unexpected %s in <%s>", markup(tok), tag)
		}
	}
}

// list reads the list element el, which has no attributes: item elements,
// each read by item.
func (p *parser) list(el element, item string, read func(element) error) error {
	if _, _, err := p.attrs(el, nil, 0); err != nil {
		return err
	}
	return p.children(el, func(c element) error {
		if name(c.Name) != item {
			return p.errorf(c.at, "unexpected element <%s> in <%s>", name(c.Name), name(el.Name))
		}
		return read(c)
	})
}

// order checks that child c of parent comes after the previous one, at
// index prev in want (only the repeatable name may repeat), and returns its
// index.
func (p *parser) order(c element, parent string, prev int, want []string, repeatable string) (int, error) {
	n := name(c.Name)
	i := slices.Index(want, n)
	switch {
	case i < 0:
		return 0, p.errorf(c.at, "unexpected element <%s> in <%s>", n, parent)
	case i < prev || i == prev && n != repeatable:
		return 0, p.errorf(c.at, "<%s> repeated or out of order in <%s>", n, parent)
	}
	return i, nil
}

var toolErrorOrder = []string{"", "message", "recovery", "available_actions", "details", "retry_after"}

// toolError reads a tool_error after its start tag.
func (p *parser) toolError(el element) (*ToolError, error) {
	a, _, err := p.attrs(el, []string{"code", "severity"}, 2)
	if err != nil {
		return nil, err
	}
	e := &ToolError{Code: Code(a[0]), Severity: Severity(a[1])}
	if e.Code == "" {
		return nil, p.errorf(el.at, "empty code")
	}
	if e.Severity.norm() != e.Severity {
		return nil, p.errorf(el.at, "unknown severity %q", e.Severity)
	}
	stage, message := 0, false
	err = p.children(el, func(c element) (err error) {
		if stage, err = p.order(c, "tool_error", stage, toolErrorOrder, ""); err != nil {
			return err
		}
		switch c.Name.Local {
		case "message":
			e.Message, _, err = p.leaf(c, nil, 0)
			message = true
		case "recovery":
			e.Recovery, _, err = p.leaf(c, nil, 0)
		case "available_actions":
			err = p.list(c, "action", func(c element) error {
				text, _, err := p.leaf(c, nil, 0)
				e.Actions = append(e.Actions, text)
				return err
			})
		case "details":
			err = p.list(c, "detail", func(c element) error {
				text, key, err := p.leaf(c, []string{"key"}, 1)
				if err == nil {
					e.Details = append(e.Details, Detail{key[0], text})
				}
				return err
			})
		case "retry_after":
			var s string
			if s, _, err = p.leaf(c, nil, 0); err == nil {
				var ok bool
				if e.RetryAfter, ok = parseRetry(s); !ok {
					err = p.errorf(c.at, "malformed retry_after %.40q", s)
				}
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !message {
		return nil, p.errorf(el.at, "<tool_error> has no <message>")
	}
	return e, nil
}

// parseRetry reads a retry_after exactly as String writes it, and no other
// spelling: the number is read loosely, and the text must be what writing
// it back gives.
func parseRetry(s string) (time.Duration, bool) {
	num, _, _ := strings.Cut(s, " ")
	whole, frac, _ := strings.Cut(num, ".")
	ms, err := strconv.ParseInt(whole+(frac + "000")[:3], 10, 64)
	d := time.Duration(ms) * time.Millisecond
	if err != nil || ms <= 0 || retryMillis(d) != ms || string(appendRetry(nil, ms)) != s {
		return 0, false
	}
	return d, true
}

var validationOrder = []string{"", "field", "more", "server_message", "contract_awareness", "recovery"}

// validation reads a validation_error after its start tag.
func (p *parser) validation(el element) (*ValidationError, error) {
	a, _, err := p.attrs(el, []string{"action"}, 1)
	if err != nil {
		return nil, err
	}
	v := &ValidationError{Action: a[0]}
	stage := 0
	err = p.children(el, func(c element) (err error) {
		if stage, err = p.order(c, "validation_error", stage, validationOrder, "field"); err != nil {
			return err
		}
		switch c.Name.Local {
		case "field":
			text, fieldName, err := p.leaf(c, []string{"name"}, 1)
			if err != nil {
				return err
			}
			v.Fields = append(v.Fields, Field{fieldName[0], text})
		case "more":
			v.More, _, err = p.leaf(c, nil, 0)
		case "server_message":
			v.ServerMessage, _, err = p.leaf(c, nil, 0)
		case "contract_awareness":
			v.Contract, err = p.contract(c)
		case "recovery":
			v.Recovery, _, err = p.leaf(c, nil, 0)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if stage != len(validationOrder)-1 {
		return nil, p.errorf(el.at, "<validation_error> has no <recovery>")
	}
	return v, nil
}

// contract reads a contract_awareness section after its start tag.
func (p *parser) contract(el element) (*Contract, error) {
	a, seen, err := p.attrs(el, []string{"omitted"}, 0)
	if err != nil {
		return nil, err
	}
	c := &Contract{}
	if seen != 0 { // omitted="" is malformed, not absent
		n, err := strconv.Atoi(a[0])
		if err != nil || n < 1 || strconv.Itoa(n) != a[0] {
			return nil, p.errorf(el.at, "malformed omitted count %.40q", a[0])
		}
		c.More = n
	}
	err = p.children(el, func(ch element) error {
		if name(ch.Name) != "change" {
			return p.errorf(ch.at, "unexpected element <%s> in <contract_awareness>", name(ch.Name))
		}
		text, a, err := p.leaf(ch, []string{"severity", "field", "before", "after"}, 2)
		if err == nil {
			c.Changes = append(c.Changes, ContractChange{Severity: a[0], Field: a[1], Description: text, Before: a[2], After: a[3]})
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}
