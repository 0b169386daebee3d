package formatter

import (
	"github.com/selfheal/selfheal/internal/catalog"
	"github.com/selfheal/selfheal/internal/templates"
)

// Messages are named by their catalog keys, literal ("too_small.exact") or
// built from an issue's facts (f.msg("too_small", origin, variant)).
// TestMessageKeys checks every literal key against every shipped catalog.

// resolve returns the messages of cat by key: its own, else English's, so
// that a catalog missing a message still says something precise. A
// format's label is the catalog's own only: a label in another language
// would be worse than the format's name.
func resolve(cat, en *catalog.Catalog) map[string]*templates.Message {
	msgs := map[string]*templates.Message{}
	for _, c := range []*catalog.Catalog{en, cat} {
		for _, k := range c.Keys() {
			if c != cat && k[0] == "format" && k[2] == "label" {
				continue
			}
			msgs[k.String()] = c.Message(k[0], k[1], k[2])
		}
	}
	return msgs
}

// m returns the message for key, or nil.
func (s *state) m(key string) *templates.Message { return s.f.msgs[key] }

// msg returns the message for the key a.b.c (c, or b and c, may be empty),
// or nil when no catalog has it.
func (f *Formatter) msg(a, b, c string) *templates.Message {
	var buf [64]byte // the key, built without allocating
	k := append(buf[:0], a...)
	if b != "" {
		k = append(append(k, '.'), b...)
	}
	if c != "" {
		k = append(append(k, '.'), c...)
	}
	return f.msgs[string(k)]
}

// formatMsg is what format expects, or nil when no catalog describes it.
func (f *Formatter) formatMsg(format string) *templates.Message { return f.msg("format", format, "") }

// formatLabel is the catalog's name of format, or nil.
func (f *Formatter) formatLabel(format string) *templates.Message {
	return f.msg("format", format, "label")
}
