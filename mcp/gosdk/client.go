package gosdk

import (
	"context"

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
