package issues

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// DefaultMaxDepth is the nesting limit of arguments: objects and arrays
// nested more than this many levels are refused before any validation
// library sees them. The root object counts as level 1: {"a":1} is 1 deep,
// {"a":{"b":[1]}} is 3 deep, a scalar 0 deep.
//
// No real tool argument comes near it, while hostile nesting costs the
// validation libraries dearly (jsonschema v6 spends 0.8 s and 841 MB on one
// 10,000-deep value; jsonschema v5 minutes). go-sdk itself refuses whole
// JSON-RPC messages deeper than 1000 and ends the session; encoding/json
// accepts 10,000.
//
// Everywhere a depth limit is configured (CheckDepthJSON, the adapters'
// and integrations' WithMaxDepth), 0 means DefaultMaxDepth and a negative
// limit means no limit.
const DefaultMaxDepth = 64

const sourceDepth = "selfheal:depth"

func depthLimit(max int) (int, bool) {
	switch {
	case max == 0:
		return DefaultMaxDepth, true
	case max < 0:
		return 0, false
	}
	return max, true
}

// depthIssue is the issue that refuses a value nested deeper than max: a
// too_big of origin "depth" at the first container past the limit. The
// value itself is never kept (it is huge by construction), only its type.
func depthIssue(max int, path Path, typ string) Issue {
	return Issue{Code: TooBig, Origin: OriginDepth, Maximum: Number(strconv.Itoa(max)), Inclusive: true,
		Path: path, Input: Unknown{Type: typ}, Source: sourceDepth}
}

// depthFrame is an open container of a JSON text at a level at most the
// limit: what is needed to name its current member in a path.
type depthFrame struct {
	keyStart, keyEnd int  // the current key's bytes, quotes excluded
	idx              int  // the current element of an array
	obj              bool // an object (else an array)
	expectKey        bool // the next string in the object is a key
}

// CheckDepthJSON reports whether the JSON text data nests objects and
// arrays deeper than max levels (see DefaultMaxDepth; 0 means
// DefaultMaxDepth, negative no limit), before anything decodes it, and if
// so the issue that refuses it: code too_big, Origin OriginDepth, Maximum
// max (Inclusive), Input an Unknown naming the container's type, Source
// "selfheal:depth", and Path the path to it, keys unescaped as
// encoding/json does. Where several containers pass the limit, Path is the
// smallest in Path.Compare order, so that it does not depend on the order
// of keys (with duplicate keys it may name a value the decoder drops).
//
// It does not validate JSON: on malformed input it never panics and reports
// only nesting that really passes max within the bytes it read. Input
// within the limit costs one pass and no allocation; a second pass finds
// the path only when the limit is passed.
func CheckDepthJSON(data []byte, max int) (Issue, bool) {
	max, on := depthLimit(max)
	if !on {
		return Issue{}, false
	}
	if !deeperJSON(data, max) {
		return Issue{}, false
	}
	var stack [16]depthFrame
	frames := stack[:0] // frames[k] is the open container at level k+1, up to max
	depth := 0
	var best Path // the smallest path found so far (len max)
	bestType := ""
	same := 0 // frames[:same] still name best's first elements
	for i := 0; i < len(data); i++ {
		for i < len(data) && !structural[data[i]] {
			i++
		}
		if i >= len(data) {
			break
		}
		switch c := data[i]; c {
		case '"':
			start := i + 1
			end := skipString(data, start)
			i = end
			if depth >= 1 && depth <= len(frames) {
				if f := &frames[depth-1]; f.obj && f.expectKey {
					f.keyStart, f.keyEnd, f.expectKey = start, end, false
					same = min(same, depth-1)
				}
			}
		case ',':
			if depth >= 1 && depth <= len(frames) {
				if f := &frames[depth-1]; f.obj {
					f.expectKey = true
				} else {
					f.idx++
					same = min(same, depth-1)
				}
			}
		case '{', '[':
			depth++
			switch {
			case depth <= max:
				frames = append(frames, depthFrame{obj: c == '{', expectKey: c == '{'})
				same = min(same, depth-1)
			case depth == max+1:
				typ := "array"
				if c == '{' {
					typ = "object"
				}
				if best == nil {
					best = make(Path, max)
					for j := range frames {
						best[j] = frames[j].elem(data)
					}
					bestType, same = typ, max
					break
				}
				// Compare from the first element that may differ; the
				// elements before it have not moved since best was taken.
				j := same
				for ; j < max; j++ {
					el := frames[j].elem(data)
					cmp := compareElem(el, best[j])
					if cmp == 0 {
						continue
					}
					same = j
					if cmp < 0 {
						best[j] = el
						for k := j + 1; k < max; k++ {
							best[k] = frames[k].elem(data)
						}
						bestType, same = typ, max
					}
					break
				}
				if j == max {
					same = max // the same path again (a duplicate key)
				}
			}
		case '}', ']':
			if depth > 0 {
				if depth <= max {
					frames = frames[:depth-1]
				}
				depth--
			}
		}
	}
	if best == nil {
		return Issue{}, false
	}
	return depthIssue(max, best, bestType), true
}

