package jsonschemav5

import (
	"github.com/selfheal/selfheal/internal/schemav5"
	"github.com/selfheal/selfheal/issues"
)

// appendIssues converts err, a failure of the library's Validate of
// instance against s's compiled schema, into normalized issues appended to
// dst, with what s knows of its schema (see internal/schemav5's
// Schema.AppendIssues): constraint values and bounds exactly as the
// document wrote them (when s was built by Compile). It returns dst
// unchanged, with false, when err is not a failure of validation.
// Validate, AppendValidate and ValidateJSON convert through it; an error
// from validating with the library directly goes to selfheal's Engine,
// which recognises it.
//
// The issues share slices (Values, Allowed …) with s and with instance:
// the public methods own them (see issuesx.Own) before handing them out.
func (s *Schema) appendIssues(dst issues.List, err error, instance any) (issues.List, bool) {
	return s.known().AppendIssues(dst, err, instance)
}

// known is what s knows of its schema for converting failures; nil for a
// nil s.
func (s *Schema) known() *schemav5.Schema {
	if s == nil {
		return nil
	}
	return s.k
}
