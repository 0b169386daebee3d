package nearmiss

import "github.com/selfheal/selfheal/issues"

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
// SameName, Closest). The proxy answers near misses itself with this rule,
// since many servers drop undeclared keys whatever their schema says.
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
			if SameName(k, a) {
				return true
			}
		}
		if _, ok := Closest(k, unsent); ok {
			return true
		}
	}
	return false
}
