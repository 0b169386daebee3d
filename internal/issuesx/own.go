package issuesx

import "github.com/selfheal/selfheal/issues"

// Own gives the issues of list memory of their own, in place: every slice
// an issue holds (Path, Keys, Allowed, Values, Branches, Issues, and the
// paths and values of Ref and When) is replaced by a copy, nested issues
// too, and the values an issue lists (Values, Key, Ref's Value, When's
// Values) are copied where they are JSON containers (map[string]any,
// []any). Input is left alone: it is the value that was sent, the caller's
// own.
//
// The adapters keep what an issue takes from a schema or a struct field
// (its path, the allowed names and values) and hand the same slices to
// every call, which the module's own rendering relies on and never
// changes. A public function calls Own on what it returns, so that a
// caller that changes its issues changes nothing another call sees. The
// copies come from a few allocations per list, whatever its length: the
// strings in one array, the other elements in another, the nested issues
// in a third.
func Own(list issues.List) {
	var n ownCount
	for i := range list {
		n.issue(&list[i])
	}
	o := owner{
		anys:  make([]any, 0, n.anys),
		strs:  make([]string, 0, n.strs),
		iss:   make([]issues.Issue, 0, n.iss),
		lists: make([][]issues.Issue, 0, n.lists),
	}
	for i := range list {
		o.issue(&list[i])
	}
}

// ownCount counts the elements Own copies, for its arrays.
type ownCount struct {
	anys, strs, iss, lists int
}

func (n *ownCount) issue(is *issues.Issue) {
	n.anys += len(is.Path) + len(is.Values)
	n.strs += len(is.Keys) + len(is.Allowed)
	if is.Ref != nil {
		n.anys += len(is.Ref.Path)
	}
	if is.When != nil {
		n.anys += len(is.When.Values)
		for _, p := range is.When.Fields {
			n.anys += len(p)
		}
	}
	n.lists += len(is.Branches)
	for _, br := range is.Branches {
		n.list(br)
	}
	n.list(is.Issues)
}

func (n *ownCount) list(list []issues.Issue) {
	n.iss += len(list)
	for i := range list {
		n.issue(&list[i])
	}
}

// owner hands out the copies, from arrays sized by ownCount.
type owner struct {
	anys  []any
	strs  []string
	iss   []issues.Issue
	lists [][]issues.Issue
}

func (o *owner) issue(is *issues.Issue) {
	is.Path = o.path(is.Path)
	is.Keys = o.strings(is.Keys)
	is.Allowed = o.strings(is.Allowed)
	if is.Values != nil {
		vals := o.take(is.Values)
		for i, v := range vals {
			vals[i] = cloneValue(v)
		}
		is.Values = vals
	}
	is.Key = cloneValue(is.Key)
	if is.Ref != nil {
		r := *is.Ref
		r.Path = o.path(r.Path)
		r.Value = cloneValue(r.Value)
		is.Ref = &r
	}
	if is.When != nil {
		c := *is.When
		if c.Fields != nil {
			fields := make([]issues.Path, len(c.Fields))
			for i, p := range c.Fields {
				fields[i] = o.path(p)
			}
			c.Fields = fields
		}
		if c.Values != nil {
			vals := o.take(c.Values)
			for i, v := range vals {
				vals[i] = cloneValue(v)
			}
			c.Values = vals
		}
		is.When = &c
	}
	if is.Branches != nil {
		// The slots are taken before the alternatives are copied: a union
		// nested in one takes slots of its own, which must not fall among
		// this union's.
		start := len(o.lists)
		o.lists = append(o.lists, is.Branches...)
		end := len(o.lists)
		for i, br := range is.Branches {
			o.lists[start+i] = o.list(br)
		}
		is.Branches = o.lists[start:end:end]
	}
	is.Issues = o.list(is.Issues)
}

// list copies list's issues and owns them.
func (o *owner) list(list []issues.Issue) []issues.Issue {
	if list == nil {
		return nil
	}
	start := len(o.iss)
	o.iss = append(o.iss, list...)
	out := o.iss[start:len(o.iss):len(o.iss)]
	for i := range out {
		o.issue(&out[i])
	}
	return out
}

// path copies p; nil stays nil, and empty stays empty.
func (o *owner) path(p issues.Path) issues.Path {
	if p == nil {
		return nil
	}
	return o.take(p)
}

// take copies s into the array of any. The copy's capacity is its length,
// so that appending to it never writes over the next one.
func (o *owner) take(s []any) []any {
	start := len(o.anys)
	o.anys = append(o.anys, s...)
	return o.anys[start:len(o.anys):len(o.anys)]
}

// strings copies s into the array of strings, as take.
func (o *owner) strings(s []string) []string {
	if s == nil {
		return nil
	}
	start := len(o.strs)
	o.strs = append(o.strs, s...)
	return o.strs[start:len(o.strs):len(o.strs)]
}

// cloneValue copies the JSON containers in v (objects and arrays, at any
// depth); any other value is returned as it is.
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
		if x == nil {
			return x
		}
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = cloneValue(e)
		}
		return s
	}
	return v
}

// Appender is an error of the module's adapters that appends its issues
// to a list without owning them (see Own): its Issues method owns them,
// which a caller that only renders them (selfheal's Engine.Append) need
// not pay for. Only the module can implement it or call it: a user cannot
// name Internal.
type Appender interface {
	AppendIssuesTo(dst issues.List, _ Internal) (issues.List, bool)
}

// Internal is the type of a parameter that keeps a method the module's
// own (see Appender). Its blank field makes it a type no other package
// can write: a struct{}{} literal would be assignable to an empty struct.
type Internal struct{ _ struct{} }
