package schema

import (
	"slices"
	"strconv"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

// Sink collects one list of issues, merging unrecognized keys and excess
// items reported one by one into a single issue per object or array. The
// zero Sink is ready to use.
//
// A sink builds at most issuesx.BuildLimit issues (after From): past that it
// counts what it is told of without building it, and Finish appends one
// issuesx.Omitted with the count. Every list an adapter builds is a sink of
// its own, the inner lists of an issue (a union's branches, the issues of a
// key or of a string's content) too, so each of those is capped the same
// way. Every operation costs time linear in what it is given (keys are
// sorted once, in Finish), so that a model sending 100,000 unknown keys or
// invalid items costs what reading them costs.
type Sink struct {
	// Out is the list so far. Entries with an empty Code are placeholders
	// that Finish drops.
	Out []issues.Issue
	// From is where this sink's issues start in Out: the entries before it
	// are the caller's, which Finish leaves alone.
	From int
	// unrec finds the unrecognized_keys issue of an object in Out, by path.
	unrec map[string]int
	// tails are the arrays with items that may not be sent, in the order
	// of their first report; byTail finds one by path.
	tails  []tail
	byTail map[string]int
	// omitted counts the issues found past the limit and not built;
	// dropped the placeholders Finish drops, which hold no room.
	omitted, dropped int
	// skippedKeys and skippedItems are the last object and array whose
	// issue was counted rather than built: a library reports the keys (or
	// items) of one object one after another, and together they would
	// have made one issue, so they are counted once.
	skippedKeys, skippedItems string
	// spare is what Add returns past the limit: filled in, then forgotten.
	spare issues.Issue
}

type tail struct {
	path  issues.Path
	arr   []any
	index []int
	pos   int // index in Out of the placeholder issue
}

// pathKey names p as issues.Path.Compare tells paths apart: indexes (of
// any integer type) by value, keys by their text, anything else as an
// empty key. The prefix "-" marks a path; a skipped one is never "".
func pathKey(p issues.Path) string {
	b := []byte{'-'}
	for _, el := range p {
		switch v := el.(type) {
		case int:
			b = strconv.AppendInt(append(b, 'i'), int64(v), 10)
		case int64:
			b = strconv.AppendInt(append(b, 'i'), v, 10)
		case uint64:
			b = strconv.AppendInt(append(b, 'i'), int64(v), 10)
		default:
			s, _ := el.(string)
			b = append(strconv.AppendInt(append(b, 's'), int64(len(s)), 10), ':')
			b = append(b, s...)
		}
	}
	return string(b)
}

// Room reports whether the sink builds another issue: fewer than
// issuesx.BuildLimit are in it. An adapter asks before the work of
// locating and wording one, and past the limit counts the issues it
// would have built with Skip instead.
func (k *Sink) Room() bool {
	return len(k.Out)-k.From-k.dropped < issuesx.BuildLimit
}

// Skip counts n issues found past the limit and not built.
func (k *Sink) Skip(n int) {
	k.omitted += n
}

// skipOnce counts the issue of the object or array at path as not built,
// unless it was the last one counted in last.
func (k *Sink) skipOnce(last *string, path issues.Path) {
	if key := pathKey(path); key != *last {
		*last = key
		k.omitted++
	}
}

// Push appends is, or counts it past the limit.
func (k *Sink) Push(is issues.Issue) {
	*k.Add("", nil, nil, "") = is
}

// Reserve appends a placeholder for an issue the caller builds later, and
// returns its index in Out for the caller to fill in (Out[i] = …) or give
// up (Release). It holds room like an issue; the caller asks Room first.
func (k *Sink) Reserve() int {
	k.Out = append(k.Out, issues.Issue{})
	return len(k.Out) - 1
}

// Release gives up the placeholder at index i of Out: Finish drops it, and
// its room is free again.
func (k *Sink) Release(i int) {
	k.Out[i] = issues.Issue{}
	k.dropped++
}

// Finish returns Out with this sink's issues finished, nil when Out is
// empty: the items that may not be sent as one too_big issue when they form
// the array's tail (one never issue each otherwise), the unrecognized keys
// of each object sorted without repeats, and the names allowed next to them
// without the keys themselves; then, when issues were counted past the
// limit, one issuesx.Omitted with their number.
func (k *Sink) Finish() issues.List {
	for ti := range k.tails {
		t := &k.tails[ti]
		slices.Sort(t.index)
		t.index = slices.Compact(t.index)
		first := t.index[0]
		src := k.Out[t.pos].Source
		if t.index[len(t.index)-1] == len(t.arr)-1 && len(t.index) == len(t.arr)-first {
			k.Out[t.pos] = issues.Issue{Code: issues.TooBig, Path: t.path, Input: t.arr,
				Origin: issues.OriginArray, Maximum: issues.Number(strconv.Itoa(first)), Inclusive: true, Source: src}
			continue
		}
		k.Release(t.pos)
		for _, i := range t.index {
			k.Push(issues.Issue{Code: issues.Custom, Check: issues.CheckNever,
				Path: t.path.Append(i), Input: t.arr[i], Source: src})
		}
	}
	for i := k.From; i < len(k.Out); i++ {
		if is := &k.Out[i]; is.Code == issues.UnrecognizedKeys {
			slices.Sort(is.Keys)
			is.Keys = slices.Compact(is.Keys)
			// A name declared only in a branch that did not apply is not
			// allowed after all; the names may be the schema's own slice.
			sent := func(a string) bool { _, found := slices.BinarySearch(is.Keys, a); return found }
			if slices.ContainsFunc(is.Allowed, sent) {
				is.Allowed = slices.DeleteFunc(slices.Clone(is.Allowed), sent)
			}
			if len(is.Allowed) == 0 {
				is.Allowed = nil
			}
		}
	}
	kept := slices.DeleteFunc(k.Out[k.From:], func(is issues.Issue) bool { return is.Code == "" })
	k.Out, k.dropped = k.Out[:k.From+len(kept)], 0
	if k.omitted > 0 {
		k.Out = append(k.Out, issuesx.Omitted(k.omitted))
		k.omitted = 0
	}
	if len(k.Out) == 0 {
		return nil
	}
	return issues.List(k.Out)
}

// Add appends an issue with the fields every issue has and returns it for
// the caller to fill in the others, before anything else is added. Past
// the limit the issue is counted, and what Add returns is a spare that the
// list never holds.
func (k *Sink) Add(code issues.Code, path issues.Path, input any, source string) *issues.Issue {
	if !k.Room() {
		k.omitted++
		k.spare = issues.Issue{}
		return &k.spare
	}
	k.Out = append(k.Out, issues.Issue{Code: code, Path: path, Input: input, Source: source})
	return &k.Out[len(k.Out)-1]
}

// Unrecognized adds key to the unrecognized_keys issue of the object obj at
// path, creating it (with the names allowed and source) on the first key.
func (k *Sink) Unrecognized(path issues.Path, obj any, key string, allowed []string, source string) {
	k.UnrecognizedKeys(path, obj, []string{key}, allowed, source)
}

// UnrecognizedKeys is Unrecognized for keys of obj that a library reports
// together. Finish sorts the keys and drops repeats.
func (k *Sink) UnrecognizedKeys(path issues.Path, obj any, keys []string, allowed []string, source string) {
	if len(keys) == 0 {
		return
	}
	key := pathKey(path)
	if i, ok := k.unrec[key]; ok {
		k.Out[i].Keys = append(k.Out[i].Keys, keys...)
		return
	}
	if !k.Room() {
		k.skipOnce(&k.skippedKeys, path)
		return
	}
	if k.unrec == nil {
		k.unrec = map[string]int{}
	}
	k.unrec[key] = len(k.Out)
	k.Out = append(k.Out, issues.Issue{Code: issues.UnrecognizedKeys, Path: path, Input: obj,
		Keys: slices.Clone(keys), Allowed: allowed, Source: source})
}

// ExcessItem records that item index of the array arr at path may not be
// sent; Finish words the items of one array together.
func (k *Sink) ExcessItem(path issues.Path, arr []any, index int, source string) {
	key := pathKey(path)
	i, ok := k.byTail[key]
	if !ok {
		if !k.Room() {
			// Counted as one issue, which it is when the items form the
			// array's tail (the usual case: items: false, maxItems).
			k.skipOnce(&k.skippedItems, path)
			return
		}
		if k.byTail == nil {
			k.byTail = map[string]int{}
		}
		i = len(k.tails)
		k.byTail[key] = i
		k.tails = append(k.tails, tail{path: path, arr: arr, pos: len(k.Out)})
		k.Out = append(k.Out, issues.Issue{Code: issues.TooBig, Source: source})
	}
	// Repeats are dropped by Finish, with the sorting it does anyway.
	k.tails[i].index = append(k.tails[i].index, index)
}

// FalseSchema reports the value v at path where the schema is false, by
// where the false schema sits: a property that may not be sent, a key or
// item beyond those allowed, or a place that accepts nothing. toks are the
// tokens of the false schema's location (see Fragment). When inside (path
// goes below the base of the conversion), parent returns the path and value
// of the object or array holding v, and allowed the property names its
// schema declares, asked for only for an unrecognized key.
func (k *Sink) FalseSchema(toks []string, path issues.Path, v any, inside bool,
	parent func() (issues.Path, any), allowed func() []string) {
	last := func(i int) string {
		if len(toks) >= i {
			return toks[len(toks)-i]
		}
		return ""
	}
	if inside {
		ppath, pv := parent()
		switch last(1) {
		case "unevaluatedProperties", "additionalProperties":
			if name, ok := path[len(path)-1].(string); ok {
				k.Unrecognized(ppath, pv, name, allowed(), "jsonschema:"+last(1))
				return
			}
		case "items", "additionalItems", "unevaluatedItems":
			if i, ok := path[len(path)-1].(int); ok {
				if arr, ok := pv.([]any); ok {
					k.ExcessItem(ppath, arr, i, "jsonschema:"+last(1))
					return
				}
			}
		}
		switch last(2) {
		case "properties", "patternProperties":
			k.Push(issues.Issue{Code: issues.Custom, Check: issues.CheckExcluded, Path: path,
				Input: v, Source: "jsonschema:" + last(2)})
			return
		}
	}
	switch last(2) {
	case "dependentSchemas", "dependencies":
		if obj, ok := v.(map[string]any); ok {
			name := last(1)
			if pv, ok := obj[name]; ok {
				k.Push(issues.Issue{Code: issues.Custom, Check: issues.CheckExcluded,
					Path: path.Append(name), Input: pv, Source: "jsonschema:" + last(2)})
				return
			}
		}
	}
	k.Push(issues.Issue{Code: issues.Custom, Check: issues.CheckNever, Path: path, Input: v,
		Source: "jsonschema:false"})
}
