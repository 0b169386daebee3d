package issuesx

import "github.com/selfheal/selfheal/issues"

// Adapter reads the raw errors of one validation library into issues: the
// value each package under adapters/ exports as Errors, which a user hands
// to selfheal.WithAdapters (selfheal.Adapter is this type). Its function
// is unexported so that only the module calls it: it appends issues that
// may share slices with the adapter's caches, which the Engine renders
// without owning them.
type Adapter struct {
	appendTo func(dst issues.List, err error) (issues.List, bool)
}

// NewAdapter returns the Adapter of f, which appends the issues of err to
// dst and reports whether err was one it converts (dst unchanged when not).
func NewAdapter(f func(dst issues.List, err error) (issues.List, bool)) Adapter {
	return Adapter{appendTo: f}
}

// AppendAdapted runs a's converter: the issues of err appended to dst, not
// owned (see Own). The zero Adapter converts nothing.
func AppendAdapted(a Adapter, dst issues.List, err error) (issues.List, bool) {
	if a.appendTo == nil {
		return dst, false
	}
	return a.appendTo(dst, err)
}
