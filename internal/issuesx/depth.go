package issuesx

import (
	"strconv"

	"github.com/selfheal/selfheal/issues"
)

// CheckDepth reports whether v, a value decoded from JSON, nests objects
// and arrays deeper than max levels (see issues.DefaultMaxDepth; 0 means
// the default, negative no limit), and if so the issue that refuses it:
// the one issues.CheckDepthJSON gives for the document v was decoded from.
//
// Where several containers pass the limit, Path is the smallest in
// Path.Compare order (the first index of an array, the smallest key of an
// object), so that the answer does not depend on Go's map order.
//
// Only map[string]any and []any are containers: they are what encoding/json
// produces and what the JSON Schema libraries validate. Values of other Go
// types are leaves and are not looked into: reflection would cost every
// valid call, and no decoder produces them.
//
// The walk never goes deeper than max+1 levels, so its cost is linear in
// the size of v above that depth, and it allocates only the issue's path.
func CheckDepth(v any, max int) (issues.Issue, bool) {
	max, on := depthLimit(max)
	if !on {
		return issues.Issue{}, false
	}
	if !deeper(v, 0, max) {
		return issues.Issue{}, false // the common case, answered by the cheapest walk
	}
	w := depthWalk{max: max}
	typ, over := w.over(v, 0)
	if !over {
		return issues.Issue{}, false
	}
	path := make(issues.Path, len(w.rev))
	for i, el := range w.rev {
		path[len(path)-1-i] = el
	}
	return depthIssue(max, path, typ), true
}

// deeper reports whether v, enclosed by d containers, is or holds a
// container past level max. It stops at the first it meets.
func deeper(v any, d, max int) bool {
	switch x := v.(type) {
	case map[string]any:
		if d >= max {
			return true
		}
		for _, c := range x {
			if deeper(c, d+1, max) {
				return true
			}
		}
	case []any:
		if d >= max {
			return true
		}
		for _, c := range x {
			if deeper(c, d+1, max) {
				return true
			}
		}
	}
	return false
}

// depthWalk finds the first container past max levels in a decoded value,
// once deeper has said there is one.
type depthWalk struct {
	max int
	// rev is the path found so far, deepest element first: each level
	// appends its own element after its child's, on the way back up.
	rev []any
}

// over reports whether v, enclosed by d containers, is or holds a container
// at level max+1, and that container's type. On true the path from v to it
// has been appended to w.rev, reversed.
func (w *depthWalk) over(v any, d int) (string, bool) {
	switch x := v.(type) {
	case map[string]any:
		if d+1 > w.max {
			return "object", true
		}
		found := false
		var bestKey, bestType string
		mark := len(w.rev)
		for k, c := range x {
			if found && k >= bestKey {
				continue // cannot give a smaller path
			}
			start := len(w.rev)
			typ, ok := w.over(c, d+1)
			if !ok {
				continue
			}
			if found {
				// Keep only the smaller key's path: move this one over
				// the one found before.
				n := copy(w.rev[mark:], w.rev[start:])
				w.rev = w.rev[:mark+n]
			}
			found, bestKey, bestType = true, k, typ
		}
		if found {
			w.rev = append(w.rev, bestKey)
		}
		return bestType, found
	case []any:
		if d+1 > w.max {
			return "array", true
		}
		for i, c := range x {
			if typ, ok := w.over(c, d+1); ok {
				w.rev = append(w.rev, i)
				return typ, true
			}
		}
	}
	return "", false
}

// depthLimit resolves a configured limit: 0 is the default, negative none.
func depthLimit(max int) (int, bool) {
	switch {
	case max == 0:
		return issues.DefaultMaxDepth, true
	case max < 0:
		return 0, false
	}
	return max, true
}

// depthIssue is the issue that refuses a value nested deeper than max,
// the one issues.CheckDepthJSON gives: a too_big of origin "depth" at the
// first container past the limit, whose value is never kept (it is huge
// by construction), only its type.
func depthIssue(max int, path issues.Path, typ string) issues.Issue {
	return issues.Issue{Code: issues.TooBig, Origin: issues.OriginDepth, Maximum: issues.Number(strconv.Itoa(max)),
		Inclusive: true, Path: path, Input: issues.Unknown{Type: typ}, Source: SourceDepth}
}
