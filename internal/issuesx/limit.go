package issuesx

import "github.com/selfheal/selfheal/issues"

// BuildLimit is the most issues an adapter builds for one failure. A model
// may send 100,000 invalid items; a validation_error shows 20 lines at most
// by default, so building the rest would cost more than the validation did
// and show nothing. Past the limit an adapter counts what it finds and
// appends one Omitted issue carrying the count, so that the formatter's
// "… and N more" stays exact. The count rides in the marker's Input (it is
// Absent, so no reader takes it for a value sent): the public Issue has no
// field for the module's bookkeeping.
const BuildLimit = 1000

// CheckOmitted marks the issue that stands for issues counted but not built
// (see Omitted). It is never rendered as a line, nor sent as JSON.
const CheckOmitted = "omitted"

// Omitted returns the issue an adapter appends when it stops building
// issues at BuildLimit: it stands for n further issues found and counted.
func Omitted(n int) issues.Issue {
	return issues.Issue{Code: issues.Custom, Check: CheckOmitted, Input: n, Absent: true}
}

// OmittedCount returns the number of issues is stands for when it is an
// Omitted issue, and 0 otherwise.
func OmittedCount(is *issues.Issue) int {
	if n, ok := is.Input.(int); ok && is.Check == CheckOmitted && is.Code == issues.Custom {
		return n
	}
	return 0
}
