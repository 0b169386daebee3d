package clientcall

import (
	"cmp"
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/callerror"
)

// Backoff bounds for SERVER_BUSY and TIMEOUT (and RATE_LIMITED without a
// retry_after): the n-th retry waits a random duration in [d/2, d) with d
// = BaseBackoff << n, capped at MaxBackoff ("equal jitter").
const (
	BaseBackoff = 250 * time.Millisecond
	MaxBackoff  = 10 * time.Second
)

// Hints is what the retry policy needs of a tool's annotations. A tool is
// safe to call again when it is read-only or idempotent.
type Hints struct {
	ReadOnly, Idempotent bool
}

// Config is the policy of one call, set by the SDK packages' options.
type Config struct {
	Retries       int    // retries after the first attempt; 0: off
	NonIdempotent bool   // retry even a tool not known to be idempotent
	Hints         *Hints // the tool's annotations; nil: unknown
	// InputRequired is the error a result asking for input is returned
	// with: each SDK package's own ErrInputRequired; nil: ErrInputRequired.
	InputRequired error

	// Injected for tests; nil means the real clock, timer and randomness.
	Now    func() time.Time
	Sleep  func(ctx context.Context, d time.Duration) error
	Jitter func(d time.Duration) time.Duration // a random duration in [0, d)
}

// Outcome is the part of one SDK result the helpers read: whether it asks
// for input (resultType "input_required"), its isError and the text of each
// text block, in order.
type Outcome struct {
	InputRequired bool
	IsError       bool
	Texts         []string
}

// ErrInputRequired is returned with a result of resultType
// "input_required" (MCP 2026-07-28): the call has not completed, neither
// failed nor succeeded. The SDKs' clients fulfil such results themselves
// and call again; one reaches the helpers only when that is turned off, and
// then its caller does that work. The SDK packages have their own, under
// the same name (Config.InputRequired).
var ErrInputRequired = errors.New("the server needs input before the tool call can complete (resultType input_required): fulfil the result's inputRequests and call again with the responses and its requestState")

// CallError returns the *envelope.CallError of a result, or nil when the
// result is not an error or its text is not one of our envelopes. Each
// text block is parsed on its own (the first that parses wins), so a result
// text elsewhere cannot hide the envelope; Text is all blocks joined.
func CallError(o Outcome) *envelope.CallError {
	if !o.IsError || o.InputRequired {
		return nil
	}
	for _, t := range o.Texts {
		if doc, err := envelope.Parse(t); err == nil {
			return callerror.FromDocument(doc, strings.Join(o.Texts, ""))
		}
	}
	return nil
}

// Warning returns the warning a successful result carries: the first text
// block that parses as a <tool_error> of severity warning, read as a
// CallError as an error is, or nil.
func Warning(o Outcome) *envelope.CallError {
	if o.IsError || o.InputRequired {
		return nil
	}
	for _, t := range o.Texts {
		if !strings.Contains(t, "<tool_error") {
			continue // the common case: no parse at all
		}
		if doc, err := envelope.Parse(t); err == nil && doc.ToolError != nil && doc.ToolError.Severity == envelope.SeverityWarning {
			return callerror.FromDocument(doc, strings.Join(o.Texts, ""))
		}
	}
	return nil
}

// Call calls call until its result is not a retryable CallError, at most
// c.Retries more times, waiting between attempts as Wait says; read turns
// a result into its Outcome. A transport error (err from call) is returned
// at once, with no retry: the SDK reports it, not the tool; so is a result
// that asks for input, with ErrInputRequired. It returns the last result
// and, when that result is an error envelope, its CallError.
func Call[R any](ctx context.Context, c *Config, call func(context.Context) (R, error), read func(R) Outcome) (R, error) {
	for attempt := 0; ; attempt++ {
		res, err := call(ctx)
		if err != nil {
			return res, err
		}
		o := read(res)
		if o.InputRequired {
			return res, cmp.Or(c.InputRequired, ErrInputRequired)
		}
		ce := CallError(o)
		if ce == nil {
			return res, nil
		}
		if attempt >= c.Retries || !c.retryable(ce) {
			return res, ce
		}
		wait := c.wait(ce, attempt)
		if dl, ok := ctx.Deadline(); ok && c.now().Add(wait).After(dl) {
			return res, ce // the wait would outlive the context: say so now
		}
		if c.sleep(ctx, wait) != nil {
			return res, ce
		}
	}
}

// retryable reports whether the policy allows calling again after ce:
// RATE_LIMITED, SERVER_BUSY or TIMEOUT, not critical, and a tool known to
// be read-only or idempotent unless NonIdempotent.
func (c *Config) retryable(ce *envelope.CallError) bool {
	switch ce.Code {
	case envelope.RateLimited, envelope.ServerBusy, envelope.Timeout:
	default:
		return false // VALIDATION_ERROR included: the call must change
	}
	if ce.Severity == envelope.SeverityCritical {
		return false
	}
	return c.NonIdempotent || c.Hints != nil && (c.Hints.ReadOnly || c.Hints.Idempotent)
}

// wait is how long to wait before retry number attempt+1: the envelope's
// retry_after when it has one, else the jittered backoff.
func (c *Config) wait(ce *envelope.CallError, attempt int) time.Duration {
	if ce.RetryAfter > 0 {
		return ce.RetryAfter
	}
	d := MaxBackoff
	if attempt < 16 && BaseBackoff<<attempt < MaxBackoff {
		d = BaseBackoff << attempt
	}
	return d/2 + c.jitter(d/2)
}

func (c *Config) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Config) jitter(d time.Duration) time.Duration {
	if c.Jitter != nil {
		return c.Jitter(d)
	}
	if d <= 0 {
		return 0
	}
	return rand.N(d)
}

func (c *Config) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
