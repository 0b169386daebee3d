package envelope

import (
	"encoding/xml"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
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
// newline parses. The envelope itself is read strictly, by a reader of
// exactly these two shapes: unknown, repeated or misordered elements, unknown
// attributes, stray text, comments, processing instructions, namespaces, an
// unknown severity or a malformed retry_after are errors wrapping
// [errNotEnvelope], never guesses. Element text is returned exactly, leading
// and trailing spaces included. Errors name the line and the byte offset,
// counted from the start of text. Text that is not well-formed XML (a
// mismatched end tag, an unknown entity, a character XML 1.0 forbids, raw
// or as a reference, invalid UTF-8, a truncated envelope) gives an
// *xml.SyntaxError, wrapped too.
//
// Besides the renderers' own spelling, Parse accepts what XML defines to
// mean the same: the five predefined entities and numeric character
// references (&#9;, &#x1F642;) anywhere in text and attribute values,
// CDATA sections inside element text, single-quoted attribute values,
// whitespace around '=' and before the end of a tag, an empty element
// written <name/>, and any whitespace between elements. As XML specifies,
// a raw \r or \r\n in text reads as \n, and a raw tab, newline or \r\n in an
// attribute value reads as one space (the renderers escape all of them).
// Returned strings may share memory with text.
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
	r := reader{s: text, pos: start + 1}
	if strings.HasPrefix(text[start+1:], "tool_error") {
		r.pos += len("tool_error")
		e, err := r.toolError()
		if err != nil {
			return Document{}, err
		}
		return Document{ToolError: e}, nil
	}
	r.pos += len("validation_error")
	v, err := r.validation()
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

// reader is a cursor over the text given to Parse. Its methods read one
// piece of an envelope at r.pos and leave r.pos after it; offsets and lines
// in errors count from the start of the text.
type reader struct {
	s   string
	pos int
}

// line is the 1-based line number of offset off.
func (r *reader) line(off int) int { return 1 + strings.Count(r.s[:off], "\n") }

// errorf reports text that is well-formed XML but not our shape, at off.
func (r *reader) errorf(off int, format string, args ...any) error {
	return fmt.Errorf("%w: line %d, offset %d: %s", errNotEnvelope, r.line(off), off, fmt.Sprintf(format, args...))
}

// syntaxf reports text that is not well-formed XML, at off.
func (r *reader) syntaxf(off int, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...) + " at offset " + strconv.Itoa(off)
	return fmt.Errorf("%w: %w", errNotEnvelope, &xml.SyntaxError{Msg: msg, Line: r.line(off)})
}

// eof reports the end of the text inside the envelope.
func (r *reader) eof() error { return r.syntaxf(len(r.s), "unexpected EOF") }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (r *reader) skipSpace() {
	for r.pos < len(r.s) && isSpace(r.s[r.pos]) {
		r.pos++
	}
}

// isNameByte reports whether c may be part of an element or attribute name:
// what XML allows in ASCII, and any byte of a multi-byte character.
func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '-' || c == '.' || c == ':' || c >= 0x80
}

// name reads an element or attribute name at r.pos, possibly empty.
func (r *reader) name() string {
	start := r.pos
	for r.pos < len(r.s) && isNameByte(r.s[r.pos]) {
		r.pos++
	}
	return r.s[start:r.pos]
}

// attrs reads the rest of the start tag of elem, after its name: its
// attributes, whose values it stores in vals in the order of names, up to
// and including '>' or "/>". The first required names must be present, and
// any other attribute is an error. It reports whether the tag was "/>", and
// which names were present (bit i for names[i]).
func (r *reader) attrs(elem string, names []string, vals []string, required int) (empty bool, seen uint8, err error) {
	for {
		spaced := r.pos < len(r.s) && isSpace(r.s[r.pos])
		r.skipSpace()
		if r.pos >= len(r.s) {
			return false, 0, r.eof()
		}
		switch c := r.s[r.pos]; {
		case c == '>':
			r.pos++
		case c == '/' && strings.HasPrefix(r.s[r.pos:], "/>"):
			r.pos += 2
			empty = true
		case !spaced || !isNameByte(c):
			return false, 0, r.syntaxf(r.pos, "unexpected %q in the start tag of <%s>", c, elem)
		default:
			at := r.pos
			name := r.name()
			value, err := r.attrValue(elem, name)
			if err != nil {
				return false, 0, err
			}
			i := slices.Index(names, name)
			if i < 0 || seen&(1<<i) != 0 {
				if name == "xmlns" || strings.HasPrefix(name, "xmlns:") {
					return false, 0, r.errorf(at, "unexpected attribute %q on <%s>: namespaced envelopes are not ours", name, elem)
				}
				return false, 0, r.errorf(at, "unexpected attribute %q on <%s>", name, elem)
			}
			vals[i], seen = value, seen|1<<i
			continue
		}
		for i := range required {
			if seen&(1<<i) == 0 {
				return false, 0, r.errorf(r.pos, "<%s> has no %s attribute", elem, names[i])
			}
		}
		return empty, seen, nil
	}
}

