package mcpgo

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// sessionOf is the key of the call's session for WithOutcomes: its id
// ("" when the call has no session, as when a handler is called alone).
func sessionOf(ctx context.Context) string {
	if s := server.ClientSessionFromContext(ctx); s != nil {
		return s.SessionID()
	}
	return ""
}

// validationResult is the answer to invalid arguments: the validation_error
// text (with the tool's contract_awareness section ct, if any), IsError
// true, and the issues as structured content or in _meta.
func validationResult(ctx context.Context, c *toolcall.Config, req mcp.CallToolRequest, action string, list issues.List, structured bool, ct *envelope.Contract) *mcp.CallToolResult {
	c.Answered(sessionOf(ctx), action, list)
	e := engineFor(c, req)
	v, sc := toolcall.Answer(e, action, list, ct)
	// The result and its content list in one allocation.
	r := &struct {
		res     mcp.CallToolResult
		content [1]mcp.Content
	}{content: [1]mcp.Content{mcp.TextContent{Type: mcp.ContentTypeText, Text: v.String()}}}
	res := &r.res
	res.Content, res.IsError = r.content[:], true
	if structured {
		res.StructuredContent = sc
	} else {
		res.Meta = &mcp.Meta{AdditionalFields: map[string]any{toolcall.MetaIssues: sc}}
	}
	return res
}

// toolErrorResult returns the result that carries te: its tool_error text
// as the only content, IsError from its severity (false for a warning).
func toolErrorResult(te envelope.ToolError) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content: []mcp.Content{mcp.TextContent{Type: mcp.ContentTypeText, Text: te.String()}},
		IsError: te.IsError(),
	}
}

// isProtocolError reports the errors mcp-go sends as JSON-RPC errors on
// purpose, which pass through unchanged.
func isProtocolError(err error) bool {
	var v mcp.URLElicitationRequiredError
	var p *mcp.URLElicitationRequiredError
	return errors.As(err, &v) || (errors.As(err, &p) && p != nil)
}
