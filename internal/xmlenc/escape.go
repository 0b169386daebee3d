package xmlenc

import "unsafe"

// This file holds the module's one XML escaper. Every byte of user data the
// project emits goes through appendEscaped (by AppendText and AppendAttr), so
// the well-formedness guarantee (fuzz-tested in fuzz/) rests on this function
// alone.

// Character classes for the escaper's fast scan. A byte with no bit set for
// the current mode is copied as part of an unchanged run.
const (
	inText = 1 << iota // needs attention in element text
	inAttr             // needs attention in a double-quoted attribute value
)

var special = func() (t [256]uint8) {
	for c := 0; c < 0x20; c++ {
		t[c] = inText | inAttr // C0 controls: forbidden, or \t \n \r (handled below)
	}
	t['\t'], t['\n'] = inAttr, inAttr // raw in text; normalized to spaces in attributes
	for _, c := range "&<>" {
		t[c] = inText | inAttr
	}
	t['"'] = inAttr
	for c := 0x80; c < 0x100; c++ {
		t[c] = inText | inAttr // multi-byte: validate the UTF-8 sequence
	}
	return t
}()

const hexDigits = "0123456789abcdef"

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
	return appendEscaped(dst, s, inText)
}

// AppendAttr appends s to dst escaped as a double-quoted attribute value:
// as AppendText, and " is &quot;, \t, \n and \r are &#9;, &#10; and &#13;.
func AppendAttr[T string | []byte](dst []byte, s T) []byte {
	return appendEscaped(dst, s, inAttr)
}

// appendEscaped appends s escaped for element text (mode inText) or for a
// double-quoted attribute value (mode inAttr). It scans bytes once, copying
// unchanged runs in one append, and never allocates beyond growing dst.
func appendEscaped[T string | []byte](dst []byte, s T, mode uint8) []byte {
	return escapeString(dst, asString(s), mode)
}

// asString views s as a string for the length of a call that only reads
// it: the escaper is compiled once, for strings, which the compiler
// optimizes better than the []byte shape of a generic function.
func asString[T string | []byte](s T) string {
	switch v := any(s).(type) {
	case string:
		return v
	case []byte:
		return unsafe.String(unsafe.SliceData(v), len(v))
	}
	return ""
}

func escapeString(dst []byte, s string, mode uint8) []byte {
	last := 0 // start of the pending unchanged run
	for i, slow := 0, 0; i < len(s); {
		// Most text is plain ASCII: skip it eight bytes at a time. A word
		// that is not is gone through byte by byte before the next try, so
		// a quote or a > costs one test of its word, not eight.
		if i >= slow {
			for i+8 <= len(s) && plain8(load8(s, i), mode) {
				i += 8
			}
			if i == len(s) {
				break
			}
			slow = i + 8
		}
		c := s[i]
		if special[c]&mode == 0 {
			i++
			continue
		}
		var rep string
		n := 1
		switch {
		case c >= 0x80:
			n = utf8Len(s[i:])
			if n > 1 && !(c == 0xEF && s[i+1] == 0xBF && s[i+2] >= 0xBE) {
				i += n // valid, and not U+FFFE / U+FFFF: part of the run
				continue
			}
			n = max(n, 1) // an invalid byte is replaced on its own, like range does
			rep = "\uFFFD"
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
			rep = "&#9;" // attributes only: a raw tab would be read back as a space
		case c == '\n':
			rep = "&#10;" // attributes only: likewise
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

// Word-at-a-time constants: every byte set to 0x01, 0x80 or b.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// load8 reads the eight bytes of s at i as one little-endian word; the
// compiler turns the shifts into a single load.
func load8(s string, i int) uint64 {
	w := s[i : i+8]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// plain8 reports whether none of the eight bytes of x needs attention in
// mode: no C0 control, no byte of a multi-byte sequence, none of & < >, and
// in an attribute no ". It may answer false for a plain word (the
// subtraction's borrow can flag a byte above a flagged one, and tabs and
// newlines are flagged in text too), which only sends that word down the
// byte-by-byte path; it never answers true for a word that needs escaping.
//
// Text tests & on its own rather than with " (one test covers both, as in
// attributes): a quoted JSON value, the most common text of a line, would
// otherwise fail every word that holds a quote.
func plain8(x uint64, mode uint8) bool {
	bad := x & highs                    // a byte >= 0x80
	bad |= (x - 0x20*ones) &^ x & highs // a byte < 0x20
	lt := (x | 0x02*ones) ^ 0x3E*ones   // a zero byte where x has < or >
	bad |= (lt - ones) &^ lt
	if mode == inText {
		amp := x ^ 0x26*ones // a zero byte where x has &
		bad |= (amp - ones) &^ amp
	} else {
		amp := (x | 0x04*ones) ^ 0x26*ones // a zero byte where x has & or "
		bad |= (amp - ones) &^ amp
	}
	return bad&highs == 0
}

// utf8Len returns the length of the valid UTF-8 sequence that starts s, or 0
// when s does not start with one. It accepts exactly what unicode/utf8 accepts
// (no overlong forms, no surrogates, nothing above U+10FFFF); it exists because
// unicode/utf8 has no decoder generic over string and []byte.
func utf8Len[T string | []byte](s T) int {
	c := s[0]
	var n int
	lo, hi := byte(0x80), byte(0xBF) // allowed range of the second byte
	switch {
	case c >= 0xC2 && c <= 0xDF:
		n = 2
	case c == 0xE0:
		n, lo = 3, 0xA0
	case c == 0xED:
		n, hi = 3, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		n = 3
	case c == 0xF0:
		n, lo = 4, 0x90
	case c >= 0xF1 && c <= 0xF3:
		n = 4
	case c == 0xF4:
		n, hi = 4, 0x8F
	default:
		return 0
	}
	if len(s) < n || s[1] < lo || s[1] > hi {
		return 0
	}
	for i := 2; i < n; i++ {
		if s[i] < 0x80 || s[i] > 0xBF {
			return 0
		}
	}
	return n
}
