package locales

import (
	"math"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/language"

	"github.com/selfheal/selfheal/internal/templates"
)

// TestEveryLocaleHasEveryKey is what makes adding a language a data-only
// change that cannot silently lose a message: each catalog has exactly
// English's keys, each with the same placeholders.
func TestEveryLocaleHasEveryKey(t *testing.T) {
	en := Default()
	if en.Tag() != language.English {
		t.Fatalf("default catalog is %v, want en", en.Tag())
	}
	for _, c := range Available()[1:] {
		for _, id := range en.Keys() {
			m := c.Message(id[0], id[1], id[2])
			if m == nil {
				t.Errorf("%v lacks %s", c.Tag(), id)
				continue
			}
			want := en.Message(id[0], id[1], id[2]).Uses()
			if got := m.Uses(); !slices.Equal(got, want) {
				t.Errorf("%v %s uses %v, en uses %v", c.Tag(), id, got, want)
			}
		}
		for _, id := range c.Keys() {
			if en.Message(id[0], id[1], id[2]) == nil {
				t.Errorf("%v has %s, which en does not", c.Tag(), id)
			}
		}
	}
}

func TestShipped(t *testing.T) {
	var tags []string
	for _, c := range Available() {
		tags = append(tags, c.Tag().String())
	}
	if !slices.Equal(tags, []string{"en", "ja"}) {
		t.Errorf("shipped catalogs %v, want [en ja]", tags)
	}
}

func TestMatch(t *testing.T) {
	tests := []struct{ pref, want string }{
		{"", "en"},
		{"en", "en"},
		{"en-GB", "en"},
		{"ja", "ja"},
		{"ja-JP", "ja"},
		{"JA-jp", "ja"},
		{"fr-CH, ja;q=0.9, en;q=0.8", "ja"},
		{"fr-CH, en;q=0.9, ja;q=0.8", "en"},
		{"de", "en"},
		{"*", "en"},
		{"garbage;;;q=zz", "en"},
		{"\x00\xff", "en"},
		{strings.Repeat("ja-", 1000), "en"},
	}
	for _, tt := range tests {
		if got := Match(tt.pref).Tag().String(); got != tt.want {
			t.Errorf("Match(%q) = %s, want %s", tt.pref, got, tt.want)
		}
	}
}

func TestMatchCacheIsBounded(t *testing.T) {
	for i := 0; i < 3*maxCached; i++ {
		Match("x-" + strings.Repeat("a", i%50) + string(rune('a'+i%26)))
	}
	if cached > maxCached {
		t.Errorf("cache holds %d entries, bound is %d", cached, maxCached)
	}
}

func TestPluralForms(t *testing.T) {
	en, ja := Match("en"), Match("ja")
	for _, tt := range []struct {
		c    *Catalog
		n    int64
		want templates.Form
	}{
		{en, 1, templates.One}, {en, 0, templates.Other}, {en, 2, templates.Other}, {en, -1, templates.One},
		{en, 1 << 40, templates.Other}, {en, math.MinInt64, templates.Other}, {en, 63, templates.Other}, {en, 64, templates.Other},
		{ja, 1, templates.Other}, {ja, 5, templates.Other},
	} {
		if got := tt.c.Form(tt.n); got != tt.want {
			t.Errorf("%v Form(%d) = %v, want %v", tt.c.Tag(), tt.n, got, tt.want)
		}
	}
	// The table of small counts must say what the rules say.
	for _, c := range Available() {
		for n := range int64(200) {
			if got, want := c.Form(n), c.rule(n); got != want {
				t.Errorf("%v Form(%d) = %v, the rules say %v", c.Tag(), n, got, want)
			}
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ tag, data, want string }{
		{"en", `{"a": "{nope}"}`, "unknown placeholder"},
		{"en", `{"a": {"one": "x"}}`, "other"},
		{"en", `{"a": 3}`, "want a string or an object"},
		{"en", `{"a..b": "x"}`, "empty part"},
		{"en", `[`, "unexpected end"},
		{"not a tag!", `{}`, "catalog tag"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.tag, []byte(tt.data))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q, %s) = %v, want an error mentioning %q", tt.tag, tt.data, err, tt.want)
		}
	}
}

func TestWith(t *testing.T) {
	c, err := Default().With(map[string]string{"custom": "Custom: {message}. Sent {sent}."})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Message("custom", "", "").Template(templates.Other).Source(); got != "Custom: {message}. Sent {sent}." {
		t.Errorf("override not applied: %q", got)
	}
	if got := Default().Message("custom", "", "").Template(templates.Other).Source(); got == "Custom: {message}. Sent {sent}." {
		t.Error("override changed the shared default catalog")
	}
	if _, err := Default().With(map[string]string{"custom": "{messsage}"}); err == nil || !strings.Contains(err.Error(), "unknown placeholder") {
		t.Errorf("bad placeholder: %v", err)
	}
	if _, err := Default().With(map[string]string{"no_such_key": "x"}); err == nil || !strings.Contains(err.Error(), "unknown message key") {
		t.Errorf("unknown key: %v", err)
	}
}
