package issuesx

import (
	"slices"

	"github.com/selfheal/selfheal/issues"
)

// Own gives the issues of list memory of their own, in place: every slice
// an issue holds (Path, Keys, Allowed, Values, Branches, Issues, and the
// paths and values of Ref and When) is replaced by a copy, nested issues
// too, and the values an issue lists (Values, Key, Ref's Value, When's
// Values) are copied where they are JSON containers (map[string]any,
// []any). Input is left alone: it is the value that was sent, the caller's
// own.
//
// The JSON Schema adapters keep what an issue takes from a schema (its
// path, the allowed names and values) and hand the same slices to every
// call, which the module's own rendering relies on and never
// changes. A public function calls Own on what it returns, so that a
// caller that changes its issues changes nothing another call sees.
func Own(list issues.List) {
	for i := range list {
		own(&list[i])
	}
}

func own(is *issues.Issue) {
	is.Path = slices.Clone(is.Path)
	is.Keys = slices.Clone(is.Keys)
	is.Allowed = slices.Clone(is.Allowed)
	is.Values = cloneValues(is.Values)
	is.Key = cloneValue(is.Key)
	if is.Ref != nil {
		r := *is.Ref
		r.Path = slices.Clone(r.Path)
		r.Value = cloneValue(r.Value)
		is.Ref = &r
	}
	if is.When != nil {
		c := *is.When
		if c.Fields != nil {
			c.Fields = make([]issues.Path, len(is.When.Fields))
			for i, p := range is.When.Fields {
				c.Fields[i] = slices.Clone(p)
			}
		}
		c.Values = cloneValues(c.Values)
		is.When = &c
	}
	if is.Branches != nil {
		is.Branches = slices.Clone(is.Branches)
		for i, br := range is.Branches {
			is.Branches[i] = ownList(br)
		}
	}
	is.Issues = ownList(is.Issues)
}

func ownList(list []issues.Issue) []issues.Issue {
	list = slices.Clone(list)
	Own(list)
	return list
}

func cloneValues(vs []any) []any {
	vs = slices.Clone(vs)
	for i, v := range vs {
		vs[i] = cloneValue(v)
	}
	return vs
}

// cloneValue copies v where it is a JSON container (map[string]any,
// []any); other values are immutable or the caller's.
func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = cloneValue(e)
		}
		return m
	case []any:
		return cloneValues(x)
	}
	return v
}
