package issuesx

import (
	"strconv"
	"strings"

	"github.com/selfheal/selfheal/internal/suggest"
	"github.com/selfheal/selfheal/issues"
)

// Codes lists every code in a fixed order, for tests and tooling that must
// cover them all.
var Codes = []issues.Code{issues.InvalidType, issues.TooSmall, issues.TooBig, issues.InvalidFormat,
	issues.NotMultipleOf, issues.UnrecognizedKeys, issues.InvalidUnion, issues.InvalidKey,
	issues.InvalidElement, issues.InvalidValue, issues.Custom}

// Compare orders issues for display: by path (see issues.Path.Compare),
// then by code. Adapters may report in any order; this is the one order
// shown.
func Compare(a, b *issues.Issue) int {
	if c := a.Path.Compare(b.Path); c != 0 {
		return c
	}
	return strings.Compare(string(a.Code), string(b.Code))
}

// SourceTypo is the Source of a CheckNearMiss issue: no native check
// failed, the adapter found the near miss itself.
const SourceTypo = "selfheal:typo"

// HasNearMiss reports whether list holds a near miss: an undeclared key
// that stands for a declared property the object does not have
// ("dryrun" for "dryRun", "rol" for "role"). It is either an
// unrecognized_keys issue with Check issues.CheckNearMiss, which the JSON
// Schema adapters build (with Source SourceTypo) for an open schema, or a
// closed schema's unrecognized_keys issue (its Allowed the declared
// properties, its Input the object) one of whose keys is close to a
// declared property not sent, by the formatter's own rule (see
// suggest.SameName, suggest.Closest). A caller that answers near misses
// itself (the proxy does, before forwarding a call the server would get
// wrong: many servers drop undeclared keys whatever their schema says)
// recognises them by this rule alone, whatever else the list holds.
//
// A key that stands for an optional property is the near-miss issue
// alone: the tool would ignore the key. One that stands for a required
// property is the near-miss issue too, and the library's missing-property
// issue (invalid_type, absent, at the property's path) is beside it in the
// list, as a closed schema reports its unrecognized key beside the
// missing property: the tool would refuse the call. The formatter words
// the pair as one line at the property. Answer with the whole list: its
// other issues are the call's other problems.
func HasNearMiss(list issues.List) bool {
	for i := range list {
		is := &list[i]
		if is.Code != issues.UnrecognizedKeys {
			continue
		}
		if is.Check == issues.CheckNearMiss || closedNearMiss(is) {
			return true
		}
	}
	return false
}

// maxNearMissKeys bounds the keys of one issue HasNearMiss compares: a
// model may send any number, and one near miss among the first is enough.
const maxNearMissKeys = 64

// closedNearMiss reports whether a closed schema's unrecognized_keys issue
// has a key close to a declared property the object lacks.
func closedNearMiss(is *issues.Issue) bool {
	obj, ok := is.Input.(map[string]any)
	if !ok || len(is.Allowed) == 0 {
		return false
	}
	var unsent []string
	for _, a := range is.Allowed {
		if _, sent := obj[a]; !sent {
			unsent = append(unsent, a)
		}
	}
	for _, k := range is.Keys[:min(len(is.Keys), maxNearMissKeys)] {
		for _, a := range unsent {
			if suggest.SameName(k, a) {
				return true
			}
		}
		if _, ok := suggest.Closest(k, unsent); ok {
			return true
		}
	}
	return false
}

// SourceDepth is the Source of the issue that refuses too deep a value
// (issues.CheckDepthJSON, CheckDepth); the issues package writes the
// same string.
const SourceDepth = "selfheal:depth"

// LastKey returns the last element of p as a string key, or "" when p is
// empty or ends in an index: the field's own name, to recognise fields by
// name (sensitive ones, say).
func LastKey(p issues.Path) string {
	if len(p) == 0 {
		return ""
	}
	s, _ := p[len(p)-1].(string)
	return s
}

// Int returns the value of n as an int64 when n is an integer literal
// that fits.
func Int(n issues.Number) (int64, bool) {
	v, err := strconv.ParseInt(string(n), 10, 64)
	return v, err == nil
}
