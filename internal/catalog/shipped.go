package catalog

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/text/language"
)

// The shipped catalogs: one file per language, named by its BCP 47 tag.
// Adding a language is adding a file here.
//
//go:embed catalogs/*.json
var files embed.FS

var (
	memo    sync.Map // preference as parsed (at most maxPref bytes, its own copy) → *Catalog
	memoLen atomic.Int32
	memoMu  sync.Mutex // serializes the stores, so that memoLen is exact
)

// maxPref is how much of a preference Match reads: the entries of an
// Accept-Language value that end within its first 256 bytes (browsers send
// five or so). A client must not make Match parse, or remember, more.
const maxPref = 256

// maxMemo bounds the memo of Match, which Engine.Locale asks per request:
// parsing a preference costs 1 to 7 µs, the memo 20 to 40 ns. It keeps the
// first 256 seen (some 100 KiB), and any other is parsed each time.
const maxMemo = 256

// shipped are the shipped catalogs, English first (it is the reference and
// the fallback), and the matcher of their tags: parsed on first use rather
// than at import, so that importing the package runs nothing.
var shipped = sync.OnceValues(func() ([]*Catalog, language.Matcher) {
	entries, err := files.ReadDir("catalogs")
	if err != nil {
		panic(err)
	}
	var cats []*Catalog
	for _, e := range entries {
		data, err := files.ReadFile(path.Join("catalogs", e.Name()))
		if err != nil {
			panic(err)
		}
		c, err := Parse(strings.TrimSuffix(e.Name(), ".json"), data)
		if err != nil {
			panic(fmt.Sprintf("catalog: shipped catalog %s: %v", e.Name(), err))
		}
		cats = append(cats, c)
	}
	slices.SortStableFunc(cats, func(a, b *Catalog) int {
		switch {
		case a.Tag() == language.English:
			return -1
		case b.Tag() == language.English:
			return 1
		}
		return strings.Compare(a.Tag().String(), b.Tag().String())
	})
	tags := make([]language.Tag, len(cats))
	for i, c := range cats {
		tags[i] = c.Tag()
	}
	return cats, language.NewMatcher(tags)
})

// Default returns the English catalog, which has every key.
func Default() *Catalog {
	cats, _ := shipped()
	return cats[0]
}

// Available lists the shipped catalogs, English first.
func Available() []*Catalog {
	cats, _ := shipped()
	return slices.Clone(cats)
}

// Match picks the shipped catalog that best fits pref, which is a BCP 47 tag
// ("ja", "ja-JP") or an Accept-Language value ("fr-CH, ja;q=0.9, en;q=0.8").
// Anything it cannot use, including the empty string and garbage, gives
// English: a model must always get an answer. Of a value longer than 256
// bytes, only the entries that end within the first 256 count.
func Match(pref string) *Catalog {
	pref = cut(pref)
	if v, ok := memo.Load(pref); ok {
		return v.(*Catalog)
	}
	c := match(pref)
	if memoLen.Load() < maxMemo { // once full, a miss takes no lock
		memoMu.Lock()
		if memoLen.Load() < maxMemo {
			// A copy, so that the memo never holds the caller's string:
			// a cut preference shares the bytes of the whole.
			if _, loaded := memo.LoadOrStore(strings.Clone(pref), c); !loaded {
				memoLen.Add(1)
			}
		}
		memoMu.Unlock()
	}
	return c
}

// cut returns the part of pref that Match reads: pref itself when it is
// at most maxPref bytes, else its entries that end within the first
// maxPref bytes ("" when the first does not: no language tag is that
// long).
func cut(pref string) string {
	if len(pref) <= maxPref {
		return pref
	}
	if i := strings.LastIndexByte(pref[:maxPref+1], ','); i >= 0 {
		return pref[:i]
	}
	return ""
}

func match(pref string) *Catalog {
	if strings.TrimSpace(pref) == "" {
		return Default()
	}
	tags, _, err := language.ParseAcceptLanguage(pref)
	if err != nil || len(tags) == 0 {
		return Default()
	}
	cats, matcher := shipped()
	_, i, conf := matcher.Match(tags...)
	if conf == language.No {
		return Default()
	}
	return cats[i]
}
