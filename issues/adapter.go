package issues

// Adapter reads the raw errors of one validation library into issues: it
// appends the issues of err to dst and reports whether err was one it
// reads (dst unchanged when not). Each package under adapters/ has one,
// Errors, which a user hands to selfheal.WithAdapters; an adapter for
// another library is a function of this type. What it appends is the
// caller's: it shares no memory with the adapter's own state.
type Adapter func(dst List, err error) (List, bool)
