package envelope

import "time"

// Builder is the fluent form of a [ToolError], started by [Error]. Every
// setter returns the same *Builder so calls chain, and the *Builder is itself
// the result: it is an error (errors.As and [Wrap] find it through wrapping)
// and renders with String. There is no Build step.
//
// The XML is rendered by String, so setters cost no more than the
// assignment. Setters must not run concurrently with anything else, but a
// finished Builder may be read (String, Error) from many goroutines.
//
// A nil *Builder is valid: it renders as a generic INTERNAL_ERROR envelope and
// its setters do nothing, so a forgotten constructor never panics a server.
type Builder struct {
	e ToolError
}

// Error starts a tool error with a code and the message the model reads; the
// Go form of the origin document's f.error(code, message). The severity is
// error until [Builder.Warning] or [Builder.Critical] changes it.
func Error(code Code, message string) *Builder {
	return &Builder{e: ToolError{Code: code, Severity: SeverityError, Message: message}}
}

// set applies f to the envelope of a non-nil b.
func (b *Builder) set(f func(e *ToolError)) *Builder {
	if b != nil {
		f(&b.e)
	}
	return b
}

// Suggest sets the recovery: what the model should do next. A later call
// replaces it.
func (b *Builder) Suggest(recovery string) *Builder {
	return b.set(func(e *ToolError) { e.Recovery = recovery })
}

// Actions appends tool actions the model may call instead, in order.
func (b *Builder) Actions(actions ...string) *Builder {
	return b.set(func(e *ToolError) { e.Actions = append(e.Actions, actions...) })
}

// Warning marks the envelope as guidance on a success (isError false).
func (b *Builder) Warning() *Builder {
	return b.set(func(e *ToolError) { e.Severity = SeverityWarning })
}

// Critical marks the envelope as a failure that retrying will not fix.
func (b *Builder) Critical() *Builder {
	return b.set(func(e *ToolError) { e.Severity = SeverityCritical })
}

// Detail adds a key/value detail. Details keep insertion order; adding a key
// that is already present replaces its value in place, so a detail set twice
// is not written twice.
func (b *Builder) Detail(key, value string) *Builder {
	return b.set(func(e *ToolError) {
		for i := range e.Details {
			if e.Details[i].Key == key {
				e.Details[i].Value = value
				return
			}
		}
		e.Details = append(e.Details, Detail{key, value})
	})
}

// RetryAfter sets how long the model should wait before calling again. It is
// written in seconds, rounded up: to the millisecond below 10 seconds, to
// the second from there, capped at 24 hours; zero or negative removes the
// section.
func (b *Builder) RetryAfter(d time.Duration) *Builder {
	return b.set(func(e *ToolError) { e.RetryAfter = d })
}

// brand marks *Builder as one of this package's envelopes for [Wrap], which
// gets a copy of the envelope: later setters and changes to the copy do not
// affect each other.
func (b *Builder) brand() ToolError { return b.value().clone() }

// value returns the envelope without copying its slices, for rendering. A
// nil *Builder gives the generic INTERNAL_ERROR envelope.
func (b *Builder) value() ToolError {
	if b == nil {
		return internal
	}
	return b.e
}

// Error returns the short "CODE: message" form, as [ToolError.Error].
func (b *Builder) Error() string { return b.value().Error() }

// String returns the <tool_error> XML, as [ToolError.String].
func (b *Builder) String() string { return b.value().String() }

// appendXML appends the <tool_error> XML to dst.
func (b *Builder) appendXML(dst []byte) []byte { return b.value().appendXML(dst) }