// deeperJSON reports whether data nests containers past level max,
// counting brackets outside strings, and stops where it does.
func deeperJSON(data []byte, max int) bool {
	depth := 0
	for i := 0; i < len(data); i++ {
		for i < len(data) && !structural[data[i]] {
			i++
		}
		if i >= len(data) {
			break
		}
		switch data[i] {
		case '"':
			i = skipString(data, i+1)
		case '{', '[':
			if depth++; depth > max {
				return true
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return false
}

// structural marks the bytes CheckDepthJSON acts on; it skips the others
// (numbers, literals, white space, malformed bytes) without a switch.
var structural = [256]bool{'"': true, ',': true, '{': true, '[': true, '}': true, ']': true}

// skipString returns the offset of the quote that closes the string whose
// content starts at data[start], or len(data) when it is not closed. The
// closing quote is the first not escaped, that is, not preceded by an odd
// run of backslashes.
func skipString(data []byte, start int) int {
	// Most strings are short: a plain loop beats a call until one is long.
	i := start
	for stop := min(len(data), start+16); i < stop; i++ {
		switch data[i] {
		case '"':
			return i
		case '\\':
			i++
		}
	}
	for i < len(data) {
		k := bytes.IndexByte(data[i:], '"')
		if k < 0 {
			return len(data)
		}
		q, odd := i+k, false
		for p := q - 1; p >= start && data[p] == '\\'; p-- {
			odd = !odd
		}
		if !odd {
			return q
		}
		i = q + 1
	}
	return len(data)
}

// elem returns the path element naming f's current member: its key,
// unescaped as encoding/json would, or its index.
func (f *depthFrame) elem(data []byte) any {
	if !f.obj {
		return f.idx
	}
	raw := data[f.keyStart:f.keyEnd]
	if f.keyEnd < len(data) && needsUnquote(raw) {
		// The quotes around the key are data[keyStart-1] and data[keyEnd].
		var s string
		if json.Unmarshal(data[f.keyStart-1:f.keyEnd+1], &s) == nil {
			return s
		}
	}
	return string(raw)
}

// needsUnquote reports whether a key's bytes differ from the decoded key
// (an escape), or may (a non-ASCII byte: encoding/json replaces invalid
// UTF-8).
func needsUnquote(raw []byte) bool {
	for _, b := range raw {
		if b == '\\' || b >= 0x80 {
			return true
		}
	}
	return false
}

// CheckDepth reports whether v, a value decoded from JSON, nests objects
// and arrays deeper than max levels (see DefaultMaxDepth; 0 means
// the default, negative no limit), and if so the issue that refuses it:
// the one CheckDepthJSON gives for the document v was decoded from, so
// independent of Go's map order.
//
// Only map[string]any and []any are containers: they are what encoding/json
// produces and what the JSON Schema libraries validate. Values of other Go
// types are leaves and are not looked into: reflection would cost every
// valid call, and no decoder produces them.
//
// The walk never goes deeper than max+1 levels, so its cost is linear in
// the size of v above that depth, and it allocates only the issue's path.
func CheckDepth(v any, max int) (Issue, bool) {
	max, on := depthLimit(max)
	if !on {
		return Issue{}, false
	}
	if !deeper(v, 0, max) {
		return Issue{}, false
	}
	w := depthWalk{max: max}
	typ, over := w.over(v, 0)
	if !over {
		return Issue{}, false
	}
	path := make(Path, len(w.rev))
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
