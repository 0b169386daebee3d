package envelope

// Code is the machine-readable reason a tool call failed, written as the code
// attribute of <tool_error>. The constants below are the canonical set, so
// editors can complete them; any other non-empty string is accepted as a
// custom code and written as is (escaped). An empty Code is written as
// INTERNAL_ERROR: every envelope carries a code a client can switch on, and a
// missing one means a bug upstream, not a caller mistake.
type Code string

// The canonical codes. Their values are the wire names of the origin document.
// VALIDATION_ERROR is ValidationErrorCode, because ValidationError names the
// <validation_error> envelope type.
const (
	MissingDiscriminator       Code = "MISSING_DISCRIMINATOR"        // a union's discriminator field is absent
	UnknownAction              Code = "UNKNOWN_ACTION"               // the requested action does not exist
	ValidationErrorCode        Code = "VALIDATION_ERROR"             // arguments failed validation (named apart from the ValidationError type)
	MissingRequiredField       Code = "MISSING_REQUIRED_FIELD"       // a required argument is absent
	InternalError              Code = "INTERNAL_ERROR"               // a bug or an unexpected failure on the server
	RateLimited                Code = "RATE_LIMITED"                 // too many calls; carries retry_after
	Unauthorized               Code = "UNAUTHORIZED"                 // the caller is not authenticated
	Forbidden                  Code = "FORBIDDEN"                    // authenticated, but not allowed
	NotFound                   Code = "NOT_FOUND"                    // the addressed resource does not exist
	Conflict                   Code = "CONFLICT"                     // the call conflicts with the current state
	Timeout                    Code = "TIMEOUT"                      // the call did not finish in time
	ServerBusy                 Code = "SERVER_BUSY"                  // load shedding: queue or slow down
	Deprecated                 Code = "DEPRECATED"                   // the action or parameter is deprecated
	AuthRequired               Code = "AUTH_REQUIRED"                // the user must authorize first
	HandoffUpstreamUnavailable Code = "HANDOFF_UPSTREAM_UNAVAILABLE" // a delegated upstream server is down
	HandoffNamespaceMismatch   Code = "HANDOFF_NAMESPACE_MISMATCH"   // a delegated call named the wrong namespace
	HandoffConnecting          Code = "HANDOFF_CONNECTING"           // a delegated upstream is still connecting
)

// orInternal returns c, or InternalError when c is empty.
func (c Code) orInternal() Code {
	if c == "" {
		return InternalError
	}
	return c
}

// Severity says whether a tool_error means failure. It is written as the
// severity attribute. The zero value and any unknown value mean
// SeverityError: a typo must never turn a failure into a success.
type Severity string

const (
	// SeverityError: the action failed (isError true).
	SeverityError Severity = "error"
	// SeverityCritical: the action failed and simply retrying will not help
	// (isError true).
	SeverityCritical Severity = "critical"
	// SeverityWarning: guidance riding on a success, such as a deprecated
	// parameter, a fallback applied or a truncated result (isError false).
	SeverityWarning Severity = "warning"
)

// norm returns the severity as written: one of the three constants.
func (s Severity) norm() Severity {
	if s == SeverityCritical || s == SeverityWarning {
		return s
	}
	return SeverityError
}
