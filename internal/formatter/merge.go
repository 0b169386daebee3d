package formatter

import (
	"slices"

	"github.com/selfheal/selfheal/internal/nearmiss"
	"github.com/selfheal/selfheal/issues"
)

// A misspelt key and the required field it should have been ('emial' sent,
// 'email' missing) are one problem, so they are one line, written at the
// missing field's path, where the model must put the value:
//
//	<field name="email">Missing. You sent: the unknown key 'emial'. Expected a string.</field>
//
// An open schema's near miss of a required field is the same problem (the
// adapter's near-miss issue beside the library's missing field), and gets
// the same line. The unrecognized_keys issue keeps a line for its other
// keys, if any. Only the lines are merged, not the issues.

// maxMergeScan bounds the issues a merge is looked for among, so that a
// call with thousands of issues does not pay for pairs it cannot show.
const maxMergeScan = 64

// merged is one merge: the missing field's issue and the key sent for it,
// by their index in the list.
type merged struct {
	miss, unk int
	key, sugg string
}

// mergeState is what run keeps to write merged lines.
type mergeState struct {
	list    []merged
	missing []int        // indexes of missing fields, candidates of a merge
	keys    []string     // the keys of a partly merged unrecognized_keys issue
	allowed []string     // and, for a near miss, the names they stand for
	issue   issues.Issue // the issue a merged or shortened line is written from
	pair    [2]string    // its key sent and the key suggested
}

// missingField reports whether is is a required field that was not sent,
// with no condition (a conditional requirement is its own fact).
func missingField(is *issues.Issue) bool {
	return is.Code == issues.InvalidType && is.Absent && is.When == nil && len(is.Path) > 0
}

// findMerges records the merges of list in s.mg.list.
func (s *state) findMerges(list issues.List) {
	mg := &s.mg
	mg.list, mg.missing = mg.list[:0], mg.missing[:0]
	unknown := false
	for i := range list {
		switch is := &list[i]; {
		case is.Code == issues.UnrecognizedKeys && len(is.Allowed) > 0:
			unknown = true
		case missingField(is) && len(mg.missing) < maxMergeScan:
			mg.missing = append(mg.missing, i)
		}
	}
	if !unknown || len(mg.missing) == 0 {
		return
	}
	scanned := 0
	for ui := range list {
		u := &list[ui]
		if u.Code != issues.UnrecognizedKeys || len(u.Allowed) == 0 {
			continue
		}
		if scanned++; scanned > maxMergeScan {
			return
		}
		for _, k := range u.Keys[:min(len(u.Keys), maxListed)] {
			c, ok := meantBy(u, k)
			if !ok {
				continue
			}
			for _, mi := range mg.missing {
				if childOf(list[mi].Path, u.Path, c) && !s.mergedMissing(mi) {
					mg.list = append(mg.list, merged{miss: mi, unk: ui, key: k, sugg: c})
					break
				}
			}
		}
		s.mergeLone(list, ui)
	}
}

// mergeLone merges the one key left unknown in an object of a closed
// schema with the one required field left missing there, when the key's
// value has the field's type ('qty' sent where 'quantity' is missing): too
// far apart to be a misspelling, still the field sent under another name.
// A near miss (an open schema) is left alone: its other keys were accepted.
func (s *state) mergeLone(list issues.List, ui int) {
	mg := &s.mg
	u := &list[ui]
	if u.Check != "" {
		return
	}
	key, n := "", 0
	for _, k := range u.Keys {
		if !s.keyMerged(ui, k) {
			key, n = k, n+1
		}
	}
	if n != 1 {
		return
	}
	miss := -1
	for _, mi := range mg.missing {
		p := list[mi].Path
		if len(p) != len(u.Path)+1 || !slices.Equal(p[:len(u.Path)], u.Path) || s.mergedMissing(mi) {
			continue
		}
		if miss >= 0 {
			return // two fields missing: which one the key stands for is a guess
		}
		miss = mi
	}
	if miss < 0 {
		return
	}
	name, ok := list[miss].Path[len(u.Path)].(string)
	obj, isObj := u.Input.(map[string]any)
	if !ok || !isObj {
		return
	}
	if v, sent := obj[key]; !sent || !ofType(v, list[miss].Expected) {
		return
	}
	mg.list = append(mg.list, merged{miss: miss, unk: ui, key: key, sugg: name})
}

// ofType reports whether v has one of the types want lists (any type when
// it lists none).
func ofType(v any, want issues.Types) bool {
	if want == 0 {
		return true
	}
	var t issues.Types
	switch kindOf(v) {
	case kindString:
		t = issues.TypeString
	case kindNumber:
		if want.Has(issues.TypeInteger) && isIntegral(numberText(v)) {
			return true
		}
		t = issues.TypeNumber
	case kindBoolean:
		t = issues.TypeBoolean
	case kindNull:
		t = issues.TypeNull
	case kindObject:
		t = issues.TypeObject
	case kindArray:
		t = issues.TypeArray
	default:
		return false
	}
	return want.Has(t)
}

