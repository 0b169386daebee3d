package xmlenc

import (
	"strings"
	"testing"
)

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
		if got := string(AppendText(nil, tc.in)); got != tc.text {
			t.Errorf("text(%q) = %q, want %q", tc.in, got, tc.text)
		}
		if got := string(AppendAttr(nil, []byte(tc.in))); got != tc.attr {
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
