package issuesx

import (
	"slices"
	"sync/atomic"
)

// A Site is one place where an adapter builds issues whose facts are the
// same call after call: a struct field's failed tag, a schema keyword. An
// adapter that knows its sites hands them beside the issues it builds (one
// per issue, nil where it has none), so that a formatter can keep what it
// worked out for a site's issues (their field name, their message, their
// partly rendered template) on the site itself: owned by what the adapter
// compiled, not looked up by a key built from the facts on every call.
//
// A site's promise is what lets a formatter rely on what it keeps there:
// an adapter records a site only beside an issue with the site's facts
// (every field but Input the same, and but the items a unique check found
// repeated, which are what was sent), and nothing changes the issue
// between the adapter and the formatter.
type Site struct {
	lines atomic.Pointer[[]any]
}

// maxSiteLines bounds what one site keeps: an entry or a few per formatter
// that worded its issues (a server has one per language it answers in; a
// line chosen by the value keeps one per message chosen).
const maxSiteLines = 8

// minSites is the room SetSite makes in a sites slice it grows.
const minSites = 8

// maxRecorded bounds the sites recorded beside one list (see SetSite).
const maxRecorded = 256

// Lines returns what formatters keep on the site, one entry each; the
// slice is shared and must not be changed.
func (s *Site) Lines() []any {
	if p := s.lines.Load(); p != nil {
		return *p
	}
	return nil
}

// Full reports whether the site keeps as many entries as it may: a
// formatter that finds it full words its issues without one, rather than
// work out an entry it cannot keep.
func (s *Site) Full() bool { return len(s.Lines()) >= maxSiteLines }

// AddLine keeps l on the site, unless the site already keeps as many
// entries as it may: the first formatters to word a site keep it.
func (s *Site) AddLine(l any) {
	for {
		old := s.lines.Load()
		var lines []any
		if old != nil {
			if len(*old) >= maxSiteLines {
				return
			}
			lines = append(lines, *old...)
		}
		lines = append(lines, l)
		if s.lines.CompareAndSwap(old, &lines) {
			return
		}
	}
}

// SetSite records s as the site of the issue at index i of the list that
// sites goes beside, growing it with nils (no site) as needed. A nil sites
// records nothing: the caller does not keep them. Nor are the sites of
// issues past the first maxRecorded: a formatter shows far fewer lines,
// and a failure of thousands of items must not grow a second list.
func SetSite(sites *[]*Site, i int, s *Site) {
	if sites == nil || i >= maxRecorded {
		return
	}
	if n := len(*sites); n <= i {
		// Room for a usual call's sites at once, not one by one.
		*sites = slices.Grow(*sites, max(i+1, minSites)-n)[:i+1]
		clear((*sites)[n:i]) // no site
	}
	(*sites)[i] = s
}
