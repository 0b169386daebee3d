package mcpgo

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// MetaIssues is the _meta key of a validation failure's issues when the tool
// declares an output schema. Clients check a result's structuredContent
// against the tool's output schema even when isError is true (the
// TypeScript SDK rejects the whole result when it does not match), so for
// such a tool the issues travel in _meta instead of structuredContent. The
// key is the one package mcp/gosdk uses.
const MetaIssues = toolcall.MetaIssues

// IssuesContent is the structured form of a validation failure: the
// result's StructuredContent for a tool without an output schema, and the
// value at MetaIssues otherwise. Its JSON is {"issues": [...]}, each issue in
// Zod v4's issue JSON, so TypeScript clients can read it with the types they
// know. An object, not a bare array, because MCP requires structuredContent
// to be a JSON object.
//
// The issues are in the order of the text's lines and carry no "input", as
// Zod's issues do not unless asked to (reportInput): the value sent may be
// a secret (a password, or an object holding one under an unknown key), and
// the text already shows every value that may be shown, redacted where the
// field is sensitive.
type IssuesContent = toolcall.IssuesContent

// validationResult is the answer to invalid arguments: the validation_error
// text (with the tool's contract_awareness section ct, if any), IsError
// true, and the issues as structured content or in _meta.
func validationResult(ctx context.Context, c *toolcall.Config, req mcp.CallToolRequest, action string, list issues.List, structured bool, ct *envelope.Contract) *mcp.CallToolResult {
	e := engineFor(c, req)
	res := &mcp.CallToolResult{
		Content: []mcp.Content{mcp.TextContent{Type: mcp.ContentTypeText, Text: toolcall.Text(e, action, list, ct)}},
		IsError: true,
	}
	sc := toolcall.Structured(e, list)
	if structured {
		res.StructuredContent = sc
	} else {
		res.Meta = &mcp.Meta{AdditionalFields: map[string]any{MetaIssues: sc}}
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
