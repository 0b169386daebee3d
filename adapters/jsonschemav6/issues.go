package jsonschemav6

import (
	"github.com/selfheal/selfheal/internal/schemav6"
	"github.com/selfheal/selfheal/issues"
)

// Issues converts a validation failure of jsonschema v6 into normalized
// issues. instance is the value that was validated (decoded with
// json.Decoder.UseNumber for exact numbers); the value shown for each issue is
// read from it at the issue's instance location. It reports false when err
// holds no *jsonschema.ValidationError.
//
// When the instance is not at hand (an error handed over alone, as
// selfheal's Engine gets it), pass issues.Unknown{} as instance: each issue
// then says what the error itself tells of the value sent (its JSON type,
// its length, the value itself for enum, const, format and pattern
// failures and its number for bounds) and nothing it does not.
//
// Without the compiled schema, Issues words what the error itself carries:
// bounds are written from the library's exact rationals (0.1 stays 0.1, but
// 1e9 is written 1000000000), a missing property's expected type is unknown
// and unrecognized keys come without the allowed ones. Use Compile, or
// FromCompiled and Schema.Issues, to get the schema's own literals and names.
func Issues(err error, instance any) (issues.List, bool) {
	return (*Schema)(nil).AppendIssues(nil, err, instance)
}

// AppendIssues is Issues appending to dst (see Schema.AppendIssues).
func AppendIssues(dst issues.List, err error, instance any) (issues.List, bool) {
	return (*Schema)(nil).AppendIssues(dst, err, instance)
}

// Issues is the package-level Issues with the knowledge of s: bounds exactly
// as the schema wrote them (when s was built by Compile), the declared
// property names next to unrecognized keys, and the expected type of a
// missing property. A nil s knows nothing.
func (s *Schema) Issues(err error, instance any) (issues.List, bool) {
	return s.AppendIssues(nil, err, instance)
}

// AppendIssues is Issues appending the issues to dst, which it returns
// unchanged, with false, when err holds no *jsonschema.ValidationError. A
// server that keeps dst[:0] from one call to the next converts failures
// without allocating a list.
//
// A call appends at most 1,000 issues; past them it counts the others,
// without building them, into one issue at the end whose Omitted holds
// their number. Each
// inner list (a union's branches, the issues of a key or of a string's
// content) is capped the same way.
//
// The issues share strings and slices (Path, Allowed, Values, Keys …) with
// s, with err and with instance, the same ones from call to call: treat
// them as read-only.
func (s *Schema) AppendIssues(dst issues.List, err error, instance any) (issues.List, bool) {
	return s.known().AppendIssues(dst, err, instance)
}

// known is what s knows of its schema for converting failures; nil for a
// nil s.
func (s *Schema) known() *schemav6.Schema {
	if s == nil {
		return nil
	}
	return s.k
}
