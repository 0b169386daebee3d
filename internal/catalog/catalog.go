package catalog

import (
	"encoding/json"
	"fmt"
	"slices"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"

	"github.com/selfheal/selfheal/internal/templates"
)

// Catalog is the wording of one language: a message per key, with plural
// forms chosen by CLDR's rules for that language. A Catalog is never changed
// after it is built, so it is safe for concurrent use.
type Catalog struct {
	tag language.Tag
	set *templates.Set
}

// Parse builds a catalog from its JSON form: an object whose keys are message
// keys ("too_small.string") and whose values are either a template or an
// object of templates by CLDR plural form ({"one": …, "other": …}).
func Parse(tag string, data []byte) (*Catalog, error) {
	t, err := language.Parse(tag)
	if err != nil {
		return nil, fmt.Errorf("locales: catalog tag %q: %w", tag, err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("locales: catalog %s: %w", tag, err)
	}
	c := &Catalog{tag: t, set: templates.NewSet()}
	for k, v := range raw {
		id, err := templates.ParseID(k)
		if err != nil {
			return nil, fmt.Errorf("locales: catalog %s: %w", tag, err)
		}
		m, err := parseMessage(v)
		if err != nil {
			return nil, fmt.Errorf("locales: catalog %s, key %s: %w", tag, k, err)
		}
		c.set.Put(id, m)
	}
	return c, nil
}

func parseMessage(v json.RawMessage) (*templates.Message, error) {
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		t, err := templates.Compile(s)
		if err != nil {
			return nil, err
		}
		return templates.Single(t), nil
	}
	var forms map[string]string
	if err := json.Unmarshal(v, &forms); err != nil {
		return nil, fmt.Errorf("want a string or an object of plural forms")
	}
	return templates.NewMessage(forms)
}

// Tag returns the catalog's language.
func (c *Catalog) Tag() language.Tag { return c.tag }

// Message returns the message for the key parts a, b and c (c may be empty,
// and so may b), or nil when the catalog has none.
func (c *Catalog) Message(a, b, k string) *templates.Message { return c.set.Get(a, b, k) }

// Keys lists the catalog's keys in sorted order.
func (c *Catalog) Keys() []templates.ID { return c.set.Keys() }

// Form returns the plural form of the integer n in the catalog's language.
func (c *Catalog) Form(n int64) templates.Form {
	// CLDR lets operands beyond an int be passed modulo 10,000,000; the sign
	// is dropped after that, where even math.MinInt64 can be negated.
	n %= 10_000_000
	if n < 0 {
		n = -n
	}
	return templates.Form(plural.Cardinal.MatchPlural(c.tag, int(n), 0, 0, 0, 0))
}

// With returns a copy of the catalog with some messages replaced, keyed as
// in the catalog files. Each key must be one ref (English) has and each
// template must compile, so a bad template fails at setup, never in front
// of a model; the error names the first that does not.
func (c *Catalog) With(overrides map[string]string, ref *Catalog) (*Catalog, error) {
	out := &Catalog{tag: c.tag, set: c.set.Clone()}
	keys := make([]string, 0, len(overrides))
	for k := range overrides {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		id, err := templates.ParseID(k)
		if err != nil {
			return nil, err
		}
		if ref.set.Get(id[0], id[1], id[2]) == nil {
			return nil, fmt.Errorf("locales: unknown message key %q", k)
		}
		t, err := templates.Compile(overrides[k])
		if err != nil {
			return nil, fmt.Errorf("locales: key %s: %w", k, err)
		}
		out.set.Put(id, templates.Single(t))
	}
	return out, nil
}
