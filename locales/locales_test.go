package locales_test

import (
	"testing"

	"github.com/selfheal/selfheal/locales"
)

// TestSameCatalog: a language gives one *Catalog, whichever way it is asked.
func TestSameCatalog(t *testing.T) {
	cats := locales.Available()
	if len(cats) != 2 || cats[0] != locales.Default() || cats[0].Tag().String() != "en" {
		t.Fatalf("Available() = %v", cats)
	}
	if ja := locales.Match("ja-JP"); ja != cats[1] || ja != locales.Match("fr-CH, ja;q=0.9") || ja.Tag().String() != "ja" {
		t.Errorf("Match(ja-JP) = %v, want %v", ja.Tag(), cats[1].Tag())
	}
	if c := locales.Match("\xff garbage"); c != locales.Default() {
		t.Errorf("Match(garbage) = %v, want English", c.Tag())
	}
}
