package formatter

import (
	"unicode/utf8"

	"github.com/selfheal/selfheal/issues"
)

// appendName appends the field name of path p, as written in a line's name
// attribute: p's String form, bounded whatever the model sent. A key longer
// than the value budget is cut there, with its real size stated
// (labels["aaaa… (5000 characters)"]), and a name longer than maxName bytes
// keeps its first and last elements around an ellipsis: the end names the
// field, the start where it sits.
func (s *state) appendName(dst []byte, p issues.Path) []byte {
	start := len(dst)
	if s.longKey(p) < 0 {
		dst = p.AppendTo(dst)
	} else {
		s.cut = append(s.cut[:0], p...)
		for i := s.longKey(p); i < len(p); i++ {
			if k, ok := p[i].(string); ok && len(k) > s.f.maxRunes {
				s.cut[i] = s.cutKey(k)
			}
		}
		dst = s.cut.AppendTo(dst)
		clear(s.cut)
	}
	if len(dst)-start <= s.f.maxName() {
		return dst
	}
	return cutName(dst, start, s.f.maxName())
}

// cutName shortens the name in dst[start:] to about limit bytes by leaving
// out whole elements from its middle: those that fit in a third of limit
// are kept from the start (the first always), those that fit in the rest
// from the end (the last always), so that no key or escape is split.
func cutName(dst []byte, start, limit int) []byte {
	name := dst[start:]
	// Elements start at a '.' or '[' outside a quoted key.
	var bounds []int
	quoted := false
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case quoted && c == '\\':
			i++ // the escaped byte cannot end the key
		case c == '"':
			quoted = !quoted
		case !quoted && (c == '.' || c == '[') && i > 0:
			bounds = append(bounds, i)
		}
	}
	if len(bounds) < 2 {
		return dst
	}
	head := bounds[0]
	for _, b := range bounds[1:] {
		if b > limit/3 {
			break
		}
		head = b
	}
	tail := bounds[len(bounds)-1]
	for i := len(bounds) - 2; i >= 0 && bounds[i] > head; i-- {
		if len(name)-bounds[i] > limit-head {
			break
		}
		tail = bounds[i]
	}
	if tail <= head {
		return dst
	}
	n := copy(name[head+len("…"):], name[tail:])
	copy(name[head:], "…")
	return dst[:start+head+len("…")+n]
}

// longKey returns the index of the first key of p longer than the value
// budget, or -1.
func (s *state) longKey(p issues.Path) int {
	for i, el := range p {
		if k, ok := el.(string); ok && len(k) > s.f.maxRunes && utf8.RuneCountInString(k[:min(len(k), 4*s.f.maxRunes+4)]) > s.f.maxRunes {
			return i
		}
	}
	return -1
}

// cutKey returns key cut at the value budget, rune-safely, with an
// ellipsis and its real size ("aaaa… (5000 characters)"). The cut is taken
// on the raw key, which the path's quoting escapes.
func (s *state) cutKey(key string) string {
	end, runes := 0, 0
	for end < len(key) && runes < s.f.maxRunes {
		_, size := utf8.DecodeRuneInString(key[end:])
		end += size
		runes++
	}
	text := append([]byte(key[:end]), "…"...)
	return string(s.appendSized(nil, text, key, s.m("value.sized")))
}

// maxName is the most bytes of a field name before the escaping of XML,
// unless its first and last elements alone take more: room for a cut key,
// each of whose characters may take six bytes (\ufffd).
func (f *Formatter) maxName() int { return 8 * f.maxRunes }
