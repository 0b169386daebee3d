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
	tok, raw, at, err := p.next()
	if err != nil {
		return Document{}, err
	}
	n, err := p.read(element{tok.(xml.StartElement), raw, at})
	if err != nil {
		return Document{}, err
	}
	if n.name == "tool_error" {
		e, err := p.toolError(n)
		if err != nil {
			return Document{}, err
		}
		return Document{ToolError: e}, nil
	}
	v, err := p.validation(n)
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

// A shape is what an element of the envelopes may hold: its attributes (the
// first required of them must be present) and either text or child
// elements, in the order of kids, where only repeat may repeat.
type shape struct {
	attrs    []string
	required int
	kids     []string // nil for an element of text
	repeat   string
}

var shapes = map[string]shape{
	"tool_error":         {attrs: []string{"code", "severity"}, required: 2, kids: []string{"message", "recovery", "available_actions", "details", "retry_after"}},
	"available_actions":  {kids: []string{"action"}, repeat: "action"},
	"details":            {kids: []string{"detail"}, repeat: "detail"},
	"detail":             {attrs: []string{"key"}, required: 1},
	"validation_error":   {attrs: []string{"action"}, required: 1, kids: []string{"field", "more", "server_message", "contract_awareness", "recovery"}, repeat: "field"},
	"field":              {attrs: []string{"name"}, required: 1},
	"contract_awareness": {attrs: []string{"omitted"}, kids: []string{"change"}, repeat: "change"},
	"change":             {attrs: []string{"severity", "field", "before", "after"}, required: 2},
	"message":            {}, "recovery": {}, "action": {}, "retry_after": {}, "more": {}, "server_message": {},
}

// parser reads one envelope with an encoding/xml decoder over src[base:].
// It reads raw tokens, whose names are as written (a namespace is not ours
// to resolve), and so matches end tags itself.
type parser struct {
	d    *xml.Decoder
	src  string // the whole text given to Parse
	base int    // the offset in src of d's input
}

// element is a start tag, with what encoding/xml does not check for us.
type element struct {
	xml.StartElement
	raw string // the tag as written
	at  int    // its offset in src
}

// node is an element read whole and checked against its shape.
type node struct {
	name string
	attr []string // values in the order of its shape's attrs
	seen uint     // bit i set when attrs[i] was present
	text string
	kids []node
	at   int
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
	if err == io.EOF {
		return nil, "", at, p.syntaxf(end, "unexpected EOF")
	}
	if se, ok := errors.AsType[*xml.SyntaxError](err); ok {
		// The decoder counts lines from the envelope, not from src.
		return nil, "", at, p.syntaxf(end, "%s", se.Msg)
	} else if err != nil {
		return nil, "", at, fmt.Errorf("%w: %w", errNotEnvelope, err)
	}
	return tok, p.src[at:end], at, nil
}

// name is n as written.
func name(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// read reads the element el, whose start tag was just read, up to and
// including its end tag.
func (p *parser) read(el element) (node, error) {
	n := node{name: name(el.Name), at: el.at}
	sh := shapes[n.name]
	var err error
	if n.attr, n.seen, err = p.attrs(el, sh.attrs, sh.required); err != nil {
		return n, err
	}
	var text []byte
	stage := -1 // the index in sh.kids of the last child
	for {
		tok, raw, at, err := p.next()
		if err != nil {
			return n, err
		}
		switch tok := tok.(type) {
		case xml.CharData:
			cdata := strings.HasPrefix(raw, "<![CDATA[")
			switch {
			case sh.kids == nil && !cdata:
				if err := p.surrogateRef(raw, at); err != nil {
					return n, err
				}
				fallthrough
			case sh.kids == nil:
				text = append(text, tok...)
			case cdata:
				return n, p.errorf(at, "unexpected CDATA section between elements of <%s>", n.name)
			case strings.Trim(raw, " \t\r\n") != "": // raw: &#32; is not whitespace between elements
				return n, p.errorf(at, "unexpected text %.40q between elements of <%s>", raw, n.name)
			}
		case xml.EndElement:
			if got := name(tok.Name); got != n.name {
				return n, p.syntaxf(at, "element <%s> closed by </%s>", n.name, got)
			}
			n.text = string(text)
			return n, nil
		case xml.StartElement:
			kid := name(tok.Name)
			i := slices.Index(sh.kids, kid)
			switch {
			case sh.kids == nil:
				return n, p.errorf(at, "unexpected <%s> inside <%s>", kid, n.name)
			case i < 0:
				return n, p.errorf(at, "unexpected element <%s> in <%s>", kid, n.name)
			case i < stage || i == stage && kid != sh.repeat:
				return n, p.errorf(at, "<%s> repeated or out of order in <%s>", kid, n.name)
			}
			stage = i
			k, err := p.read(element{tok, raw, at})
			if err != nil {
				return n, err
			}
			n.kids = append(n.kids, k)
		case xml.Comment:
			return n, p.errorf(at, "unexpected comment in <%s>", n.name)
		case xml.ProcInst:
			return n, p.errorf(at, "unexpected processing instruction in <%s>", n.name)
		case xml.Directive:
			return n, p.errorf(at, "unexpected declaration in <%s>", n.name)
		}
	}
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

// toolError returns the tool_error that n holds.
func (p *parser) toolError(n node) (*ToolError, error) {
	e := &ToolError{Code: Code(n.attr[0]), Severity: Severity(n.attr[1])}
	if e.Code == "" {
		return nil, p.errorf(n.at, "empty code")
	}
	if e.Severity.norm() != e.Severity {
		return nil, p.errorf(n.at, "unknown severity %q", e.Severity)
	}
	if len(n.kids) == 0 || n.kids[0].name != "message" {
		return nil, p.errorf(n.at, "<tool_error> has no <message>")
	}
	for _, k := range n.kids {
		switch k.name {
		case "message":
			e.Message = k.text
		case "recovery":
			e.Recovery = k.text
		case "available_actions":
			for _, a := range k.kids {
				e.Actions = append(e.Actions, a.text)
			}
		case "details":
			for _, d := range k.kids {
				e.Details = append(e.Details, Detail{d.attr[0], d.text})
			}
		case "retry_after":
			var ok bool
			if e.RetryAfter, ok = parseRetry(k.text); !ok {
				return nil, p.errorf(k.at, "malformed retry_after %.40q", k.text)
			}
		}
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

// validation returns the validation_error that n holds.
func (p *parser) validation(n node) (*ValidationError, error) {
	v := &ValidationError{Action: n.attr[0]}
	if len(n.kids) == 0 || n.kids[len(n.kids)-1].name != "recovery" {
		return nil, p.errorf(n.at, "<validation_error> has no <recovery>")
	}
	for _, k := range n.kids {
		switch k.name {
		case "field":
			v.Fields = append(v.Fields, Field{k.attr[0], k.text})
		case "more":
			v.More = k.text
		case "server_message":
			v.ServerMessage = k.text
		case "recovery":
			v.Recovery = k.text
		case "contract_awareness":
			v.Contract = &Contract{}
			if k.seen != 0 { // omitted="" is malformed, not absent
				m, err := strconv.Atoi(k.attr[0])
				if err != nil || m < 1 || strconv.Itoa(m) != k.attr[0] {
					return nil, p.errorf(k.at, "malformed omitted count %.40q", k.attr[0])
				}
				v.Contract.More = m
			}
			for _, c := range k.kids {
				v.Contract.Changes = append(v.Contract.Changes, ContractChange{Severity: c.attr[0], Field: c.attr[1], Description: c.text, Before: c.attr[2], After: c.attr[3]})
			}
		}
	}
	return v, nil
}