// attrValue reads `S? = S? "value"` (or 'value') after the attribute name
// and returns the value decoded.
func (r *reader) attrValue(elem, name string) (string, error) {
	r.skipSpace()
	if r.pos >= len(r.s) {
		return "", r.eof()
	}
	if r.s[r.pos] != '=' {
		return "", r.syntaxf(r.pos, "attribute %s of <%s> has no value", name, elem)
	}
	r.pos++
	r.skipSpace()
	if r.pos >= len(r.s) {
		return "", r.eof()
	}
	quote := r.s[r.pos]
	if quote != '"' && quote != '\'' {
		return "", r.syntaxf(r.pos, "unquoted value of attribute %s of <%s>", name, elem)
	}
	r.pos++
	return r.chars(quote)
}

// Byte classes of chars: a byte with the bit of the current mode set needs a
// closer look; any other byte is copied as it is.
const (
	inText = 1 << iota // element text, up to '<'
	inAttr             // an attribute value, up to its quote
)

var special = func() (t [256]uint8) {
	for c := range 0x20 {
		t[c] = inText | inAttr // forbidden, or whitespace an attribute normalizes
	}
	t['\t'], t['\n'] = inAttr, inAttr // raw in text
	for _, c := range `&<` {
		t[c] = inText | inAttr
	}
	t['>'] = inText // only "]]>" is forbidden in text
	t['"'], t['\''] = inAttr, inAttr
	for c := 0x80; c < 0x100; c++ {
		t[c] = inText | inAttr // check the UTF-8 sequence
	}
	return t
}()

// chars reads character data at r.pos up to end: '<' for element text (the
// '<' is left for the caller), or the quote of an attribute value (consumed).
// It decodes entities, applies XML's line-end and attribute-value
// normalization, and refuses characters XML forbids. When nothing needs
// decoding the result is a substring of the text, without allocating.
func (r *reader) chars(end byte) (string, error) {
	mode := uint8(inText)
	if end != '<' {
		mode = inAttr
	}
	s, start := r.s, r.pos
	var b strings.Builder // the decoded value, once it differs from s[start:i]
	last := start         // start of the run not yet copied to b
	i := start
scan:
	for ; i < len(s); i++ {
		c := s[i]
		if special[c]&mode == 0 {
			continue
		}
		var rep string // what replaces s[i:i+n]
		n := 1
		switch {
		case c == end:
			break scan
		case c == '<': // in an attribute value
			return "", r.syntaxf(i, "unescaped < inside attribute value")
		case c == '"' || c == '\'': // the other quote
			continue
		case c == '>':
			if i-start >= 2 && s[i-2] == ']' && s[i-1] == ']' {
				return "", r.syntaxf(i-2, "unescaped ]]> not in CDATA section")
			}
			continue
		case c == '&':
			var err error
			if rep, n, err = r.entity(i); err != nil {
				return "", err
			}
		case c == '\r':
			rep = "\n" // \r\n and a lone \r are one line end
			if i+1 < len(s) && s[i+1] == '\n' {
				n = 2
			}
			if mode == inAttr {
				rep = " "
			}
		case c == '\t' || c == '\n': // in an attribute value
			rep = " "
		case c < 0x20:
			return "", r.syntaxf(i, "illegal character code %U", rune(c))
		default:
			ch, size := utf8.DecodeRuneInString(s[i:])
			if ch == utf8.RuneError && size == 1 {
				return "", r.syntaxf(i, "invalid UTF-8")
			}
			if ch == 0xFFFE || ch == 0xFFFF {
				return "", r.syntaxf(i, "illegal character code %U", ch)
			}
			i += size - 1
			continue
		}
		if last == start {
			b.Grow(i - start + len(rep) + 16)
		}
		b.WriteString(s[last:i])
		b.WriteString(rep)
		i += n - 1
		last = i + 1
	}
	if i == len(s) {
		return "", r.eof()
	}
	r.pos = i
	if mode == inAttr {
		r.pos++ // the quote
	}
	if last == start {
		return s[start:i], nil
	}
	b.WriteString(s[last:i])
	return b.String(), nil
}

