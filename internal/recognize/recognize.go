package recognize

import "github.com/selfheal/selfheal/issues"

// Func appends the issues of err to dst and reports whether err was one it
// converts; when not, it returns dst unchanged.
type Func func(dst issues.List, err error) (issues.List, bool)

// funcs and fallbacks are written only by init functions, which all
// finish before any other goroutine starts, so reading them needs no lock.
var funcs, fallbacks []Func

// Register adds f, a converter that recognises its errors by their type
// first (a type switch, as validator's adapter does). Adapters call it
// from init, and only from init.
func Register(f Func) { funcs = append(funcs, f) }

// RegisterFallback adds f, a converter that costs something on every error
// it does not recognise (errors.As, which allocates its target, or reading
// the error's text, as encoding/json's unknown-field error needs): it runs
// after every converter added by Register, whatever the order of init
// (see AppendFallback).
func RegisterFallback(f Func) { fallbacks = append(fallbacks, f) }

// AppendTyped runs the converters of Register in order of registration
// and returns the answer of the first one that recognises err.
func AppendTyped(dst issues.List, err error) (issues.List, bool) {
	return run(funcs, dst, err)
}

// AppendFallback does the same with the converters of RegisterFallback;
// a caller tries it last.
func AppendFallback(dst issues.List, err error) (issues.List, bool) {
	return run(fallbacks, dst, err)
}

func run(fs []Func, dst issues.List, err error) (issues.List, bool) {
	for _, f := range fs {
		if out, ok := f(dst, err); ok {
			return out, true
		}
	}
	return dst, false
}
