package templates

import (
	"strings"
	"testing"

	"github.com/selfheal/selfheal/internal/testkit/race"
)

type mapFiller map[Placeholder]string

func (m mapFiller) AppendPlaceholder(dst []byte, p Placeholder) []byte { return append(dst, m[p]...) }

func TestCompileAndAppend(t *testing.T) {
	fill := mapFiller{Sent: "'ab'", Minimum: "3 characters", Size: "2 characters"}
	tests := []struct {
		src, want string
	}{
		{"Too short. You sent: {sent} ({size}). Expected at least {minimum}.",
			"Too short. You sent: 'ab' (2 characters). Expected at least 3 characters."},
		{"{sent}{sent}", "'ab''ab'"},
		{"no placeholders", "no placeholders"},
		{"", ""},
		{"braces {{literal}} and {sent}", "braces {literal} and 'ab'"},
		{"{{{sent}}}", "{'ab'}"},
		{"日本語 {minimum}以上。", "日本語 3 characters以上。"},
	}
	for _, tt := range tests {
		tpl, err := Compile(tt.src)
		if err != nil {
			t.Fatalf("Compile(%q): %v", tt.src, err)
		}
		if got := string(tpl.Append(nil, fill)); got != tt.want {
			t.Errorf("%q rendered %q, want %q", tt.src, got, tt.want)
		}
		if tpl.Source() != tt.src {
			t.Errorf("Source() = %q", tpl.Source())
		}
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"Expected {minimun}.", "unknown placeholder {minimun}"},
		{"You sent {sent", "unclosed {"},
		{"a } b", "unmatched }"},
		{"{}", "unknown placeholder {}"},
		{"{Sent}", "unknown placeholder {Sent}"},
	}
	for _, tt := range tests {
		_, err := Compile(tt.src)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Compile(%q) error = %v, want it to mention %q", tt.src, err, tt.want)
		}
	}
}

func TestUsesAndHas(t *testing.T) {
	tpl := mustCompile("{minimum} {sent} {minimum} {inner}")
	got := tpl.Uses()
	want := []Placeholder{Sent, Minimum, Inner}
	if len(got) != len(want) {
		t.Fatalf("Uses() = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Uses() = %v, want %v", got, want)
		}
	}
	if !tpl.Has(Inner) || tpl.Has(Size) {
		t.Errorf("Has is wrong: inner %v size %v", tpl.Has(Inner), tpl.Has(Size))
	}
}

func TestPlaceholderNamesRoundTrip(t *testing.T) {
	for _, name := range Placeholders() {
		p, ok := LookupPlaceholder(name)
		if !ok || p.String() != name {
			t.Errorf("placeholder %q does not round-trip (%v, %v)", name, p, ok)
		}
	}
	if _, ok := LookupPlaceholder(""); ok {
		t.Error("the empty name is a placeholder")
	}
}

func TestMessageForms(t *testing.T) {
	m, err := NewMessage(map[string]string{"one": "{count} item", "other": "{count} items"})
	if err != nil {
		t.Fatal(err)
	}
	fill := mapFiller{Count: "1"}
	if got := string(m.Template(One).Append(nil, fill)); got != "1 item" {
		t.Errorf("one: %q", got)
	}
	if got := string(m.Template(Few).Append(nil, mapFiller{Count: "3"})); got != "3 items" {
		t.Errorf("few falls back to other: %q", got)
	}
	if _, err := NewMessage(map[string]string{"one": "x"}); err == nil {
		t.Error("a message without other was accepted")
	}
	if _, err := NewMessage(map[string]string{"other": "x", "plenty": "y"}); err == nil {
		t.Error("an unknown plural form was accepted")
	}
	if _, err := NewMessage(map[string]string{"other": "{nope}"}); err == nil {
		t.Error("a bad template in a form was accepted")
	}
}

func TestParseID(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want ID
		ok   bool
	}{
		{"invalid_type", ID{"invalid_type"}, true},
		{"too_small.string.exact", ID{"too_small", "string", "exact"}, true},
		{"format.date-time.label", ID{"format", "date-time", "label"}, true},
		{"a.b.c.d", ID{}, false},
		{"a..b", ID{}, false},
		{"", ID{}, false},
	} {
		got, err := ParseID(tt.in)
		if (err == nil) != tt.ok || (tt.ok && got != tt.want) {
			t.Errorf("ParseID(%q) = %v, %v", tt.in, got, err)
		}
		if tt.ok && got.String() != tt.in {
			t.Errorf("ID.String() = %q, want %q", got.String(), tt.in)
		}
	}
}

func TestAppendAllocatesNothing(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	tpl := mustCompile("Too short. You sent: {sent} ({size}). Expected at least {minimum}.")
	fill := mapFiller{Sent: "'ab'", Minimum: "3", Size: "2"}
	var f Filler = fill
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { buf = tpl.Append(buf[:0], f) }); n != 0 {
		t.Errorf("Append allocates %v times per run", n)
	}
}

func mustCompile(src string) *Template {
	t, err := Compile(src)
	if err != nil {
		panic(err)
	}
	return t
}
