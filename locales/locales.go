package locales

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"golang.org/x/text/language"

	"github.com/selfheal/selfheal/internal/catalog"
)

// The shipped catalogs: one file per language, named by its BCP 47 tag.
// Adding a language is adding a file here.
//
//go:embed catalogs/*.json
var files embed.FS

// Catalog is the wording of one language: a message per key, with plural
// forms chosen by CLDR's rules for that language. A Catalog is never changed
// after it is built, so it is safe for concurrent use. Its messages are read
// by the formatter; a program picks one by language (Match) and words with
// it through selfheal.WithLocale or Engine.Locale.
type Catalog catalog.Catalog

var (
	shipped []*Catalog // en first: it is the reference and the fallback
	matcher language.Matcher
	cache   sync.Map // preference string → *Catalog
	cached  int
	cacheMu sync.Mutex
)

// maxCached bounds the memo of Match, whose input may come from a client.
const maxCached = 256

func init() {
	entries, err := files.ReadDir("catalogs")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		data, err := files.ReadFile(path.Join("catalogs", e.Name()))
		if err != nil {
			panic(err)
		}
		c, err := catalog.Parse(strings.TrimSuffix(e.Name(), ".json"), data)
		if err != nil {
			panic(fmt.Sprintf("locales: shipped catalog %s: %v", e.Name(), err))
		}
		shipped = append(shipped, (*Catalog)(c))
	}
	slices.SortStableFunc(shipped, func(a, b *Catalog) int {
		switch {
		case a.Tag() == language.English:
			return -1
		case b.Tag() == language.English:
			return 1
		}
		return strings.Compare(a.Tag().String(), b.Tag().String())
	})
	tags := make([]language.Tag, len(shipped))
	for i, c := range shipped {
		tags[i] = c.Tag()
	}
	matcher = language.NewMatcher(tags)
}

// Default returns the English catalog, which has every key.
func Default() *Catalog { return shipped[0] }

// Available lists the shipped catalogs, English first.
func Available() []*Catalog { return slices.Clone(shipped) }

// Match picks the shipped catalog that best fits pref, which is a BCP 47 tag
// ("ja", "ja-JP") or an Accept-Language value ("fr-CH, ja;q=0.9, en;q=0.8").
// Anything it cannot use, including the empty string and garbage, gives
// English: a model must always get an answer.
func Match(pref string) *Catalog {
	if v, ok := cache.Load(pref); ok {
		return v.(*Catalog)
	}
	c := match(pref)
	cacheMu.Lock()
	if cached < maxCached {
		if _, loaded := cache.LoadOrStore(pref, c); !loaded {
			cached++
		}
	}
	cacheMu.Unlock()
	return c
}

func match(pref string) *Catalog {
	if strings.TrimSpace(pref) == "" {
		return Default()
	}
	tags, _, err := language.ParseAcceptLanguage(pref)
	if err != nil || len(tags) == 0 {
		return Default()
	}
	_, i, conf := matcher.Match(tags...)
	if conf == language.No {
		return Default()
	}
	return shipped[i]
}

// Tag returns the catalog's language.
func (c *Catalog) Tag() language.Tag { return (*catalog.Catalog)(c).Tag() }
