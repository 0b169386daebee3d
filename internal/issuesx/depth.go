package issuesx

import "github.com/selfheal/selfheal/issues"

// CheckDepth is issues.CheckDepth, for the packages still calling it here.
func CheckDepth(v any, max int) (issues.Issue, bool) { return issues.CheckDepth(v, max) }
