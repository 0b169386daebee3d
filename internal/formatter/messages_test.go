package formatter

import (
	"testing"

	"github.com/selfheal/selfheal/internal/catalog"
	"github.com/selfheal/selfheal/locales"
)

// Every message id names a message of every shipped catalog: a misspelt
// key fails here instead of falling back to other wording in front of a
// model.
func TestMessageIDsInEveryCatalog(t *testing.T) {
	for _, lc := range locales.Available() {
		cat := (*catalog.Catalog)(lc)
		for id := msgNone + 1; id < numMsgs; id++ {
			k := msgKeys[id]
			if cat.Message(k[0], k[1], k[2]) == nil {
				t.Errorf("%s: id %d names %q, which the catalog does not have", cat.Tag(), id, k)
			}
		}
	}
}

// Every message of the catalogs, but the formats' own descriptions, has an
// id: a catalog key that no rule can reach is dead wording.
func TestEveryCatalogKeyHasAnID(t *testing.T) {
	for _, lc := range locales.Available() {
		cat := (*catalog.Catalog)(lc)
		for _, k := range cat.Keys() {
			if k[0] == "format" {
				continue
			}
			if idOf(k[0], k[1], k[2]) == msgNone {
				t.Errorf("%s: key %q has no message id", cat.Tag(), k)
			}
		}
	}
}

// The rule table ends with a rule that applies to every issue, and no
// rule after it is reachable.
func TestRuleTableEndsWithDefault(t *testing.T) {
	last := rules[len(rules)-1]
	if last.code != "" || last.when != nil || last.pick != nil || last.id == msgNone {
		t.Fatalf("the last rule must apply to every issue: %+v", last)
	}
	for i, r := range rules {
		if r.pick == nil && r.id == msgNone {
			t.Errorf("rule %d has no message", i)
		}
	}
}

// Every code the table words is indexed where its rules are kept.
func TestRuleCodesIndexed(t *testing.T) {
	for i, code := range ruleCodes {
		if codeIndex(code) != i {
			t.Errorf("codeIndex(%s) = %d, want %d", code, codeIndex(code), i)
		}
	}
	for _, r := range rules[:len(rules)-1] {
		if codeIndex(r.code) == len(ruleCodes) {
			t.Errorf("rule for %q: the code is not in ruleCodes", r.code)
		}
	}
}
