package gosdk

import (
	"context"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/internal/clientcall"
)

// WithTool gives CallTool the called tool's description, as listed by
// tools/list, for its annotations: a tool annotated readOnlyHint or
// idempotentHint may be retried by WithRetry. CallTool sends no tools/list
// of its own.
func WithTool(t *mcp.Tool) CallOption {
	if t == nil || t.Annotations == nil {
		return CallOption{clientcall.WithHints(clientcall.Hints{})}
	}
	return CallOption{clientcall.WithHints(clientcall.Hints{ReadOnly: t.Annotations.ReadOnlyHint, Idempotent: t.Annotations.IdempotentHint})}
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
// It reads results of both revisions a go-sdk v1.8 client speaks:
// 2026-07-28, its default (resultType "complete" or absent), and
// 2025-11-25, to which it falls back when the server's server/discover
// fails or offers no 2026-07-28. A result of resultType "input_required"
// is not one the go-sdk client normally returns: it fulfils the input
// requests itself, with the client's elicitation, sampling and roots
// handlers, and calls again, so CallTool reads the final result. When the
// client lacks a handler the server asks for, the call fails with the
// session's error, not a result ("client does not support elicitation":
// in 2026-07-28 the client's own refusal, though it wraps a
// *jsonrpc.Error; in 2025-11-25 the server's JSON-RPC error, its
// elicitation/create request refused). With the client's
// MultiRoundTrip.Disabled, the input_required result itself comes back,
// with ErrInputRequired: fulfil its InputRequests and call again with the
// responses and its RequestState.
//
// params are not modified (session.CallTool, in a 2026-07-28 session,
// writes that revision's _meta into the params it is given: CallTool gives
// it a copy), so one params value may serve sessions of either revision.
//
// With WithRetry, retryable CallErrors are retried first (see WithRetry).
func CallTool(ctx context.Context, session *mcp.ClientSession, params *mcp.CallToolParams, opts ...CallOption) (*mcp.CallToolResult, error) {
	return clientcall.Call(ctx, callConfig(opts), func(ctx context.Context) (*mcp.CallToolResult, error) {
		return session.CallTool(ctx, ownParams(params))
	}, outcome)
}

// ownParams returns a copy of params for go-sdk to write into. In a
// 2026-07-28 session, session.CallTool adds the protocol version, client
// info and capabilities to the params' _meta in place: the caller's params,
// reused with a session of 2025-11-25, would claim 2026-07-28 there, and
// the server would refuse the call ("unsupported protocol version").
func ownParams(p *mcp.CallToolParams) *mcp.CallToolParams {
	if p == nil {
		return nil
	}
	c := *p
	c.Meta = maps.Clone(p.Meta)
	return &c
}

// Warning returns the warning a successful result carries (a <tool_error>
// of severity warning, such as DEPRECATED, riding on isError false) as a
// CallError, as CallTool returns an error, or nil when it carries none or
// is an error. CallTool never returns a warning as an error: the call
// succeeded.
func Warning(res *mcp.CallToolResult) *envelope.CallError {
	return clientcall.Warning(outcome(res))
}

// outcome is what clientcall reads of a result.
func outcome(res *mcp.CallToolResult) clientcall.Outcome {
	if res == nil {
		return clientcall.Outcome{}
	}
	o := clientcall.Outcome{InputRequired: res.NeedsInput(), IsError: res.IsError}
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			o.Texts = append(o.Texts, t.Text)
		}
	}
	return o
}
