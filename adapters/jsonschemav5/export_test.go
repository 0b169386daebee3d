package jsonschemav5

import "github.com/selfheal/selfheal/issues"

// Issues converts err without a schema, as selfheal's Engine does with a
// raw error, for the tests.
func Issues(err error, instance any) (issues.List, bool) {
	return (*Schema)(nil).AppendIssues(nil, err, instance)
}

// AppendIssues is Issues appending to dst, for the tests.
func AppendIssues(dst issues.List, err error, instance any) (issues.List, bool) {
	return (*Schema)(nil).AppendIssues(dst, err, instance)
}

// Issues is AppendIssues into a new list, for the tests.
func (s *Schema) Issues(err error, instance any) (issues.List, bool) {
	return s.AppendIssues(nil, err, instance)
}
