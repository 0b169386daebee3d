package envelope

import (
	"context"
	"errors"
)

// branded is implemented by this package's envelope types only (ToolError,
// *ToolError, *Builder); the unexported method keeps other types out.
type branded interface {
	error
	brand() ToolError
}

// internal is what an unexpected failure becomes. The message says nothing of
// the cause: the raw error belongs in the server log, not in front of the
// model (it may hold paths, SQL or secrets, and the model cannot act on it).
var internal = ToolError{
	Code:     InternalError,
	Severity: SeverityError,
	Message:  "The tool failed because of an internal error.",
	Recovery: "This is not caused by your arguments. Do not retry the same call blindly; if it fails again, tell the user the tool is not working.",
}

// timeout is what context.DeadlineExceeded becomes.
var timeout = ToolError{
	Code:     Timeout,
	Severity: SeverityError,
	Message:  "The tool call did not finish in time.",
	Recovery: "Retry once, with a smaller request if you can. If it times out again, tell the user.",
}

// Wrap turns any error a tool handler returned into the envelope to send:
//
//   - an envelope of this package anywhere in err's tree (a *Builder, a
//     ToolError or a *ToolError, found with errors.As semantics) comes back
//     unchanged, code, severity and sections kept: a handler may return
//     envelope.Error(...) or wrap it with fmt.Errorf("...: %w", ...). Its
//     Actions and Details are copies: changing the result changes neither
//     err nor what Wrap returns for it next;
//   - an error matching context.DeadlineExceeded becomes TIMEOUT;
//   - anything else, including nil and a nil *Builder or *ToolError, becomes
//     INTERNAL_ERROR with a generic message that does not reveal err's text
//     (log err yourself) and a recovery telling the model not to retry the
//     same call blindly.
func Wrap(err error) ToolError {
	if b, ok := errors.AsType[branded](err); ok {
		if p, ok := b.(*ToolError); ok {
			if p == nil {
				return internal
			}
			return p.clone()
		}
		return b.brand()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return timeout
	}
	return internal
}

// FromPanic turns a value recovered from a panic into the envelope to send,
// as [Wrap] does for errors: an error value goes through Wrap (so panicking
// with an envelope keeps it), anything else becomes the generic
// INTERNAL_ERROR. Call it in the deferred function that recovers:
//
//	defer func() {
//		if v := recover(); v != nil {
//			log.Printf("tool panic: %v", v)
//			res = envelope.FromPanic(v)
//		}
//	}()
func FromPanic(v any) ToolError {
	if err, ok := v.(error); ok {
		return Wrap(err)
	}
	return internal
}
