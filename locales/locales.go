package locales

import (
	"slices"
	"sync"

	"golang.org/x/text/language"

	"github.com/selfheal/selfheal/internal/catalog"
)

// Catalog is the wording of one language: a message per key, with plural
// forms chosen by CLDR's rules for that language. A Catalog is never
// changed after it is built, so it is safe for concurrent use. A program
// picks one by language (Match) and words with it through
// selfheal.WithLocale or Engine.Locale.
type Catalog struct{ c *catalog.Catalog }

// shipped holds one Catalog per shipped catalog, in catalog.Available's
// order, so that a language always gives the same *Catalog.
var shipped = sync.OnceValue(func() []*Catalog {
	var cats []*Catalog
	for _, c := range catalog.Available() {
		cats = append(cats, &Catalog{c})
	}
	return cats
})

func of(c *catalog.Catalog) *Catalog {
	cats := shipped()
	return cats[slices.IndexFunc(cats, func(w *Catalog) bool { return w.c == c })]
}

// Default returns the English catalog, which has every key.
func Default() *Catalog { return shipped()[0] }

// Available lists the shipped catalogs, English first.
func Available() []*Catalog { return slices.Clone(shipped()) }

// Match picks the shipped catalog that best fits pref, which is a BCP 47
// tag ("ja", "ja-JP") or an Accept-Language value ("fr-CH, ja;q=0.9,
// en;q=0.8"). Anything it cannot use, including the empty string and
// garbage, gives English: a model must always get an answer. Of a value
// longer than 256 bytes, only the entries that end within the first 256
// count.
func Match(pref string) *Catalog { return of(catalog.Match(pref)) }

// Tag returns the catalog's language.
func (c *Catalog) Tag() language.Tag { return c.c.Tag() }
