package nearmiss

import (
	"slices"
	"strings"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

// Matcher matches property names: a patternProperties regular expression
// of either library.
type Matcher interface{ MatchString(string) bool }

// Shape is what the near-miss check knows of the schemas that apply to one
// value of the instance (a schema and the subschemas applied in place with
// it: $ref, allOf, anyOf, oneOf, if/then/else, dependent schemas). A nil
// Shape knows nothing: the value and what it holds are not looked at.
type Shape struct {
	// Names are the property names the schemas declare, sorted: the keys
	// that are not near misses, and the names near misses stand for.
	Names []string
	// Children holds the shape of each declared property's value, at the
	// index of its name (nil when nothing below it is looked at).
	Children []*Shape
	// Patterns are the patternProperties: a key one of them matches is
	// declared.
	Patterns []Matcher
	// Check says the object's undeclared keys are looked at: the schemas
	// accept them without a say (no additionalProperties or
	// unevaluatedProperties schema, which would make them entries of a
	// record) and do not refuse them (additionalProperties: false, which
	// the library reports itself, with the declared names to suggest).
	Check bool
	// Extra is the shape of the values of undeclared keys (an
	// additionalProperties schema).
	Extra *Shape
	// Prefix holds the shapes of an array's first items, by index; Items
	// the shape of the others.
	Prefix []*Shape
	Items  *Shape
}

// Empty reports whether sh looks at nothing: no near miss to find in the
// value, nothing known below it. A builder prunes empty shapes to nil, so
// that a walk does not descend where it cannot find anything.
func (sh *Shape) Empty() bool {
	if sh == nil {
		return true
	}
	if sh.Check && len(sh.Names) > 0 || sh.Extra != nil || sh.Items != nil {
		return false
	}
	for _, l := range [][]*Shape{sh.Prefix, sh.Children} {
		for _, c := range l {
			if c != nil {
				return false
			}
		}
	}
	return true
}

// matches reports whether key matches a patternProperties pattern.
func (sh *Shape) matches(key string) bool {
	for _, p := range sh.Patterns {
		if p.MatchString(key) {
			return true
		}
	}
	return false
}

// target returns the declared property that key, an undeclared key of
// obj, stands for among those not sent: one that is the same name written
// another way (see SameName), else the closest (see
// Closest).
func (sh *Shape) target(key string, obj map[string]any) (string, bool) {
	var buf [32]string // the names not sent, on the stack for most schemas
	missing := buf[:0]
	for _, n := range sh.Names {
		if _, sent := obj[n]; sent {
			continue
		}
		if SameName(key, n) {
			return n, true
		}
		missing = append(missing, n)
	}
	return Closest(key, missing)
}

// Append appends the near misses of instance to list, whose issues from
// index from on are those the library's failure gave for it (none when it
// was valid), and returns the list. Each object with near misses gets one
// unrecognized_keys issue with Check issues.CheckNearMiss and Source
// SourceTypo: Path and Input the object, Keys the near-miss keys
// (sorted), Allowed the declared properties they stand for, each once, in
// the order of their first key.
//
// The library's issues are kept, a missing-property issue for a name a
// near-miss key stands for too (as a closed schema reports both; the
// formatter words the pair as one line). The near misses go after the
// library's issues, before an Omitted issue, so those keep their indexes.
//
// When the instance has no near miss, Append returns list as it was and
// allocates nothing. Past issuesx.BuildLimit issues in list[from:] the near
// misses are counted into its issuesx.Omitted.
func Append(list issues.List, from int, root *Shape, instance any) issues.List {
	if root == nil {
		return list
	}
	// A first walk only asks whether there is a near miss, and stops at
	// the first: keeping the way to each value costs allocations that a
	// valid call must not pay. A second one, on a hit, collects them all.
	var probe walker
	probe.walk(root, instance)
	if !probe.found {
		return list
	}
	w := walker{track: true}
	w.walk(root, instance)
	return w.appendTo(list, from)
}

// miss is one near-miss key of an object, and the name it stands for.
type miss struct {
	key, name string
}

// group is an object with near misses.
type group struct {
	path issues.Path
	obj  map[string]any
	// misses are the object's, sorted by key; names are the distinct
	// names they stand for, in the order of their first key.
	misses []miss
	names  []string
}

// walker collects the near misses of one instance.
type walker struct {
	// groups are the objects with near misses, at most issuesx.BuildLimit;
	// over counts those past it, not kept.
	groups []group
	over   int
	// track says the way to each value is kept, for the paths of the
	// objects with near misses; found says one was found.
	track, found bool
	// way is the path from the root to the value being walked.
	way issues.Path
}

// walk looks for near misses in v, where sh applies, and below it.
func (w *walker) walk(sh *Shape, v any) {
	if w.found && !w.track {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		undeclared := false
		for key, val := range x {
			child := sh.Extra
			if i, ok := slices.BinarySearch(sh.Names, key); ok {
				child = sh.Children[i]
			} else {
				undeclared = true
			}
			if child == nil {
				continue
			}
			if w.track {
				w.way = append(w.way, key)
			}
			w.walk(child, val)
			if w.track {
				w.way = w.way[:len(w.way)-1]
			}
		}
		if undeclared && sh.Check && len(sh.Names) > 0 {
			w.object(sh, x)
		}
	case []any:
		for i, el := range x {
			child := sh.Items
			if i < len(sh.Prefix) {
				child = sh.Prefix[i]
			}
			if child == nil {
				continue
			}
			if w.track {
				w.way = append(w.way, i)
			}
			w.walk(child, el)
			if w.track {
				w.way = w.way[:len(w.way)-1]
			}
		}
	}
}

// object records the near misses among the keys of obj.
func (w *walker) object(sh *Shape, obj map[string]any) {
	var g *group
	for key := range obj {
		if _, ok := slices.BinarySearch(sh.Names, key); ok || sh.matches(key) {
			continue
		}
		name, ok := sh.target(key, obj)
		if !ok {
			continue
		}
		w.found = true
		if !w.track {
			return
		}
		if g == nil {
			if len(w.groups) == issuesx.BuildLimit {
				w.over++ // its issue, counted
				return
			}
			w.groups = append(w.groups, group{path: append(issues.Path{}, w.way...), obj: obj})
			g = &w.groups[len(w.groups)-1]
		}
		g.misses = append(g.misses, miss{key: key, name: name})
	}
	if g == nil {
		return
	}
	// Keys in order, whatever the map's, and the names in the order of
	// their first key.
	slices.SortFunc(g.misses, func(a, b miss) int { return strings.Compare(a.key, b.key) })
	for _, m := range g.misses {
		if !slices.Contains(g.names, m.name) {
			g.names = append(g.names, m.name)
		}
	}
}

// appendTo appends one issue per object with misses to list, whose
// issues from index from on are the library's, before its Omitted issue.
func (w *walker) appendTo(list issues.List, from int) issues.List {
	var omitted issues.Issue
	hasOmitted := len(list) > from && issuesx.OmittedCount(&list[len(list)-1]) > 0
	if hasOmitted {
		omitted = list[len(list)-1]
		list = list[:len(list)-1]
	}
	added := make(issues.List, 0, len(w.groups))
	for _, g := range w.groups {
		keys := make([]string, len(g.misses))
		for i, m := range g.misses {
			keys[i] = m.key
		}
		added = append(added, issues.Issue{Code: issues.UnrecognizedKeys, Path: g.path, Input: g.obj,
			Keys: keys, Allowed: g.names, Check: issues.CheckNearMiss, Source: SourceTypo})
	}
	// The walk met the objects in the maps' order: show them in the
	// instance's.
	slices.SortStableFunc(added, func(a, b issues.Issue) int { return a.Path.Compare(b.Path) })
	over := w.over
	if room := issuesx.BuildLimit - (len(list) - from); len(added) > room {
		over += len(added) - max(room, 0)
		added = added[:max(room, 0)]
	}
	list = append(list, added...)
	if over > 0 || hasOmitted {
		list = append(list, issuesx.Omitted(issuesx.OmittedCount(&omitted)+over))
	}
	return list
}
