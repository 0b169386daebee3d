package locales

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/language"

	"github.com/selfheal/selfheal/internal/catalog"
)

// TestEveryLocaleHasEveryKey is what makes adding a language a data-only
// change that cannot silently lose a message: each catalog has exactly
// English's keys, each with the same placeholders.
func TestEveryLocaleHasEveryKey(t *testing.T) {
	en := (*catalog.Catalog)(Default())
	if en.Tag() != language.English {
		t.Fatalf("default catalog is %v, want en", en.Tag())
	}
	for _, lc := range Available()[1:] {
		c := (*catalog.Catalog)(lc)
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
