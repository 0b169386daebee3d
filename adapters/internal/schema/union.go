package schema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/internal/nearmiss"
	"github.com/selfheal/selfheal/issues"
)

// Union returns the issue of v, a value at path that matches none of
// alts, a union's alternatives: by its discriminator when they are
// objects told apart by one (see Discriminated), else with the issues of
// each alternative, which branches converts.
func Union[S comparable](path issues.Path, v any, alts []S, read func(S) Subschema[S],
	branches func() [][]issues.Issue, source string) issues.Issue {
	described := UnionBranches(alts, read)
	if is, ok := Discriminated(path, v, described, source); ok {
		return is
	}
	br := branches()
	if len(alts) == len(br) {
		OtherKeys(path, br, func(a int, key string) bool { return Declares(alts[a], read, key) })
		RequiredKeys(path, br, described)
	}
	return issues.Issue{Code: issues.InvalidUnion, Path: path, Input: v, Branches: br, Source: source}
}

// A Branch is what one alternative of a union (a subschema of anyOf or
// oneOf) says of the objects it accepts, as far as Discriminated asks.
type Branch struct {
	// Tags holds the declared properties that allow one value only (a
	// const, or an enum of one value), each with that value.
	Tags map[string]any
	// Required are the properties the alternative requires.
	Required []string
}

// Discriminated returns the one issue of v, a value at path that matches
// none of a union's alternatives, when the alternatives are objects told
// apart by one property holding a different value in each: zod's
// discriminatedUnion, {"kind":"daily",…} | {"kind":"weekly",…}. The
// mistake is then the discriminator, and the model needs every value it
// may take, as the server says it ('daily' | 'weekly'), not the issues of
// the alternative that got furthest ("Expected exactly 'daily'", and a
// field of that alternative missing):
//
//   - a discriminator whose value names no alternative (another value, or
//     a value of another type) is an invalid_value at the discriminator,
//     Values every alternative's value in the union's order;
//   - a discriminator not sent, which every alternative requires, is a
//     missing field (invalid_type without input) with those Values too,
//     Expected their types.
//
// ok is false when v is not an object, when no property tells the
// alternatives apart, or when v's discriminator names an alternative,
// even in another case or spelling ('Webhook' for 'webhook', see
// nearmiss.NearValue: the alternative nearmiss.Chosen picks then says what
// is wrong, its discriminator with the rest), or is absent where an
// alternative does not require it. When several properties tell them
// apart, the first by name is the discriminator.
func Discriminated(path issues.Path, v any, branches []Branch, source string) (is issues.Issue, ok bool) {
	obj, isObj := v.(map[string]any)
	if !isObj || len(branches) < 2 {
		return is, false
	}
	name, found := discriminator(branches)
	if !found {
		return is, false
	}
	values := make([]any, len(branches))
	for i, b := range branches {
		values[i] = b.Tags[name]
	}
	sent, present := obj[name]
	if present {
		if slices.ContainsFunc(values, func(x any) bool { return Equal(x, sent) }) {
			return is, false
		}
		if slices.ContainsFunc(values, func(x any) bool { return nearmiss.NearValue(sent, x) > 0 }) {
			// 'Webhook' for 'webhook' chooses that alternative: its own
			// issues say what else is wrong, its discriminator first.
			return is, false
		}
		return issues.Issue{Code: issues.InvalidValue, Path: path.Append(name), Input: sent,
			Values: values, Source: source}, true
	}
	var types []string
	for _, b := range branches {
		if !slices.Contains(b.Required, name) {
			return is, false
		}
		types = append(types, JSONType(b.Tags[name]))
	}
	return issues.Issue{Code: issues.InvalidType, Path: path.Append(name), Absent: true,
		Expected: issuesx.TypesOf(types...), Values: values, Source: source}, true
}

// discriminator returns the first property, by name, that every branch
// tags with a value of its own.
func discriminator(branches []Branch) (string, bool) {
	var names []string
	for name := range branches[0].Tags {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if distinctTags(branches, name) {
			return name, true
		}
	}
	return "", false
}

