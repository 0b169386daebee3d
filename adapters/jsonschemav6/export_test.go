package jsonschemav6

import (
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal/issues"
)

// Compiled returns the library's compiled schema, for the tests.
func (s *Schema) Compiled() *jsonschema.Schema { return s.sch }

// AppendIssues is appendIssues, for the tests.
func (s *Schema) AppendIssues(dst issues.List, err error, instance any) (issues.List, bool) {
	return s.appendIssues(dst, err, instance)
}

// Issues converts err without a schema, as selfheal's Engine does with a
// raw error, for the tests.
func Issues(err error, instance any) (issues.List, bool) {
	return (*Schema)(nil).appendIssues(nil, err, instance)
}

// AppendIssues is Issues appending to dst, for the tests.
func AppendIssues(dst issues.List, err error, instance any) (issues.List, bool) {
	return (*Schema)(nil).appendIssues(dst, err, instance)
}

// Issues is AppendIssues into a new list, for the tests.
func (s *Schema) Issues(err error, instance any) (issues.List, bool) {
	return s.appendIssues(nil, err, instance)
}

// DefaultLocation is defaultLocation, for the tests.
const DefaultLocation = defaultLocation
