package jsondecode

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// kind is the JSON kind of a parsed value.
type kind uint8

const (
	kNull kind = iota
	kFalse
	kTrue
	kNumber
	kString
	kArray
	kObject
)

// node is one value of the parsed document. Nodes sit in one slice in
// document order: an array's elements follow it, an object's members follow
// it as key node then value subtree. Keeping the order is the point: Go maps
// would lose it, and issues are reported in the order the sender wrote them.
type node struct {
	start, end int // the value's bytes in the input
	next       int // index of the first node after this value's subtree
	n          int // elements of an array, members of an object
	kind       kind
	esc        bool // a string with an escape or a non-ASCII byte
}

// maxDepth is encoding/json's nesting limit; deeper input is a syntax error
// there, and the recursive parser must stop somewhere too.
const maxDepth = 10000

// parser reads one JSON text into nodes. It accepts exactly what
// encoding/json accepts (invalid UTF-8 inside strings included) and fails at
// the same byte, so that Decode and encoding/json agree on what is
// well-formed.
type parser struct {
	data  []byte
	pos   int
	nodes []node
	depth int
	// errAt is the offset of the first byte that cannot continue the text,
	// len(data) when the input ends early.
	errAt int
}

// parse reads data. It returns the offset where the first value ends (after
// trailing space), or ok false with p.errAt set.
func (p *parser) parse() (end int, ok bool) {
	if !p.value() {
		return 0, false
	}
	p.skipSpace()
	return p.pos, true
}

func (p *parser) fail(at int) bool {
	p.errAt = at
	return false
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value() bool {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return p.fail(len(p.data))
	}
	i := len(p.nodes)
	p.nodes = append(p.nodes, node{start: p.pos})
	var ok bool
	switch c := p.data[p.pos]; {
	case c == '{':
		p.nodes[i].kind = kObject
		ok = p.object(i)
	case c == '[':
		p.nodes[i].kind = kArray
		ok = p.array(i)
	case c == '"':
		p.nodes[i].kind = kString
		ok = p.str(i)
	case c == '-' || (c >= '0' && c <= '9'):
		p.nodes[i].kind = kNumber
		ok = p.number()
	case c == 't':
		p.nodes[i].kind = kTrue
		ok = p.literal("true")
	case c == 'f':
		p.nodes[i].kind = kFalse
		ok = p.literal("false")
	case c == 'n':
		p.nodes[i].kind = kNull
		ok = p.literal("null")
	default:
		return p.fail(p.pos)
	}
	if !ok {
		return false
	}
	p.nodes[i].end = p.pos
	p.nodes[i].next = len(p.nodes)
	return true
}

func (p *parser) object(i int) bool {
	if p.depth++; p.depth > maxDepth {
		return p.fail(p.pos)
	}
	p.pos++
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return true
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) {
			return p.fail(len(p.data))
		}
		if p.data[p.pos] != '"' {
			return p.fail(p.pos)
		}
		k := len(p.nodes)
		p.nodes = append(p.nodes, node{start: p.pos, kind: kString})
		if !p.str(k) {
			return false
		}
		p.nodes[k].end, p.nodes[k].next = p.pos, k+1
		p.skipSpace()
		if p.pos >= len(p.data) {
			return p.fail(len(p.data))
		}
		if p.data[p.pos] != ':' {
			return p.fail(p.pos)
		}
		p.pos++
		if !p.value() {
			return false
		}
		p.nodes[i].n++
		if more, ok := p.afterElement('}'); !more {
			return ok
		}
	}
}

// afterElement reads what follows a member of an object or an element of an
// array: a comma (more follows) or the closing byte (the container ends).
// ok is false when neither is there.
func (p *parser) afterElement(closing byte) (more, ok bool) {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return false, p.fail(len(p.data))
	}
	switch p.data[p.pos] {
	case ',':
		p.pos++
		return true, true
	case closing:
		p.pos++
		p.depth--
		return false, true
	}
	return false, p.fail(p.pos)
}

func (p *parser) array(i int) bool {
	if p.depth++; p.depth > maxDepth {
		return p.fail(p.pos)
	}
	p.pos++
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return true
	}
	for {
		if !p.value() {
			return false
		}
		p.nodes[i].n++
		if more, ok := p.afterElement(']'); !more {
			return ok
		}
	}
}

