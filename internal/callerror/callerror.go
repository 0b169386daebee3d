package callerror

import "github.com/selfheal/selfheal/envelope"

// FromDocument returns the CallError of a parsed envelope doc (from
// envelope.Parse) and the result text it was read from, or nil when doc
// holds neither envelope. It does not look at the severity: a client that
// received a warning on a success should not make it an error. An empty
// code reads as INTERNAL_ERROR and an unknown severity as error, as they
// are rendered (see envelope.CallError for the flattening).
func FromDocument(doc envelope.Document, text string) *envelope.CallError {
	switch {
	case doc.ToolError != nil:
		e := doc.ToolError
		code, sev := e.Code, e.Severity
		if code == "" {
			code = envelope.InternalError
		}
		if sev != envelope.SeverityCritical && sev != envelope.SeverityWarning {
			sev = envelope.SeverityError
		}
		return &envelope.CallError{
			Code: code, Severity: sev, Message: e.Message,
			Recovery: e.Recovery, Actions: e.Actions, Details: e.Details, RetryAfter: e.RetryAfter,
			Text: text,
		}
	case doc.Validation != nil:
		v := doc.Validation
		return &envelope.CallError{
			Code: envelope.ValidationErrorCode, Severity: envelope.SeverityError, Recovery: v.Recovery,
			Action: v.Action, Fields: v.Fields, More: v.More, ServerMessage: v.ServerMessage, Contract: v.Contract,
			Text: text,
		}
	}
	return nil
}
