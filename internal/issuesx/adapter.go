package issuesx

import "github.com/selfheal/selfheal/issues"

// NewAdapter returns f as an issues.Adapter whose issues are the caller's
// own (see Own): f may share slices with what the library keeps.
func NewAdapter(f func(dst issues.List, err error) (issues.List, bool)) issues.Adapter {
	return func(dst issues.List, err error) (issues.List, bool) {
		list, ok := f(dst, err)
		if ok {
			Own(list[len(dst):])
		}
		return list, ok
	}
}
