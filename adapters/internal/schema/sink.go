package schema

import (
	"encoding/binary"
	"hash/maphash"
	"slices"
	"strconv"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

// Sink collects one list of issues, merging unrecognized keys and excess
// items reported one by one into a single issue per object or array. The
// zero Sink is ready to use; an adapter appends its other issues to Out,
// through Add or after asking Room.
//
// A sink builds at most issuesx.BuildLimit issues (after From): past that it
// counts what it is told of without building it, and Finish appends one
// issuesx.Omitted with the count. Every list an adapter builds is a sink of
// its own, the inner lists of an issue (a union's branches, the issues of a
// key or of a string's content) too, so each of those is capped the same
// way: a union of 100,000 failing items holds 1,000 issues and an Omitted
// in that branch. (Lists are not capped together: 1,000 unions of 1,000
// failing items each build a million issues, but only from a million
// failures the library reported first.)
//
// Every operation costs time linear in what it is given (keys are sorted
// once, in Finish), so that a model sending 100,000 unknown keys or invalid
// items costs what reading them costs.
type Sink struct {
	// Out is the list so far. Entries with an empty Code are placeholders
	// that Finish drops.
	Out []issues.Issue
	// From is where this sink's issues start in Out: the entries before it
	// are the caller's, which Finish leaves alone.
	From int
	// unrec finds the unrecognized_keys issue of an object, by path.
	unrec byPath
	// tails are the arrays with items that may not be sent, in the order
	// of their first report; byTail finds one by path.
	tails  []tail
	byTail byPath
	// omitted counts the issues found past the limit and not built.
	omitted int
	// dropped counts the placeholders known to be dropped by Finish, which
	// hold no room.
	dropped int
	// skippedKeys and skippedItems are the last object and array whose
	// issue was counted rather than built: a library reports the keys (or
	// items) of one object one after another, and together they would
	// have made one issue, so they are counted once.
	skippedKeys, skippedItems skipped
	// spare is what Add returns past the limit: filled in, then forgotten.
	spare issues.Issue
}

type tail struct {
	path  issues.Path
	arr   []any
	index []int
	pos   int // index in Out of the placeholder issue
}

type skipped struct {
	path issues.Path
	set  bool
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
func (k *Sink) skipOnce(last *skipped, path issues.Path) {
	if last.set && last.path.Compare(path) == 0 {
		return
	}
	*last = skipped{path: path, set: true}
	k.omitted++
}

// Push appends is, or counts it past the limit.
func (k *Sink) Push(is issues.Issue) {
	if !k.Room() {
		k.omitted++
		return
	}
	k.Out = append(k.Out, is)
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
		contiguous := t.index[len(t.index)-1] == len(t.arr)-1 && len(t.index) == len(t.arr)-first
		src := k.Out[t.pos].Source
		if contiguous {
			k.Out[t.pos] = issues.Issue{Code: issues.TooBig, Path: t.path, Input: t.arr,
				Origin: issues.OriginArray, Maximum: issues.Number(strconv.Itoa(first)), Inclusive: true, Source: src}
			continue
		}
		// Items that may not be sent, not forming a tail: one each.
		k.Release(t.pos)
		for _, i := range t.index {
			k.Push(issues.Issue{Code: issues.Custom, Check: issues.CheckNever,
				Path: t.path.Append(i), Input: t.arr[i], Source: src})
		}
	}
	placeholders := k.dropped > 0
	for i := k.From; i < len(k.Out); i++ {
		is := &k.Out[i]
		switch is.Code {
		case "":
			placeholders = true
		case issues.UnrecognizedKeys:
			// Keys not in order were gathered by this sink in a slice of
			// its own (UnrecognizedKeys keeps a caller's slice only when it
			// is in order): sorting them in place, once, is what keeps
			// many keys linear.
			if !increasing(is.Keys) {
				slices.Sort(is.Keys)
				is.Keys = slices.Compact(is.Keys)
			}
			// A name declared only in a branch that did not apply is not
			// allowed after all. The names are often the schema's own
			// slice: copy it only to take a name out.
			sent := func(a string) bool {
				_, found := slices.BinarySearch(is.Keys, a)
				return found
			}
			if anySent(is.Keys, is.Allowed) {
				is.Allowed = slices.DeleteFunc(slices.Clone(is.Allowed), sent)
				if len(is.Allowed) == 0 {
					is.Allowed = nil
				}
			}
		}
	}
	if placeholders {
		kept := slices.DeleteFunc(k.Out[k.From:], func(is issues.Issue) bool { return is.Code == "" })
		k.Out = k.Out[:k.From+len(kept)]
		k.dropped = 0
	}
	// Room counts placeholders as issues, so the list is within the limit;
	// should an adapter append past it, the last issues go, counted.
	if over := len(k.Out) - k.From - issuesx.BuildLimit; over > 0 {
		clear(k.Out[len(k.Out)-over:])
		k.Out = k.Out[:len(k.Out)-over]
		k.omitted += over
	}
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
// the caller to fill in the others, before anything else is added. Issues
// are large: filling one in place costs half of copying one in. Past the
// limit the issue is counted, and what Add returns is a spare that the
// list never holds.
func (k *Sink) Add(code issues.Code, path issues.Path, input any, source string) *issues.Issue {
	if !k.Room() {
		k.omitted++
		k.spare = issues.Issue{}
		return &k.spare
	}
	k.Out = append(k.Out, issues.Issue{})
	is := &k.Out[len(k.Out)-1]
	is.Code, is.Path, is.Input, is.Source = code, path, input, source
	return is
}

// fewKeys is how many keys an unrecognized_keys issue holds before a
// repeated key is appended and left for Finish to drop: up to it, looking
// for the key first costs less, and keeps a library's slice unshared.
const fewKeys = 16

// Unrecognized adds key to the unrecognized_keys issue of the object obj at
// path, creating it (with the names allowed and source) on the first key.
func (k *Sink) Unrecognized(path issues.Path, obj any, key string, allowed []string, source string) {
	i, ok := k.unrec.find(path)
	if !ok {
		if !k.Room() {
			k.skipOnce(&k.skippedKeys, path)
			return
		}
		k.newKeys(path, obj, []string{key}, allowed, source)
		return
	}
	k.addKey(&k.Out[i], key)
}

// addKey adds key to the unrecognized_keys issue is. Finish sorts the keys
// and drops repeats.
func (k *Sink) addKey(is *issues.Issue, key string) {
	if len(is.Keys) <= fewKeys && slices.Contains(is.Keys, key) {
		return
	}
	is.Keys = append(is.Keys, key)
}

// UnrecognizedKeys is Unrecognized for keys of obj that a library reports
// together. When they are sorted and the first of their object, the issue
// keeps keys itself rather than a copy: its slices are read-only.
func (k *Sink) UnrecognizedKeys(path issues.Path, obj any, keys []string, allowed []string, source string) {
	if len(keys) == 0 {
		return
	}
	i, ok := k.unrec.find(path)
	switch {
	case ok:
		for _, key := range keys {
			k.addKey(&k.Out[i], key)
		}
	case !k.Room():
		k.skipOnce(&k.skippedKeys, path)
	case increasing(keys):
		k.newKeys(path, obj, slices.Clip(keys), allowed, source)
	default:
		// A copy of the sink's own, for Finish to sort.
		k.newKeys(path, obj, slices.Clone(keys), allowed, source)
	}
}

// anySent reports whether a name of allowed is among keys (sorted). A call
// sends a key or two that are not declared, each looked for among the
// names; many are looked up for each name.
func anySent(keys, allowed []string) bool {
	if len(keys) <= 4 {
		return slices.ContainsFunc(keys, func(k string) bool { return slices.Contains(allowed, k) })
	}
	return slices.ContainsFunc(allowed, func(a string) bool {
		_, found := slices.BinarySearch(keys, a)
		return found
	})
}

// increasing reports whether keys are sorted without repeats.
func increasing(keys []string) bool {
	for i := 1; i < len(keys); i++ {
		if keys[i-1] >= keys[i] {
			return false
		}
	}
	return true
}

// newKeys adds the unrecognized_keys issue of the object at path.
func (k *Sink) newKeys(path issues.Path, obj any, keys []string, allowed []string, source string) {
	k.unrec.add(path, len(k.Out))
	k.Out = append(k.Out, issues.Issue{Code: issues.UnrecognizedKeys, Path: path, Input: obj,
		Keys: keys, Allowed: allowed, Source: source})
}

// ExcessItem records that item index of the array arr at path may not be
// sent; Finish words the items of one array together.
func (k *Sink) ExcessItem(path issues.Path, arr []any, index int, source string) {
	var t *tail
	// Items of one array come one after another: the last array first.
	if n := len(k.tails); n > 0 && k.tails[n-1].path.Compare(path) == 0 {
		t = &k.tails[n-1]
	} else if i, ok := k.byTail.find(path); ok {
		t = &k.tails[i]
	} else {
		if !k.Room() {
			// Counted as one issue, which it is when the items form the
			// array's tail (the usual case: items: false, maxItems).
			k.skipOnce(&k.skippedItems, path)
			return
		}
		k.byTail.add(path, len(k.tails))
		k.tails = append(k.tails, tail{path: path, arr: arr, pos: len(k.Out)})
		t = &k.tails[len(k.tails)-1]
		k.Out = append(k.Out, issues.Issue{Code: issues.TooBig, Source: source})
	}
	// Repeats are dropped by Finish, with the sorting it does anyway.
	t.index = append(t.index, index)
}

// byPath finds one entry per path: the first few are compared one by one,
// for which hashing would cost more than the comparisons; past them a map
// keyed by the path's hash takes over, so that many objects or arrays
// cost one lookup each, with no path written out as text.
type byPath struct {
	few  [8]pathEntry
	nfew int
	many map[uint64]pathEntry
	// more holds entries whose hash an earlier path already had.
	more []pathEntry
}

type pathEntry struct {
	path issues.Path
	at   int
}

func (b *byPath) find(p issues.Path) (int, bool) {
	if b.many == nil {
		for _, e := range b.few[:b.nfew] {
			if e.path.Compare(p) == 0 {
				return e.at, true
			}
		}
		return 0, false
	}
	e, ok := b.many[hashPath(p)]
	if !ok {
		return 0, false
	}
	if e.path.Compare(p) == 0 {
		return e.at, true
	}
	for _, e := range b.more {
		if e.path.Compare(p) == 0 {
			return e.at, true
		}
	}
	return 0, false
}

func (b *byPath) add(p issues.Path, at int) {
	if b.many == nil {
		if b.nfew < len(b.few) {
			b.few[b.nfew] = pathEntry{p, at}
			b.nfew++
			return
		}
		b.many = make(map[uint64]pathEntry, 2*len(b.few))
		for _, e := range b.few {
			b.put(e)
		}
	}
	b.put(pathEntry{p, at})
}

func (b *byPath) put(e pathEntry) {
	h := hashPath(e.path)
	if _, taken := b.many[h]; taken {
		b.more = append(b.more, e)
		return
	}
	b.many[h] = e
}

var pathSeed = maphash.MakeSeed()

// hashPath hashes p so that paths equal under issues.Path.Compare hash
// alike: keys by their text, indexes (of any integer type Compare knows)
// by their value, and anything else as Compare sees it, as an empty key.
func hashPath(p issues.Path) uint64 {
	var h maphash.Hash
	h.SetSeed(pathSeed)
	var buf [9]byte
	for _, el := range p {
		var n int64
		switch v := el.(type) {
		case int:
			n = int64(v)
		case int64:
			n = v
		case uint64:
			n = int64(v)
		default:
			s, _ := el.(string)
			// The length first, so that ["ab"] and ["a", "b"] differ.
			buf[0] = 's'
			binary.LittleEndian.PutUint64(buf[1:], uint64(len(s)))
			h.Write(buf[:])
			h.WriteString(s)
			continue
		}
		buf[0] = 'i'
		binary.LittleEndian.PutUint64(buf[1:], uint64(n))
		h.Write(buf[:])
	}
	return h.Sum64()
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
