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

// appendKeyParams writes the parameter fields of is to a plan key: every
// one, since {pattern} and {example} read them.
func appendKeyParams(dst []byte, is *issues.Issue) []byte {
	// One call per field: ranging over an array of them would copy all
	// eight strings first, and most are empty.
	dst = appendKeyString(dst, is.Pattern)
	dst = appendKeyString(dst, is.Prefix)
	dst = appendKeyString(dst, is.Suffix)
	dst = appendKeyString(dst, is.Includes)
	dst = appendKeyString(dst, is.Layout)
	dst = appendKeyString(dst, is.Country)
	dst = appendKeyString(dst, is.UniqueBy)
	return appendKeyString(dst, is.Param)
}
