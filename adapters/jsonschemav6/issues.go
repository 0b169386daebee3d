package jsonschemav6

import (
	"github.com/selfheal/selfheal/internal/schemav6"
	"github.com/selfheal/selfheal/issues"
)

// appendIssues converts err, a failure of the library's Validate of
// instance against s's compiled schema, into normalized issues appended to
// dst, with what s knows of its schema: bounds exactly as the schema wrote
// them (when s was built by Compile), the declared property names next to
// unrecognized keys, and the expected type of a missing property. instance
// is the value that was validated (decoded with json.Decoder.UseNumber for
// exact numbers); the value shown for each issue is read from it at the
// issue's instance location. It returns dst unchanged,
// with false, when err holds no *jsonschema.ValidationError. Validate,
// AppendValidate and ValidateJSON convert through it; an error from
// validating with the library directly goes to selfheal's Engine, which
// recognises it. A caller that keeps dst[:0] from one call to the next
// converts failures without allocating a list.
//
// A call appends at most 1,000 issues; past them it counts the others,
// without building them, into one issue at the end whose Omitted holds
// their number. Each
// inner list (a union's branches, the issues of a key or of a string's
// content) is capped the same way.
//
// The issues share strings and slices (Path, Allowed, Values, Keys …) with
// s, with err and with instance, the same ones from call to call: the
// public methods own them (see issuesx.Own) before handing them out.
func (s *Schema) appendIssues(dst issues.List, err error, instance any) (issues.List, bool) {
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
