package validatorv10

import (
	"maps"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-playground/validator/v10"

	"github.com/selfheal/selfheal/issues"
)

// A site is one way a field fails: its namespace, the tag that failed, its
// parameter and the field's type. A server's structs fail at the same few
// sites call after call, and for most tags the issue depends on nothing
// else but the value sent, so sites keeps each issue once built: a warm
// conversion is a lookup and a copy, allocates nothing, and gives the same
// strings and slices every time.
//
// siteKey is what sites files a site under; siteRest is the rest of it.
type siteKey struct {
	ns, tag, param string
}

type siteRest struct {
	actual string
	typ    reflect.Type
	kind   reflect.Kind
}

// site is what a conversion takes from a site.
type site struct {
	key  siteKey
	rest siteRest
	// is is the issue without its Input.
	is issues.Issue
	// slow marks a site whose issue depends on more than the site (see
	// volatile): it is converted afresh each time.
	slow bool
	// sized marks an exact size (len, eq of a slice): which side of bound
	// the value's length n falls on is decided per value.
	sized bool
	n     int
	bound issues.Number
	// next is the site that failed after this one the last time a
	// failure went from one to the other: a struct's fields fail in the
	// same order call after call, so the next site is mostly found
	// without a lookup. It is only a guess, checked as the lookup checks.
	next atomic.Pointer[site]
}

// sites holds the sites seen, listed by namespace (see listKey): a string
// key is the map's fastest, and a field fails in few ways.
var sites nsCache[string, []*site]

// maxSitesPerList bounds the sites kept in one list: the tags of a field,
// their parameters and the types the field can hold.
const maxSitesPerList = 16

// listKey is the list a site is kept in: its namespace, or for Var's
// failures, which have none, its tag. A namespace and a tag that are the
// same string only share a list; sites are told apart by their whole key.
func (k siteKey) listKey() string {
	if k.ns == "" {
		return k.tag
	}
	return k.ns
}

// firstSite is the site that failed first in the last failure with a
// cached site: a server's hot tool fails the same way call after call, so
// the first site, too, is mostly found without a lookup. Like site.next,
// it is only a guess, checked as the lookup checks.
var firstSite atomic.Pointer[site]

// fromSite fills is from the issue cached for fe's site, building the site
// on first sight. It reports false when the issue must be converted afresh
// because it depends on more than its site. It returns fe's site, when the
// cache holds it, as the next failure's prev (see site.next).
func fromSite(is *issues.Issue, fe validator.FieldError, prev *site) (*site, bool) {
	k := siteKey{ns: fe.Namespace(), tag: fe.Tag(), param: fe.Param()}
	rest := siteRest{actual: fe.ActualTag(), typ: fe.Type(), kind: fe.Kind()}
	guess := &firstSite
	if prev != nil {
		guess = &prev.next
	}
	s := guess.Load()
	if s != nil && !s.matches(&k, &rest) {
		s = nil
	}
	if s == nil {
		if s = findSite(&k, &rest); s != nil {
			guess.Store(s)
		}
	}
	if s == nil {
		s = newSite(k, rest, fe)
		addSite(s)
		if s.slow {
			return nil, false
		}
		s.fill(is, fe)
		return nil, true
	}
	if s.slow {
		return s, false
	}
	s.fill(is, fe)
	return s, true
}

// fill sets is to the site's issue for fe's value.
func (s *site) fill(is *issues.Issue, fe validator.FieldError) {
	*is = s.is
	if !is.Absent {
		is.Input = fe.Value()
	}
	if !s.sized {
		return
	}
	if lengthOf(is.Input) < s.n {
		is.Code, is.Minimum, is.Maximum = issues.TooSmall, s.bound, ""
	} else {
		is.Code, is.Minimum, is.Maximum = issues.TooBig, "", s.bound
	}
}

func findSite(k *siteKey, rest *siteRest) *site {
	list, _ := sites.load(k.listKey())
	for _, s := range list {
		if s.matches(k, rest) {
			return s
		}
	}
	return nil
}

// matches reports whether s is the site of k and rest. The cheap tests
// come first, and the namespace, the one string a
// failure builds afresh (the others are the validator's own), last.
func (s *site) matches(k *siteKey, rest *siteRest) bool {
	return s.rest.kind == rest.kind && s.rest.typ == rest.typ &&
		s.key.tag == k.tag && s.key.param == k.param && s.rest.actual == rest.actual && s.key.ns == k.ns
}

