package xmlenc

import (
	"unicode/utf8"
	"unsafe"
)

// AppendText appends s to dst escaped as XML element text and returns the
// extended buffer. It is the building block for callers that write the text
// of a field in pieces: consecutive calls on the same dst give the same bytes
// as one call on the concatenation, because the "]]>" rule looks at what dst
// already ends with.
//
// The escaping is the envelope package's (see its documentation): & and < are
// escaped, > only where it would close "]]>", \r becomes &#13;, other C0
// controls are shown as \u00XX, and invalid UTF-8 bytes, U+FFFE and U+FFFF
// become U+FFFD. With enough capacity in dst it does not allocate.
func AppendText[T string | []byte](dst []byte, s T) []byte {
	return escape(dst, asString(s), false)
}

// AppendAttr appends s to dst escaped as a double-quoted attribute value:
// as AppendText, and " is &quot;, \t, \n and \r are &#9;, &#10; and &#13;.
func AppendAttr[T string | []byte](dst []byte, s T) []byte {
	return escape(dst, asString(s), true)
}

// asString views s as a string for the length of a call that only reads it,
// so that one escaper serves both types without a copy.
func asString[T string | []byte](s T) string {
	switch v := any(s).(type) {
	case string:
		return v
	case []byte:
		return unsafe.String(unsafe.SliceData(v), len(v))
	}
	return ""
}

const hexDigits = "0123456789abcdef"

// special has bit 1 set for the bytes escape must look at in text, bit 2 in
// attributes: a table lookup per byte keeps the formatter's render within its
// budget, where a switch on every byte took 1.3-1.6 × (BenchmarkFormat).
var special = func() (t [256]uint8) {
	for c := range 0x20 {
		t[c] = 3
	}
	t['\t'], t['\n'] = 2, 2
	t['&'], t['<'], t['>'], t['"'] = 3, 3, 3, 2
	for c := 0x80; c < 0x100; c++ {
		t[c] = 3
	}
	return t
}()

// escape appends s escaped for element text, or for a double-quoted
// attribute value when attr is set, copying unchanged runs in one append.
func escape(dst []byte, s string, attr bool) []byte {
	mode := uint8(1)
	if attr {
		mode = 2
	}
	last := 0 // start of the pending unchanged run
	for i := 0; i < len(s); {
		c := s[i]
		if special[c]&mode == 0 {
			i++
			continue
		}
		var rep string
		n := 1
		switch {
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if size > 1 && r != 0xFFFE && r != 0xFFFF {
				i += size
				continue
			}
			n, rep = size, "\uFFFD" // an invalid byte is replaced on its own, as range does
		case c == '&':
			rep = "&amp;"
		case c == '<':
			rep = "&lt;"
		case c == '>':
			// Only "]]>" is forbidden in text; a lone > stays readable. Flush
			// the run first so dst shows what precedes this byte.
			dst = append(dst, s[last:i]...)
			last = i
			if len(dst) < 2 || dst[len(dst)-2] != ']' || dst[len(dst)-1] != ']' {
				i++
				continue
			}
			rep = "&gt;"
		case c == '"':
			rep = "&quot;"
		case c == '\t':
			rep = "&#9;" // raw, an attribute's tab is read back as a space
		case c == '\n':
			rep = "&#10;" // likewise
		case c == '\r':
			rep = "&#13;" // a raw \r would be folded into \n by line-end normalization
		default: // other C0 controls: forbidden by XML 1.0, shown visibly
			dst = append(dst, s[last:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			i++
			last = i
			continue
		}
		dst = append(dst, s[last:i]...)
		dst = append(dst, rep...)
		i += n
		last = i
	}
	return append(dst, s[last:]...)
}
