package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/internal/clientcall"
)

// CallOption configures one CallTool: its retry policy and what it knows of
// the tool. With none, CallTool calls once.
type CallOption = clientcall.Option

// WithRetry lets CallTool call again, at most max more times, when the
// result is a RATE_LIMITED, SERVER_BUSY or TIMEOUT tool_error that is not
// critical: it waits the envelope's retry_after when it has one, else
// backs off with jitter (a random wait in [d/2, d), d = 250ms doubled per
// retry, capped at 10s). It never waits past the context's deadline: when
// the wait would outlive it, the last CallError is returned at once, as it
// is when the context ends during a wait.
//
// It never retries a validation_error (the arguments must change), a
// critical error, or a tool that may not be safe to call twice: only a tool
// whose annotations (given with WithTool) say readOnlyHint or
// idempotentHint is retried, unless WithRetryNonIdempotent. A tool whose
// annotations are unknown is taken as the MCP specification's defaults
// (destructive, not idempotent), so it is not retried. An additive tool
// (destructiveHint false) is not idempotent either: a second create makes
// a second record.
func WithRetry(max int) CallOption {
	return clientcall.WithRetry(max)
}

// WithRetryNonIdempotent lets WithRetry retry a tool whose annotations do
// not say it is read-only or idempotent (or are unknown). Use it when a
// RATE_LIMITED or SERVER_BUSY answer means the server did not run the call,
// as a guard's answers do.
func WithRetryNonIdempotent() CallOption {
	return clientcall.WithRetryNonIdempotent()
}

// WithTool gives CallTool the called tool's description, as listed by
// tools/list, for its annotations: a tool annotated readOnlyHint or
// idempotentHint may be retried by WithRetry. CallTool sends no tools/list
// of its own.
func WithTool(t *mcp.Tool) CallOption {
	if t == nil || t.Annotations == nil {
		return clientcall.WithHints(clientcall.Hints{})
	}
	return clientcall.WithHints(clientcall.Hints{ReadOnly: t.Annotations.ReadOnlyHint, Idempotent: t.Annotations.IdempotentHint})
}

// CallTool calls a tool as session.CallTool does and reads the result back:
//
//   - when the result is an error (isError true) whose text is a
//     <tool_error> or <validation_error>, it returns the result and an
//     *envelope.CallError (find it with errors.As) carrying the envelope's
//     every section and the raw text;
//   - any other result comes back exactly as go-sdk gives it, with a nil
//     error: a success (read a warning riding on it with Warning), and an
//     error result whose text is not one of our envelopes (another server's
//     plain text; check IsError as with session.CallTool);
//   - an error of the session itself (a JSON-RPC error, a closed
//     connection) is returned as session.CallTool returns it.
//
// With WithRetry, retryable CallErrors are retried first (see WithRetry).
func CallTool(ctx context.Context, session *mcp.ClientSession, params *mcp.CallToolParams, opts ...CallOption) (*mcp.CallToolResult, error) {
	return clientcall.Call(ctx, clientcall.NewConfig(opts), func(ctx context.Context) (*mcp.CallToolResult, error) {
		return session.CallTool(ctx, params)
	}, outcome)
}

// Warning returns the warning a successful result carries (a <tool_error>
// of severity warning, such as DEPRECATED, riding on isError false), or
// nil when it carries none or is an error. CallTool never returns a
// warning as an error: the call succeeded.
func Warning(res *mcp.CallToolResult) *envelope.ToolError {
	return clientcall.Warning(outcome(res))
}

// outcome is what clientcall reads of a result.
func outcome(res *mcp.CallToolResult) clientcall.Outcome {
	if res == nil {
		return clientcall.Outcome{}
	}
	o := clientcall.Outcome{IsError: res.IsError}
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			o.Texts = append(o.Texts, t.Text)
		}
	}
	return o
}