// addSite files s in its list, replacing a stale site of its key.
func addSite(s *site) {
	sites.update(s.key.listKey(), s.key.ns, func(old []*site) []*site {
		list := make([]*site, 0, len(old)+1)
		for _, o := range old {
			if o.key != s.key || o.rest != s.rest {
				list = append(list, o)
			}
		}
		if len(list) >= maxSitesPerList {
			return old
		}
		return append(list, s)
	})
}

// newSite converts fe once to learn its site's issue. A site's issue reads
// nothing a converter holds (other errors, the bound value, a prefix), so
// an empty converter builds it.
func newSite(k siteKey, rest siteRest, fe validator.FieldError) *site {
	s := &site{key: k, rest: rest}
	if volatile(k, rest, pathOf(k.ns, nil)) {
		s.slow = true
		return s
	}
	var c converter
	c.convert(&s.is, fe)
	s.is.Input = nil
	if s.is.Exact {
		s.sized, s.bound = true, number(k.param)
		s.n, _ = strconv.Atoi(k.param)
	}
	return s
}

// volatile reports whether the issue at a site depends on more than the
// site and the length of the value: on other fields or errors (cross-field
// and conditional tags), on the value itself (unique, validateFn, the
// branches of an or-group, a map key that may be the one that failed), or
// on the clock (time.Time bounds). It follows issue's choice of wording;
// classes it does not list are volatile, so a new one is never cached by
// mistake.
func volatile(k siteKey, rest siteRest, path issues.Path) bool {
	if len(path) > 0 && strings.HasSuffix(k.ns, "]") {
		if _, isKey := path[len(path)-1].(string); isKey {
			return true
		}
	}
	if _, ok := aliasFormat[k.tag]; ok {
		return false
	}
	cls := classOf(k.tag)
	if cls == clsUnknown && strings.Contains(rest.actual, "|") {
		return true
	}
	if cls == clsUnknown && rest.actual != k.tag {
		cls = classOf(rest.actual)
	}
	switch cls {
	case clsSize:
		return origin(rest.typ, rest.kind) == issues.OriginDate
	case clsUnknown, clsRequired, clsEq, clsNe, clsEqIgnoreCase, clsNeIgnoreCase, clsOneOf, clsNoneOf,
		clsIsDefault, clsContent, clsFormat, clsDatetime, clsPostcode:
		return false
	}
	return true
}

// nsCache maps keys made from a namespace to what conversions learned
// about them; all conversions share it. Reading is a lookup in an immutable
// map behind an atomic pointer: no lock, no hashing beyond the map's own.
// New entries gather in a small locked map and are merged into a new
// immutable one once they are an eighth of it, so learning stays cheap too.
// Namespaces without brackets name struct fields, which the program bounds.
// Namespaces with brackets hold indexes and map keys that the model chose:
// their keys get a smaller share of their own, so that they never crowd out
// the fields', and only short ones are kept, so that a long map key is not.
type nsCache[K comparable, V any] struct {
	frozen           atomic.Pointer[map[K]V]
	mu               sync.Mutex // guards recent and the counts
	recent           map[K]V
	fields, elements int
}

const (
	maxFieldKeys   = 4096
	maxElementKeys = 1024
	maxElementLen  = 256
)

func (c *nsCache[K, V]) load(k K) (V, bool) {
	if m := c.frozen.Load(); m != nil {
		if v, ok := (*m)[k]; ok {
			return v, true
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.recent[k]
	return v, ok
}

// update stores next(the value of k) as the value of k, whose namespace is
// ns, if there is room for it.
func (c *nsCache[K, V]) update(k K, ns string, next func(V) V) {
	elem := strings.IndexByte(ns, '[') >= 0
	if elem && len(ns) > maxElementLen {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	frozen := c.frozen.Load()
	var old V
	inFrozen := false
	if frozen != nil {
		old, inFrozen = (*frozen)[k]
	}
	v, inRecent := c.recent[k]
	if inRecent {
		old = v
	}
	switch {
	case inFrozen || inRecent:
	case elem && c.elements < maxElementKeys:
		c.elements++
	case !elem && c.fields < maxFieldKeys:
		c.fields++
	default:
		return
	}
	if c.recent == nil {
		c.recent = make(map[K]V)
	}
	c.recent[k] = next(old)
	// A key the frozen map holds must not be read from it any longer; the
	// others wait for company, fewer the smaller the frozen map, so that
	// copying it costs O(1) a learned entry and reads seldom take the lock.
	size := 0
	if frozen != nil {
		size = len(*frozen)
	}
	if inFrozen || len(c.recent) > size/8 {
		var m map[K]V
		if frozen != nil {
			m = maps.Clone(*frozen)
		} else {
			m = make(map[K]V, len(c.recent))
		}
		maps.Copy(m, c.recent)
		c.frozen.Store(&m)
		clear(c.recent)
	}
}