func (s *state) mergedMissing(i int) bool {
	for _, m := range s.mg.list {
		if m.miss == i {
			return true
		}
	}
	return false
}

// keyMerged reports whether key k of the unrecognized_keys issue at index
// u is written in a missing field's line.
func (s *state) keyMerged(u int, k string) bool {
	for _, m := range s.mg.list {
		if m.unk == u && m.key == k {
			return true
		}
	}
	return false
}

// mergedAway reports whether every key of the unrecognized_keys issue at
// index i is written in missing fields' lines: it has no line of its own.
func (s *state) mergedAway(list issues.List, i int) bool {
	is := &list[i]
	if is.Code != issues.UnrecognizedKeys {
		return false
	}
	for _, k := range is.Keys {
		if !s.keyMerged(i, k) {
			return false
		}
	}
	return true
}

// emitMerged writes the line of the issue at index i when a merge changes
// it: a missing field's merged line, or an unrecognized_keys line without
// its merged keys. handled is false when no merge touches the issue.
func (s *state) emitMerged(list issues.List, i int) (handled, ok bool) {
	mg := &s.mg
	for _, m := range mg.list {
		if m.miss != i {
			continue
		}
		miss, u := &list[i], &list[m.unk]
		mg.pair = [2]string{m.key, m.sugg}
		mg.issue = issues.Issue{Code: u.Code, Path: miss.Path, Keys: mg.pair[:1], Allowed: mg.pair[1:2],
			Expected: miss.Expected, Check: u.Check, Source: u.Source}
		// The suggestions memo is keyed by the issue's address, which
		// every merged line shares: it holds this line's suggestion, the
		// one the merge was found by (the closest of one allowed key to
		// the key sent is that key).
		s.suggFor, s.sugg = &mg.issue, append(s.sugg[:0], m.sugg)
		return true, s.emitLine(&miss.Path, &mg.issue, miss)
	}
	u := &list[i]
	if u.Code != issues.UnrecognizedKeys {
		return false, false
	}
	keys, cut := mg.keys[:0], false
	for _, k := range u.Keys {
		if s.keyMerged(i, k) {
			cut = true
			continue
		}
		keys = append(keys, k)
	}
	mg.keys = keys
	if !cut {
		return false, false
	}
	mg.issue = *u
	mg.issue.Keys = keys
	if u.Check == issues.CheckNearMiss {
		// A near miss's Allowed are what its keys stand for, not a list of
		// "only" keys: what the merged ones stood for goes with them.
		// (Only the keys a line lists are looked at, as in findMerges.)
		mg.allowed = mg.allowed[:0]
		for _, k := range keys[:min(len(keys), maxListed)] {
			if c, ok := meantBy(u, k); ok && !slices.Contains(mg.allowed, c) {
				mg.allowed = append(mg.allowed, c)
			}
		}
		mg.issue.Allowed = mg.allowed
	}
	s.suggFor = nil
	return true, s.emitLine(&u.Path, &mg.issue, nil)
}

// meantBy returns the allowed key the model meant by k, a key of the
// unrecognized_keys issue u: for a near miss as the adapter found it (the
// same name written another way, "DRY_RUN" for "dryRun", first), else the
// closest allowed key.
func meantBy(u *issues.Issue, k string) (string, bool) {
	if u.Check == issues.CheckNearMiss {
		for _, a := range u.Allowed {
			if nearmiss.SameName(k, a) {
				return a, true
			}
		}
	}
	return nearmiss.Closest(k, u.Allowed)
}

// childOf reports whether p is parent with the key k appended.
func childOf(p, parent issues.Path, k string) bool {
	if len(p) != len(parent)+1 {
		return false
	}
	if last, ok := p[len(parent)].(string); !ok || last != k {
		return false
	}
	return samePath(p[:len(parent)], parent)
}

// samePath reports whether two paths hold the same elements.
func samePath(a, b issues.Path) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameElem(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sameElem compares two path elements of the kinds a path holds, without
// the panic == gives on an uncomparable value.
func sameElem(a, b any) bool {
	switch a := a.(type) {
	case string:
		b, ok := b.(string)
		return ok && a == b
	case int:
		b, ok := b.(int)
		return ok && a == b
	case int64:
		b, ok := b.(int64)
		return ok && a == b
	case uint64:
		b, ok := b.(uint64)
		return ok && a == b
	}
	return false
}

// reset drops what the last call's merges held of its issues, so that a
// pooled state pins none of a caller's values.
func (mg *mergeState) reset() {
	if len(mg.list) == 0 {
		return // nothing merged: nothing held
	}
	clear(mg.list)
	clear(mg.keys)
	clear(mg.allowed)
	mg.list, mg.keys, mg.allowed = mg.list[:0], mg.keys[:0], mg.allowed[:0]
	mg.issue, mg.pair = issues.Issue{}, [2]string{}
}
