package mcpgo

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/internal/clientcall"
)

// WithTool gives CallTool the called tool's description, as listed by
// tools/list, for its annotations: a tool annotated readOnlyHint or
// idempotentHint may be retried by WithRetry. CallTool sends no tools/list
// of its own.
func WithTool(t mcp.Tool) CallOption {
	a := t.Annotations
	return CallOption{clientcall.WithHints(clientcall.Hints{
		ReadOnly:   a.ReadOnlyHint != nil && *a.ReadOnlyHint,
		Idempotent: a.IdempotentHint != nil && *a.IdempotentHint,
	})}
}

// CallTool calls a tool as c.CallTool does and reads the result back:
//
//   - when the result is an error (isError true) whose text is a
//     <tool_error> or <validation_error>, it returns the result and an
//     *envelope.CallError (find it with errors.As) carrying the envelope's
//     every section and the raw text;
//   - any other result comes back exactly as mcp-go gives it, with a nil
//     error: a success (read a warning riding on it with Warning), and an
//     error result whose text is not one of our envelopes (another server's
//     plain text; check IsError as with c.CallTool);
//   - an error of the client itself (a JSON-RPC error, a closed
//     connection) is returned as c.CallTool returns it.
//
// It reads results of both revisions an mcp-go v1.2.1 client speaks:
// 2026-07-28, which it tries first with server/discover (resultType
// "complete" or absent), and 2025-11-25 and earlier, after initialize. A
// result of resultType "input_required" is not one mcp-go's client
// returns: it fulfils the input requests itself, with the client's
// elicitation, sampling and roots handlers, and calls again, so CallTool
// reads the final result; when the client lacks a handler the server asks
// for, the call fails with an error, not a result: the client's ("no
// elicitation handler configured"), or in 2025-11-25 the server's, whose
// own elicitation/create request the client refused. A c of another kind that returns an input_required result
// gets it back with ErrInputRequired: fulfil its InputRequests and call
// again with the responses and its RequestState.
//
// With WithRetry, retryable CallErrors are retried first (see WithRetry).
//
// c is mcp-go's *client.Client, or anything with its CallTool method: an
// interface, so that a server that only imports this package does not link
// mcp-go's client and its transports.
func CallTool(ctx context.Context, c interface {
	CallTool(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error)
}, req mcp.CallToolRequest, opts ...CallOption) (*mcp.CallToolResult, error) {
	return clientcall.Call(ctx, callConfig(opts), func(ctx context.Context) (*mcp.CallToolResult, error) {
		return c.CallTool(ctx, req)
	}, outcome)
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
		switch t := c.(type) {
		case mcp.TextContent:
			o.Texts = append(o.Texts, t.Text)
		case *mcp.TextContent:
			o.Texts = append(o.Texts, t.Text)
		}
	}
	return o
}
