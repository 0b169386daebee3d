package formatter

import "github.com/selfheal/selfheal/issues"

// AppendLine is appendLine for the tests, which check lines one issue at a
// time; the module renders whole envelopes (AppendValidation, Fields).
func (f *Formatter) AppendLine(dst []byte, is *issues.Issue) []byte { return f.appendLine(dst, is) }
