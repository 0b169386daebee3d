package schemaconv

import (
	"slices"
	"strconv"

	"github.com/selfheal/selfheal/issues"
)

// Sink collects one list of issues, merging unrecognized keys and excess
// items reported one by one into a single issue per object or array. The
// zero Sink is ready to use; an adapter appends its other issues to Out.
type Sink struct {
	// Out is the list so far. Entries with an empty Code are placeholders
	// that Finish drops.
	Out []issues.Issue
	// From is where this sink's issues start in Out: the entries before it
	// are the caller's, which Finish leaves alone.
	From int
	// unrec holds the indexes in Out of the first unrecognized_keys
	// issues, compared by path one by one: most lists have one or two, for
	// which a map keyed by the path's text would cost more than the
	// comparisons. keys takes over when there are more.
	unrec  [8]int
	nunrec int
	keys   map[string]int
	items  map[string]*tail // path → array items that may not be sent
}

type tail struct {
	path  issues.Path
	arr   []any
	index []int
	pos   int // index in Out of the placeholder issue
}

// Finish returns Out with this sink's issues finished, nil when Out is
// empty: the items that may not be sent as one too_big issue when they form
// the array's tail (one never issue each otherwise), and the names allowed
// next to unrecognized keys without the keys themselves.
func (k *Sink) Finish() issues.List {
	for _, t := range k.items {
		slices.Sort(t.index)
		first := t.index[0]
		contiguous := t.index[len(t.index)-1] == len(t.arr)-1 && len(t.index) == len(t.arr)-first
		src := k.Out[t.pos].Source
		if contiguous {
			k.Out[t.pos] = issues.Issue{Code: issues.TooBig, Path: t.path, Input: t.arr,
				Origin: issues.OriginArray, Maximum: issues.Number(strconv.Itoa(first)), Inclusive: true, Source: src}
			continue
		}
		// Items that may not be sent, not forming a tail: one each.
		k.Out[t.pos].Code = ""
		for _, i := range t.index {
			k.Out = append(k.Out, issues.Issue{Code: issues.Custom, Check: issues.CheckNever,
				Path: t.path.Append(i), Input: t.arr[i], Source: src})
		}
	}
	placeholders := false
	for i := k.From; i < len(k.Out); i++ {
		is := &k.Out[i]
		switch is.Code {
		case "":
			placeholders = true
		case issues.UnrecognizedKeys:
			// A name declared only in a branch that did not apply is not
			// allowed after all. The names are often the schema's own
			// slice: copy it only to take a name out.
			if slices.ContainsFunc(is.Allowed, func(a string) bool { return slices.Contains(is.Keys, a) }) {
				is.Allowed = slices.DeleteFunc(slices.Clone(is.Allowed), func(a string) bool {
					return slices.Contains(is.Keys, a)
				})
				if len(is.Allowed) == 0 {
					is.Allowed = nil
				}
			}
		}
	}
	if placeholders {
		kept := slices.DeleteFunc(k.Out[k.From:], func(is issues.Issue) bool { return is.Code == "" })
		k.Out = k.Out[:k.From+len(kept)]
	}
	if len(k.Out) == 0 {
		return nil
	}
	return issues.List(k.Out)
}

// Add appends an issue with the fields every issue has and returns it for
// the caller to fill in the others, before anything else is added. Issues
// are large: filling one in place costs half of copying one in.
func (k *Sink) Add(code issues.Code, path issues.Path, input any, source string) *issues.Issue {
	k.Out = append(k.Out, issues.Issue{})
	is := &k.Out[len(k.Out)-1]
	is.Code, is.Path, is.Input, is.Source = code, path, input, source
	return is
}

// Unrecognized adds key to the unrecognized_keys issue of the object obj at
// path, creating it (with the names allowed and source) on the first key.
func (k *Sink) Unrecognized(path issues.Path, obj any, key string, allowed []string, source string) {
	i, ok := k.keysAt(path)
	if !ok {
		k.newKeys(path, obj, []string{key}, allowed, source)
		return
	}
	if !slices.Contains(k.Out[i].Keys, key) {
		k.Out[i].Keys = append(k.Out[i].Keys, key)
		slices.Sort(k.Out[i].Keys)
	}
}

// UnrecognizedKeys is Unrecognized for keys of obj that a library reports
// together. When they are sorted and the first of their object, the issue
// keeps keys itself rather than a copy: its slices are read-only.
func (k *Sink) UnrecognizedKeys(path issues.Path, obj any, keys []string, allowed []string, source string) {
	if _, ok := k.keysAt(path); !ok && len(keys) > 0 && increasing(keys) {
		k.newKeys(path, obj, slices.Clip(keys), allowed, source)
		return
	}
	for _, key := range keys {
		k.Unrecognized(path, obj, key, allowed, source)
	}
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

// keysAt returns the index in Out of the unrecognized_keys issue at path.
func (k *Sink) keysAt(path issues.Path) (int, bool) {
	if k.keys != nil {
		i, ok := k.keys[path.String()]
		return i, ok
	}
	for _, i := range k.unrec[:k.nunrec] {
		if k.Out[i].Path.Compare(path) == 0 {
			return i, true
		}
	}
	return 0, false
}

// newKeys adds the unrecognized_keys issue of the object at path.
func (k *Sink) newKeys(path issues.Path, obj any, keys []string, allowed []string, source string) {
	i := len(k.Out)
	k.Out = append(k.Out, issues.Issue{Code: issues.UnrecognizedKeys, Path: path, Input: obj,
		Keys: keys, Allowed: allowed, Source: source})
	switch {
	case k.keys != nil:
	case k.nunrec < len(k.unrec):
		k.unrec[k.nunrec] = i
		k.nunrec++
		return
	default:
		k.keys = make(map[string]int, 2*len(k.unrec))
		for _, j := range k.unrec {
			k.keys[k.Out[j].Path.String()] = j
		}
	}
	k.keys[path.String()] = i
}

// ExcessItem records that item index of the array arr at path may not be
// sent; Finish words the items of one array together.
func (k *Sink) ExcessItem(path issues.Path, arr []any, index int, source string) {
	id := path.String()
	t, ok := k.items[id]
	if !ok {
		if k.items == nil {
			k.items = map[string]*tail{}
		}
		t = &tail{path: path, arr: arr, pos: len(k.Out)}
		k.items[id] = t
		k.Out = append(k.Out, issues.Issue{Code: issues.TooBig, Source: source})
	}
	if !slices.Contains(t.index, index) {
		t.index = append(t.index, index)
	}
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
			k.Out = append(k.Out, issues.Issue{Code: issues.Custom, Check: issues.CheckExcluded, Path: path,
				Input: v, Source: "jsonschema:" + last(2)})
			return
		}
	}
	switch last(2) {
	case "dependentSchemas", "dependencies":
		if obj, ok := v.(map[string]any); ok {
			name := last(1)
			if pv, ok := obj[name]; ok {
				k.Out = append(k.Out, issues.Issue{Code: issues.Custom, Check: issues.CheckExcluded,
					Path: path.Append(name), Input: pv, Source: "jsonschema:" + last(2)})
				return
			}
		}
	}
	k.Out = append(k.Out, issues.Issue{Code: issues.Custom, Check: issues.CheckNever, Path: path, Input: v,
		Source: "jsonschema:false"})
}
