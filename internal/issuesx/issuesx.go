package issuesx

import (
	"strconv"
	"strings"

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
