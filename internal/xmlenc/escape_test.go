package xmlenc

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// utf8Len must accept exactly what unicode/utf8 accepts. Every 1- and 2-byte
// prefix, and every 3- and 4-byte sequence whose later bytes are boundary
// values, is compared.
func TestUTF8LenMatchesUnicodeUTF8(t *testing.T) {
	edges := []byte{0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBE, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF}
	check := func(s []byte) {
		t.Helper()
		r, size := utf8.DecodeRune(s)
		want := size
		if r == utf8.RuneError && size == 1 || s[0] < 0x80 {
			want = 0 // invalid; ASCII is never passed to utf8Len, which treats it as invalid
		}
		if s[0] < 0x80 {
			return
		}
		if got := utf8Len(s); got != want {
			t.Errorf("utf8Len(% x) = %d, want %d", s, got, want)
		}
		if got := utf8Len(string(s)); got != want {
			t.Errorf("utf8Len(string % x) = %d, want %d", s, got, want)
		}
	}
	for a := range 256 {
		check([]byte{byte(a)})
		for b := range 256 {
			check([]byte{byte(a), byte(b)})
		}
		for _, b := range edges {
			for _, c := range edges {
				check([]byte{byte(a), b, c})
				for _, d := range edges {
					check([]byte{byte(a), b, c, d})
				}
			}
		}
	}
}

func TestEscape(t *testing.T) {
	for _, tc := range []struct {
		in, text, attr string
	}{
		{"plain", "plain", "plain"},
		{"", "", ""},
		{"a & b < c > d", "a &amp; b &lt; c > d", "a &amp; b &lt; c > d"},
		{"]]>", "]]&gt;", "]]&gt;"},
		{"]]]>]>]]>>", "]]]&gt;]>]]&gt;>", "]]]&gt;]>]]&gt;>"},
		{`say "hi" 'x'`, `say "hi" 'x'`, `say &quot;hi&quot; 'x'`},
		{"a\tb\nc\rd\r\n", "a\tb\nc&#13;d&#13;\n", "a&#9;b&#10;c&#13;d&#13;&#10;"},
		{"\x00\x01\x1b\x1f\x7f", `\u0000\u0001\u001b\u001f` + "\x7f", `\u0000\u0001\u001b\u001f` + "\x7f"},
		{"bad \xff\xfe end", "bad \uFFFD\uFFFD end", "bad \uFFFD\uFFFD end"},
		{"trunc \xe2\x82", "trunc \uFFFD\uFFFD", "trunc \uFFFD\uFFFD"},
		{"surrogate \xed\xa0\x80", "surrogate \uFFFD\uFFFD\uFFFD", "surrogate \uFFFD\uFFFD\uFFFD"},
		{"nonchars \uFFFE\uFFFF \uFFFD", "nonchars \uFFFD\uFFFD \uFFFD", "nonchars \uFFFD\uFFFD \uFFFD"},
		{"ok \u202E é 日本 🙂 \U0010FFFF", "ok \u202E é 日本 🙂 \U0010FFFF", "ok \u202E é 日本 🙂 \U0010FFFF"},
	} {
		if got := string(appendEscaped(nil, tc.in, inText)); got != tc.text {
			t.Errorf("text(%q) = %q, want %q", tc.in, got, tc.text)
		}
		if got := string(appendEscaped(nil, []byte(tc.in), inAttr)); got != tc.attr {
			t.Errorf("attr(%q) = %q, want %q", tc.in, got, tc.attr)
		}
	}
}

// AppendText called piece by piece gives the bytes of one call, even when
// "]]>" is split across pieces.
func TestAppendTextPieces(t *testing.T) {
	s := "x]]>y]]]>]]>\x00&<\xff"
	want := string(AppendText(nil, s))
	for i := range len(s) + 1 {
		for j := i; j <= len(s); j++ {
			got := AppendText(nil, s[:i])
			got = AppendText(got, []byte(s[i:j]))
			got = AppendText(got, s[j:])
			if string(got) != want {
				t.Fatalf("pieces %q %q %q: %q, want %q", s[:i], s[i:j], s[j:], got, want)
			}
		}
	}
	if strings.Contains(want, "]]>") {
		t.Errorf("]]> survived: %q", want)
	}
}

// plain8 may only skip words the byte-by-byte scan would copy unchanged,
// in either mode: every byte value at every position, and many random words
// drawn mostly from the bytes around the special ones (where borrows could
// hide one). A lone byte is flagged exactly, except that text flags the
// tab and the newline it keeps (every control goes the slow way).
func TestPlain8NeverSkipsASpecialByte(t *testing.T) {
	word := func(b [8]byte) uint64 { return load8(string(b[:]), 0) }
	for _, mode := range []uint8{inText, inAttr} {
		allPlain := func(b [8]byte) bool {
			for _, c := range b {
				if special[c]&mode != 0 {
					return false
				}
			}
			return true
		}
		for pos := range 8 {
			for c := range 256 {
				b := [8]byte{'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'}
				b[pos] = byte(c)
				want := allPlain(b) && c >= 0x20
				if got := plain8(word(b), mode); got != want {
					t.Errorf("mode %d: plain8(%q) = %v, want %v", mode, b[:], got, want)
				}
			}
		}
		alphabet := []byte("\x00\x01\x1f\x20\x21\"#$%&'=<>?@\x7e\x7f\x80\xbf\xc2\xffaZ")
		rng := rand.New(rand.NewPCG(1, 2))
		for range 1 << 20 {
			var b [8]byte
			for i := range b {
				if rng.IntN(4) == 0 {
					b[i] = byte(rng.IntN(256))
				} else {
					b[i] = alphabet[rng.IntN(len(alphabet))]
				}
			}
			if plain8(word(b), mode) && !allPlain(b) {
				t.Fatalf("mode %d: plain8(%q) = true, but it holds a byte that needs escaping", mode, b[:])
			}
		}
	}
}