// entity reads the entity or character reference at s[i] == '&' and returns
// what it stands for and its length.
func (r *reader) entity(i int) (string, int, error) {
	s := r.s
	end := i + 1
	for end < len(s) && (isNameByte(s[end]) || s[end] == '#') {
		end++
	}
	if end == len(s) {
		return "", 0, r.eof()
	}
	ref := s[i+1 : end]
	if s[end] != ';' {
		return "", 0, r.syntaxf(i, "invalid character entity &%.12s (no semicolon)", ref)
	}
	n := end + 1 - i
	switch ref {
	case "lt":
		return "<", n, nil
	case "gt":
		return ">", n, nil
	case "amp":
		return "&", n, nil
	case "quot":
		return `"`, n, nil
	case "apos":
		return "'", n, nil
	}
	if num, ok := strings.CutPrefix(ref, "#"); ok {
		base := 10
		if hex, ok := strings.CutPrefix(num, "x"); ok {
			num, base = hex, 16
		}
		// ParseUint takes no sign and, in an explicit base, no underscore.
		if v, err := strconv.ParseUint(num, base, 32); err == nil && isXMLChar(rune(v)) {
			return string(rune(v)), n, nil
		}
	}
	return "", 0, r.syntaxf(i, "invalid character entity &%.12s;", ref)
}

// isXMLChar reports whether ch is a Char of XML 1.0.
func isXMLChar(ch rune) bool {
	return ch == '\t' || ch == '\n' || ch == '\r' ||
		ch >= 0x20 && ch <= 0xD7FF || ch >= 0xE000 && ch <= 0xFFFD || ch >= 0x10000 && ch <= 0x10FFFF
}

// child reads up to the next child element of parent and returns its name
// and the offset of its '<', r.pos after the name, or "" after parent's end
// tag. Whitespace between elements is skipped; anything else but a start or
// end tag is an error.
func (r *reader) child(parent string) (name string, at int, err error) {
	r.skipSpace()
	s := r.s
	at = r.pos
	switch {
	case at >= len(s):
		return "", at, r.eof()
	case s[at] != '<':
		end := strings.IndexByte(s[at:], '<')
		if end < 0 {
			end = len(s) - at
		}
		return "", at, r.errorf(at, "unexpected text %.40q between elements of <%s>", s[at:at+end], parent)
	case strings.HasPrefix(s[at:], "</"):
		return "", at, r.endTag(parent)
	}
	if err := r.markup(at, parent); err != nil {
		return "", at, err
	}
	r.pos++
	if name = r.name(); name == "" {
		return "", at, r.syntaxf(at, "expected element name after <")
	}
	return name, at, nil
}

// markup refuses the markup at s[at] == '<' that is not an element: comments,
// CDATA between elements, processing instructions and declarations.
func (r *reader) markup(at int, parent string) error {
	rest := r.s[at:]
	if len(rest) < 2 || rest[1] != '!' && rest[1] != '?' {
		return nil // an element
	}
	switch {
	case strings.HasPrefix(rest, "<!--"):
		return r.errorf(at, "unexpected comment in <%s>", parent)
	case strings.HasPrefix(rest, "<![CDATA["):
		return r.errorf(at, "unexpected CDATA section between elements of <%s>", parent)
	case strings.HasPrefix(rest, "<!"):
		return r.errorf(at, "unexpected declaration in <%s>", parent)
	case strings.HasPrefix(rest, "<?"):
		return r.errorf(at, "unexpected processing instruction in <%s>", parent)
	}
	return nil
}

// endTag reads `</name S? >` at r.pos.
func (r *reader) endTag(name string) error {
	at := r.pos
	r.pos += 2
	got := r.name()
	r.skipSpace()
	if r.pos >= len(r.s) {
		return r.eof()
	}
	if got != name || r.s[r.pos] != '>' {
		return r.syntaxf(at, "element <%s> closed by </%.40s>", name, r.s[at+2:r.pos])
	}
	r.pos++
	return nil
}

// text reads the content of the leaf element name, after its start tag:
// character data and CDATA sections, up to and including its end tag.
func (r *reader) text(name string) (string, error) {
	value, err := r.chars('<')
	if err != nil {
		return "", err
	}
	var joined strings.Builder // the pieces, once a CDATA section splits the text
	split := false
	for {
		at := r.pos // at '<'
		switch rest := r.s[at:]; {
		case strings.HasPrefix(rest, "</"):
			if split {
				value = joined.String()
			}
			return value, r.endTag(name)
		case strings.HasPrefix(rest, "<![CDATA["):
			// Rare: the renderers escape instead.
			end := strings.Index(rest, "]]>")
			if end < 0 {
				return "", r.eof()
			}
			cdata, err := r.cdata(at+len("<![CDATA["), at+end)
			if err != nil {
				return "", err
			}
			r.pos = at + end + len("]]>")
			more, err := r.chars('<')
			if err != nil {
				return "", err
			}
			if !split {
				joined.WriteString(value)
				split = true
			}
			joined.WriteString(cdata)
			joined.WriteString(more)
		default:
			if err := r.markup(at, name); err != nil {
				return "", err
			}
			r.pos++
			return "", r.errorf(at, "unexpected <%s> inside <%s>", r.name(), name)
		}
	}
}