// distinctTags reports whether every branch tags name, each with a value
// no other branch has.
func distinctTags(branches []Branch, name string) bool {
	for i, b := range branches {
		x, ok := b.Tags[name]
		if !ok {
			return false
		}
		for _, prev := range branches[:i] {
			if Equal(prev.Tags[name], x) {
				return false
			}
		}
	}
	return true
}

// Equal is JSON equality: numbers by value (1, 1.0 and 1e0 are one
// number), objects whatever their order.
func Equal(a, b any) bool {
	ta, tb := JSONType(a), JSONType(b)
	if ta == "integer" {
		ta = "number"
	}
	if tb == "integer" {
		tb = "number"
	}
	if ta != tb {
		return false
	}
	switch x := a.(type) {
	case []any:
		y := b.([]any)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y := b.(map[string]any)
		if len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !Equal(xv, yv) {
				return false
			}
		}
		return true
	}
	if ta == "number" {
		ra, okA := new(big.Rat).SetString(NumberText(a))
		rb, okB := new(big.Rat).SetString(NumberText(b))
		return okA && okB && ra.Cmp(rb) == 0
	}
	return a == b
}

// NumberText is the decimal text of a decoded number: a json.Number's
// own, else as fmt writes it.
func NumberText(v any) string {
	if n, ok := v.(json.Number); ok {
		return string(n)
	}
	return fmt.Sprint(v)
}

// OtherKeys rewrites the issues of a union's alternatives, branches (in
// the order of alts), for a key one alternative refuses as unknown that
// another declares: {"type":"numbered_list_item","bulleted_list_item":…}
// for blocks that each declare their own key. The key is not unknown,
// nor a near miss of the refusing alternative's names ("did you mean
// 'numbered_list_item'?" is false, and a proxy would refuse the call for
// it): it is a field that alternative does not take, custom with
// issues.CheckExcluded at the key's path. declares reports whether
// alternative a takes key, by its names, its patterns or its
// additionalProperties, or its in-place subschemas' (see Declares).
func OtherKeys(path issues.Path, branches [][]issues.Issue, declares func(a int, key string) bool) {
	for i, br := range branches {
		for j := 0; j < len(br); j++ {
			is := &br[j]
			obj, ok := is.Input.(map[string]any)
			if is.Code != issues.UnrecognizedKeys || !ok || !samePath(is.Path, path) {
				continue
			}
			var keep, moved []string
			for _, k := range is.Keys {
				other := false
				if !declares(i, k) {
					for a := range branches {
						if a != i && declares(a, k) {
							other = true
							break
						}
					}
				}
				if other {
					moved = append(moved, k)
				} else {
					keep = append(keep, k)
				}
			}
			if moved == nil {
				continue
			}
			src := is.Source
			for _, k := range moved {
				br = append(br, issues.Issue{Code: issues.Custom, Check: issues.CheckExcluded,
					Path: path.Append(k), Input: obj[k], Source: src})
			}
			is = &br[j] // br may have moved
			if keep == nil {
				br = slices.Delete(br, j, j+1)
				j--
			} else {
				is.Keys = keep
			}
		}
		branches[i] = br
	}
}

// RequiredKeys gives the type issue of each object alternative that
// refuses a union's value for its type (a string sent where it takes an
// object) the keys that alternative requires, as its Keys, so that the
// line saying what each alternative expects names them: "Expected a
// string or an object with 'property','value'" (a model sending a string
// learns what the object needs, not only that it is one). described are
// the alternatives as UnionBranches reads them, in the order of branches.
func RequiredKeys(path issues.Path, branches [][]issues.Issue, described []Branch) {
	if len(described) != len(branches) {
		return
	}
	for i, br := range branches {
		req := described[i].Required
		if len(req) == 0 {
			continue
		}
		for j := range br {
			is := &br[j]
			if is.Code == issues.InvalidType && !is.Absent && samePath(is.Path, path) && is.Expected.Has(issues.TypeObject) {
				var keys []string
				for _, k := range req {
					if !slices.Contains(keys, k) {
						keys = append(keys, k)
					}
				}
				is.Keys = keys
			}
		}
	}
}

// samePath reports whether a and b name one place.
func samePath(a, b issues.Path) bool { return a.Compare(b) == 0 && len(a) == len(b) }
