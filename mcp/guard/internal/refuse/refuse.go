package refuse

import (
	"context"
	"errors"
	"time"

	"github.com/selfheal/selfheal/envelope"
)

// Busy is the answer to a call shed because every slot is taken.
func Busy() *envelope.ToolError {
	return &envelope.ToolError{
		Code:     envelope.ServerBusy,
		Severity: envelope.SeverityError,
		Message:  "The server is busy: too many calls of this tool are running or waiting.",
		Recovery: "Wait a few seconds, then call again. Send calls one at a time: wait for each result before the next call.",
	}
}

// RateLimited is the answer to a call above the rate; d is the exact time
// until a call would be admitted, which retry_after says rounded up to the
// millisecond (below 10 seconds; whole seconds from there).
func RateLimited(d time.Duration) *envelope.ToolError {
	return &envelope.ToolError{
		Code:       envelope.RateLimited,
		Severity:   envelope.SeverityError,
		Message:    "Too many calls of this tool: the rate limit is reached.",
		Recovery:   "Wait for the time in retry_after, then call again. Do not retry before then, and send calls one at a time.",
		RetryAfter: d,
	}
}

// Cancelled is the answer to a call whose context ended while it waited
// for a slot: TIMEOUT for a deadline, SERVER_BUSY for a cancellation.
func Cancelled(ctx context.Context) *envelope.ToolError {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &envelope.ToolError{
			Code:     envelope.Timeout,
			Severity: envelope.SeverityError,
			Message:  "The call timed out while waiting for the server: too many calls of this tool were running.",
			Recovery: "Wait a few seconds, then call again once. Send calls one at a time: wait for each result before the next call.",
		}
	}
	return &envelope.ToolError{
		Code:     envelope.ServerBusy,
		Severity: envelope.SeverityError,
		Message:  "The call was cancelled while waiting for the server; it did not run.",
		Recovery: "If the call is still needed, send it again, one call at a time.",
	}
}

// Unavailable is the answer to a call refused because the shared store of
// the limits cannot be reached and the guard fails closed.
func Unavailable() *envelope.ToolError {
	return &envelope.ToolError{
		Code:     envelope.ServerBusy,
		Severity: envelope.SeverityError,
		Message:  "The server cannot take calls right now: its call limits are unavailable.",
		Recovery: "Wait a few seconds, then call again once.",
	}
}