// cdata returns the content of a CDATA section, s[start:end]: taken as it
// is but for line ends, once its characters are checked.
func (r *reader) cdata(start, end int) (string, error) {
	s := r.s[start:end]
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r':
			return "", r.syntaxf(start+i, "illegal character code %U", rune(c))
		case c >= 0x80:
			ch, size := utf8.DecodeRuneInString(s[i:])
			if ch == utf8.RuneError && size == 1 {
				return "", r.syntaxf(start+i, "invalid UTF-8")
			}
			if ch == 0xFFFE || ch == 0xFFFF {
				return "", r.syntaxf(start+i, "illegal character code %U", ch)
			}
			i += size - 1
		}
	}
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	}
	return s, nil
}

// leaf reads the element name, after its name in the start tag: its
// attributes (as attrs) and its text.
func (r *reader) leaf(name string, names, vals []string, required int) (string, error) {
	empty, _, err := r.attrs(name, names, vals, required)
	if err != nil || empty {
		return "", err
	}
	return r.text(name)
}

// list reads the list element name, which has no attributes, after its name
// in the start tag: item elements, each read by item, then its end tag.
func (r *reader) list(name, itemName string, item func() error) error {
	empty, _, err := r.attrs(name, nil, nil, 0)
	if err != nil || empty {
		return err
	}
	for {
		c, at, err := r.child(name)
		if err != nil || c == "" {
			return err
		}
		if c != itemName {
			return r.errorf(at, "unexpected element <%s> in <%s>", c, name)
		}
		if err := item(); err != nil {
			return err
		}
	}
}

// order checks that child name comes after the previous one in want (only
// the repeatable name may repeat) and returns its position.
func (r *reader) order(at int, parent, name string, prev int, want []string, repeatable string) (int, error) {
	for i, w := range want {
		if w != name {
			continue
		}
		if i < prev || i == prev && name != repeatable {
			return 0, r.errorf(at, "<%s> repeated or out of order in <%s>", name, parent)
		}
		return i, nil
	}
	return 0, r.errorf(at, "unexpected element <%s> in <%s>", name, parent)
}

var (
	toolErrorAttrs = []string{"code", "severity"}
	toolErrorOrder = []string{"", "message", "recovery", "available_actions", "details", "retry_after"}
	detailAttrs    = []string{"key"}
)

