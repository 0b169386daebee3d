package nearmiss

import (
	"strings"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

// Chosen returns the index of the alternative of union, an invalid_union
// issue, that a model most likely meant, and whether its JSON type matches
// the value sent; -1 when no alternative has an issue. It is the one rule
// for every adapter, so that what the text shows and what the structured
// issues hold is the same alternative:
//
//  1. only an alternative whose type matches the value can be closest
//     (a value of the wrong type is the one fault an alternative of that
//     type cannot explain: "Expected a string" for an object is no fix);
//  2. among those, one whose discriminator matches (a member the
//     alternative fixes to one value, by const or a one-value enum): one
//     that did not fail on it, then one whose value was sent in another
//     case ('Webhook' for 'webhook'), then in another spelling (a few
//     edits away, 'webhok'), then the others;
//  3. then the fewest failures, then the deepest (it got furthest).
//
// typed is false when no alternative's type matches: no alternative is
// closer than another, and a line says what each expects. sure says the
// choice is beyond doubt: the alternative chosen is the only one whose
// type matches, or the only one whose discriminator is that close to the
// value sent. A line of such an alternative needs no "closest of N
// alternatives": the model chose it.
func Chosen(union *issues.Issue) (best int, typed, sure bool) {
	var bTyped bool
	best = -1
	var bDisc, bN, bDepth int
	var nTyped, nDisc int // alternatives whose type matches, and of those as close by discriminator as the best
	for i, br := range union.Branches {
		if len(br) == 0 {
			continue
		}
		typed, disc, n, depth := !typeMiss(br, union), 0, len(br), 0
		for j := range br {
			b := &br[j]
			if b.Check == issuesx.CheckOmitted {
				n += issuesx.OmittedCount(b) - 1 // counted, not built: issues all the same
				continue
			}
			depth = max(depth, len(b.Path))
			if d := discMiss(b, union); d > disc {
				disc = d
			}
		}
		if typed {
			nTyped++
			switch {
			case best < 0 || !bTyped || disc < bDisc:
				nDisc = 1
			case disc == bDisc:
				nDisc++
			}
		}
		better := best < 0
		switch {
		case better:
		case typed != bTyped:
			better = typed
		case disc != bDisc:
			better = disc < bDisc
		case n != bN:
			better = n < bN
		default:
			better = depth > bDepth
		}
		if better {
			best, bTyped, bDisc, bN, bDepth = i, typed, disc, n, depth
		}
	}
	return best, bTyped, bTyped && (nTyped == 1 || nDisc == 1 && bDisc < discFar)
}

// typeMiss reports whether the alternative whose issues are br refuses the
// union's value for its JSON type: a type issue at the union's own path, a
// const or enum there none of whose values has the value's type, or a
// union there none of whose alternatives' types match.
func typeMiss(br []issues.Issue, union *issues.Issue) bool {
	for j := range br {
		b := &br[j]
		if len(b.Path) != len(union.Path) {
			continue
		}
		switch b.Code {
		case issues.InvalidType:
			if !b.Absent {
				return true
			}
		case issues.InvalidValue:
			kind := jsonKind(union.Input)
			if kind == "" || len(b.Values) == 0 {
				continue
			}
			miss := true
			for _, v := range b.Values {
				if jsonKind(v) == kind {
					miss = false
					break
				}
			}
			if miss {
				return true
			}
		case issues.InvalidUnion:
			if _, typed, _ := Chosen(b); !typed && len(b.Branches) > 0 {
				return true
			}
		}
	}
	return false
}

// Discriminates reports whether b, an issue of an alternative of union,
// is the alternative's discriminator refusing the value sent: a member of
// the union's object the alternative fixes to one value.
func Discriminates(b, union *issues.Issue) bool { return discMiss(b, union) > 0 }

// Discriminator misses, from closest to farthest: none (0), a value sent
// as another way of writing the same name (1), a value a few edits away
// (2), another value (3).
const (
	discSame = 1
	discNear = 2
	discFar  = 3
)

// discMiss says how far b, an issue of an alternative of union, is from
// the value of a discriminator: a member of the union's object the
// alternative fixes to one value.
func discMiss(b, union *issues.Issue) int {
	if b.Code != issues.InvalidValue || len(b.Values) != 1 || len(b.Path) != len(union.Path)+1 {
		return 0
	}
	if _, ok := b.Path[len(union.Path)].(string); !ok {
		return 0
	}
	switch NearValue(b.Input, b.Values[0]) {
	case 1:
		return discSame
	case 2:
		return discNear
	}
	return discFar
}

// NearValue says how near sent is to want, a value it is not: 1 when both
// are strings that are one name written another way (another case, '_' or
// '-': see SameName), 2 when a few edits apart (see
// Closest), else 0.
func NearValue(sent, want any) int {
	s, ok1 := sent.(string)
	w, ok2 := want.(string)
	switch {
	case !ok1 || !ok2 || s == w:
		return 0
	case strings.EqualFold(s, w) || SameName(s, w):
		return 1
	}
	if _, ok := Closest(s, []string{w}); ok {
		return 2
	}
	return 0
}

// jsonKind is the JSON type of a decoded value, numbers as one kind, ""
// when it is none the JSON types name.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case float64, float32, int, int64, int32, uint64, interface{ Int64() (int64, error) }:
		return "number"
	}
	return ""
}
