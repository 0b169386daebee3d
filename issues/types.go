package issues

import (
	"fmt"
	"iter"
	"strings"
)

// Types is the expected types of an invalid_type issue: a set of JSON
// types that keeps the order its source listed them in, so that a
// schema's ["null", "integer"] is worded "null or an integer" and written
// in JSON as "null|integer", while ["integer", "null"] keeps its own
// order. The zero value names no type: any type is expected.
//
// Each type takes four bits, the first listed in the lowest; a value not
// built from the Type constants with Or may hold codes that name no type,
// which every method skips.
type Types uint32

// The JSON types, each a Types of one. Or lists several:
// issues.TypeString.Or(issues.TypeNull) is "string|null". They are codes,
// not bit flags: TypeString|TypeNull is not a list of both.
const (
	TypeString Types = iota + 1
	TypeNumber
	TypeInteger
	TypeBoolean
	TypeNull
	TypeObject
	TypeArray
)

// typeNames are the JSON names of the types, by code.
var typeNames = [...]string{TypeString: "string", TypeNumber: "number", TypeInteger: "integer",
	TypeBoolean: "boolean", TypeNull: "null", TypeObject: "object", TypeArray: "array"}

// valid reports whether code names a type.
func valid(code Types) bool { return code >= TypeString && code <= TypeArray }

// Or returns s followed by the types of t that s does not have, in t's
// order.
func (s Types) Or(t Types) Types {
	n := 0
	for ; n < 8 && s>>(4*n) != 0; n++ {
	}
	for c := range t.All() {
		if n == 8 || s.Has(c) {
			continue
		}
		s |= c << (4 * n)
		n++
	}
	return s
}

// Has reports whether every type of t is one of s's: a single type's
// membership, as in is.Expected.Has(issues.TypeNull).
func (s Types) Has(t Types) bool {
	for c := range t.All() {
		found := false
		for d := range s.All() {
			if d == c {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// All yields each type of s, one at a time, in s's order.
func (s Types) All() iter.Seq[Types] {
	return func(yield func(Types) bool) {
		for ; s != 0; s >>= 4 {
			if c := s & 0xf; valid(c) && !yield(c) {
				return
			}
		}
	}
}

// String writes s as its JSON form does: the type names in order,
// joined by "|" ("string|null"), or "" for no type.
func (s Types) String() string {
	if valid(s) {
		return typeNames[s] // one type: no allocation
	}
	var b strings.Builder
	for c := range s.All() {
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		b.WriteString(typeNames[c])
	}
	return b.String()
}

// parseTypes reads the String form back, as UnmarshalJSON does: JSON type
// names joined by "|", in the order they are to be worded ("" is no
// type). A name repeated is kept once; a name that is not a JSON type is
// an error.
func parseTypes(str string) (Types, error) {
	var s Types
	if str == "" {
		return 0, nil
	}
	for name := range strings.SplitSeq(str, "|") {
		c := Types(0)
		for code := TypeString; code <= TypeArray; code++ {
			if typeNames[code] == name {
				c = code
				break
			}
		}
		if c == 0 {
			return 0, fmt.Errorf("issues: %q is not a JSON type", name)
		}
		s = s.Or(c)
	}
	return s, nil
}