// toolError reads a tool_error after the name of its start tag.
func (r *reader) toolError() (*ToolError, error) {
	at := r.pos
	var a [2]string
	empty, _, err := r.attrs("tool_error", toolErrorAttrs, a[:], 2)
	if err != nil {
		return nil, err
	}
	e := &ToolError{Code: Code(a[0]), Severity: Severity(a[1])}
	if e.Code == "" {
		return nil, r.errorf(at, "empty code")
	}
	if e.Severity.norm() != e.Severity {
		return nil, r.errorf(at, "unknown severity %q", e.Severity)
	}
	stage, message := 0, false
	for !empty {
		name, at, err := r.child("tool_error")
		if err != nil {
			return nil, err
		}
		if name == "" {
			break
		}
		if stage, err = r.order(at, "tool_error", name, stage, toolErrorOrder, ""); err != nil {
			return nil, err
		}
		switch name {
		case "message":
			e.Message, err = r.leaf(name, nil, nil, 0)
			message = true
		case "recovery":
			e.Recovery, err = r.leaf(name, nil, nil, 0)
		case "available_actions":
			err = r.list(name, "action", func() error {
				text, err := r.leaf("action", nil, nil, 0)
				e.Actions = append(e.Actions, text)
				return err
			})
		case "details":
			err = r.list(name, "detail", func() error {
				var key [1]string
				text, err := r.leaf("detail", detailAttrs, key[:], 1)
				e.Details = append(e.Details, Detail{key[0], text})
				return err
			})
		case "retry_after":
			at := r.pos
			var s string
			if s, err = r.leaf(name, nil, nil, 0); err == nil {
				e.RetryAfter, err = r.retry(at, s)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if !message {
		return nil, r.errorf(r.pos, "<tool_error> has no <message>")
	}
	return e, nil
}

// retry reads "1 second" or "N seconds", exactly as String writes them: N
// in whole seconds, or below 10 with one to three decimals ("0.1", "2.25").
func (r *reader) retry(at int, s string) (time.Duration, error) {
	num, unit, _ := strings.Cut(s, " ")
	ms, ok := retryNumber(num)
	want := "seconds"
	if num == "1" {
		want = "second"
	}
	if !ok || unit != want {
		return 0, r.errorf(at, "malformed retry_after %.40q", s)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// retryNumber reads the number of seconds of a retry_after in milliseconds,
// and whether it is one that String writes: no sign, no leading zero, no
// exponent, a fraction only below fineRetryAfter and without a trailing
// zero, above zero and at most the cap.
func retryNumber(num string) (ms int64, ok bool) {
	whole, frac, dotted := strings.Cut(num, ".")
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != whole {
		return 0, false
	}
	if dotted {
		if n >= int64(fineRetryAfter/time.Second) || len(frac) < 1 || len(frac) > 3 || frac[len(frac)-1] == '0' {
			return 0, false
		}
		ms = n * 1000
		for i, scale := 0, int64(100); i < len(frac); i, scale = i+1, scale/10 {
			if frac[i] < '0' || frac[i] > '9' {
				return 0, false
			}
			ms += int64(frac[i]-'0') * scale
		}
		return ms, true
	}
	if n < 1 || n > int64(maxRetryAfter/time.Second) {
		return 0, false
	}
	return n * 1000, true
}

var (
	validationAttrs = []string{"action"}
	validationOrder = []string{"", "field", "more", "server_message", "contract_awareness", "recovery"}
	fieldAttrs      = []string{"name"}
	contractAttrs   = []string{"omitted"}
	changeAttrs     = []string{"severity", "field", "before", "after"}
)

// validation reads a validation_error after the name of its start tag.
func (r *reader) validation() (*ValidationError, error) {
	var a [1]string
	empty, _, err := r.attrs("validation_error", validationAttrs, a[:], 1)
	if err != nil {
		return nil, err
	}
	v := &ValidationError{Action: a[0]}
	stage := 0
	for !empty {
		name, at, err := r.child("validation_error")
		if err != nil {
			return nil, err
		}
		if name == "" {
			break
		}
		if stage, err = r.order(at, "validation_error", name, stage, validationOrder, "field"); err != nil {
			return nil, err
		}
		switch name {
		case "field":
			var fieldName [1]string
			var text string
			if text, err = r.leaf(name, fieldAttrs, fieldName[:], 1); err == nil {
				if v.Fields == nil {
					v.Fields = make([]Field, 0, 8)
				}
				v.Fields = append(v.Fields, Field{fieldName[0], text})
			}
		case "more":
			v.More, err = r.leaf(name, nil, nil, 0)
		case "server_message":
			v.ServerMessage, err = r.leaf(name, nil, nil, 0)
		case "contract_awareness":
			v.Contract, err = r.contract()
		case "recovery":
			v.Recovery, err = r.leaf(name, nil, nil, 0)
		}
		if err != nil {
			return nil, err
		}
	}
	if stage != len(validationOrder)-1 {
		return nil, r.errorf(r.pos, "<validation_error> has no <recovery>")
	}
	return v, nil
}

// contract reads a contract_awareness section after the name of its start
// tag.
func (r *reader) contract() (*Contract, error) {
	const name = "contract_awareness"
	at := r.pos
	var a [1]string
	empty, seen, err := r.attrs(name, contractAttrs, a[:], 0)
	if err != nil {
		return nil, err
	}
	c := &Contract{}
	if seen != 0 { // omitted="" is malformed, not absent
		n, err := strconv.Atoi(a[0])
		if err != nil || n < 1 || strconv.Itoa(n) != a[0] {
			return nil, r.errorf(at, "malformed omitted count %.40q", a[0])
		}
		c.More = n
	}
	for !empty {
		child, at, err := r.child(name)
		if err != nil {
			return nil, err
		}
		if child == "" {
			break
		}
		if child != "change" {
			return nil, r.errorf(at, "unexpected element <%s> in <%s>", child, name)
		}
		var a [4]string
		text, err := r.leaf(child, changeAttrs, a[:], 2)
		if err != nil {
			return nil, err
		}
		c.Changes = append(c.Changes, ContractChange{Severity: a[0], Field: a[1], Description: text, Before: a[2], After: a[3]})
	}
	return c, nil
}