func (p *parser) str(i int) bool {
	d := p.data
	for j := p.pos + 1; ; {
		if j >= len(d) {
			return p.fail(len(d))
		}
		switch c := d[j]; {
		case c == '"':
			p.pos = j + 1
			return true
		case c == '\\':
			p.nodes[i].esc = true
			j++
			if j >= len(d) {
				return p.fail(len(d))
			}
			switch d[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				j++
				for range 4 {
					if j >= len(d) {
						return p.fail(len(d))
					}
					if !isHex(d[j]) {
						return p.fail(j)
					}
					j++
				}
			default:
				return p.fail(j)
			}
		case c < 0x20:
			return p.fail(j)
		case c >= utf8.RuneSelf:
			p.nodes[i].esc = true
			j++
		default:
			j++
		}
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'f')
}

func (p *parser) number() bool {
	d, j := p.data, p.pos
	if d[j] == '-' {
		j++
	}
	digits := func() {
		for j < len(d) && d[j] >= '0' && d[j] <= '9' {
			j++
		}
	}
	switch {
	case j >= len(d):
		return p.fail(len(d))
	case d[j] == '0':
		j++
	case d[j] >= '1' && d[j] <= '9':
		digits()
	default:
		return p.fail(j)
	}
	if j < len(d) && d[j] == '.' {
		j++
		if j >= len(d) {
			return p.fail(len(d))
		}
		if d[j] < '0' || d[j] > '9' {
			return p.fail(j)
		}
		digits()
	}
	if j < len(d) && (d[j] == 'e' || d[j] == 'E') {
		j++
		if j < len(d) && (d[j] == '+' || d[j] == '-') {
			j++
		}
		if j >= len(d) {
			return p.fail(len(d))
		}
		if d[j] < '0' || d[j] > '9' {
			return p.fail(j)
		}
		digits()
	}
	p.pos = j
	return true
}

func (p *parser) literal(lit string) bool {
	for k := 0; k < len(lit); k++ {
		if p.pos+k >= len(p.data) {
			return p.fail(len(p.data))
		}
		if p.data[p.pos+k] != lit[k] {
			return p.fail(p.pos + k)
		}
	}
	p.pos += len(lit)
	return true
}

// document is a parsed input: its bytes and nodes.
type document struct {
	data  []byte
	nodes []node
}

// raw returns the bytes of node i.
func (d *document) raw(i int) []byte {
	return d.data[d.nodes[i].start:d.nodes[i].end]
}

// text returns the content of string node i, unquoted the way encoding/json
// unquotes (escapes decoded, invalid UTF-8 replaced by U+FFFD). Plain
// strings are a slice of the input, which is why callers must copy before
// keeping it.
func (d *document) text(i int) []byte {
	n := &d.nodes[i]
	content := d.data[n.start+1 : n.end-1]
	if !n.esc || (bytes.IndexByte(content, '\\') < 0 && utf8.Valid(content)) {
		return content
	}
	var s string
	if err := json.Unmarshal(d.raw(i), &s); err != nil {
		return content // unreachable: the parser accepted the literal
	}
	return []byte(s)
}

// str is text as a string.
func (d *document) str(i int) string {
	n := &d.nodes[i]
	content := d.data[n.start+1 : n.end-1]
	if !n.esc || (bytes.IndexByte(content, '\\') < 0 && utf8.Valid(content)) {
		return string(content)
	}
	var s string
	if err := json.Unmarshal(d.raw(i), &s); err != nil {
		return string(content)
	}
	return s
}

// value builds the Go value of node i as encoding/json's UseNumber
// decoding into any would: the sent value an issue carries as Input.
// Numbers stay json.Number, so the model is shown its own digits.
func (d *document) value(i int) any {
	n := &d.nodes[i]
	switch n.kind {
	case kFalse:
		return false
	case kTrue:
		return true
	case kNumber:
		return json.Number(d.raw(i))
	case kString:
		return d.str(i)
	case kArray:
		out := make([]any, 0, n.n)
		for c := i + 1; c < n.next; c = d.nodes[c].next {
			out = append(out, d.value(c))
		}
		return out
	case kObject:
		out := make(map[string]any, n.n)
		for c := i + 1; c < n.next; c = d.nodes[c+1].next {
			out[d.str(c)] = d.value(c + 1)
		}
		return out
	}
	return nil
}

// excerptLen is how many bytes around a syntax error are kept: enough to
// recognise the place, too few to echo a whole document.
const excerptLen = 20

// excerpt returns up to excerptLen bytes of data around offset at, cut on
// rune boundaries; near either end of the input the window slides inward
// rather than shrinking.
func excerpt(data []byte, at int) string {
	start := min(at-excerptLen/2, len(data)-excerptLen)
	start = max(start, 0)
	end := min(start+excerptLen, len(data))
	for start < end && start > 0 && !utf8.RuneStart(data[start]) {
		start++
	}
	for end > start && end < len(data) && !utf8.RuneStart(data[end]) {
		end--
	}
	return string(data[start:end])
}
