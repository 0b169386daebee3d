package formatter

import "github.com/selfheal/selfheal/issues"

// formatParam returns the parameter of is's format or check, which the
// catalogs write as {pattern}: the regex, prefix, suffix, text, layout,
// country or property name, each held in its own field of the issue.
// One is set at most; if a caller set several, the first in this order
// is shown.
func formatParam(is *issues.Issue) string {
	switch {
	case is.Pattern != "":
		return is.Pattern
	case is.Prefix != "":
		return is.Prefix
	case is.Suffix != "":
		return is.Suffix
	case is.Includes != "":
		return is.Includes
	case is.Layout != "":
		return is.Layout
	case is.Country != "":
		return is.Country
	case is.UniqueBy != "":
		return is.UniqueBy
	}
	return is.Param
}
