package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// MetaIssues is the _meta key of a validation failure's issues when the tool
// declares an output schema. Clients check a result's structuredContent
// against the tool's output schema even when isError is true (the
// TypeScript SDK does, and rejects the whole result when it does not match),
// so for such a tool the issues travel in _meta instead of structuredContent.
// The key is the one package mcp/mcpgo uses.
const MetaIssues = toolcall.MetaIssues

// IssuesContent is the structured form of a validation failure: the
// result's structuredContent for a tool without an output schema, and the
// value at MetaIssues otherwise. Its JSON is {"issues": [...]}, each issue in
// Zod v4's issue JSON (the shape of a ZodError's issues), so TypeScript
// clients can read it with the types they know. A JSON object, not a bare
// array, because MCP clients before SEP-2106 require structuredContent to be
// an object.
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
func validationResult(ctx context.Context, c *toolcall.Config, req *mcp.CallToolRequest, action string, list issues.List, structured bool, ct *envelope.Contract) *mcp.CallToolResult {
	e := engineFor(c, req)
	text := toolcall.Text(e, action, list, ct)
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	if structured {
		res.StructuredContent = toolcall.Structured(e, list)
	} else {
		res.Meta = mcp.Meta{MetaIssues: toolcall.Structured(e, list)}
	}
	res.SetError(list) // for sending middleware (GetError); never marshaled
	return res
}

// errorResult is the answer carrying a tool_error; IsError is from its
// severity. cause is kept for sending middleware (GetError) and never sent.
func errorResult(te envelope.ToolError, cause error) *mcp.CallToolResult {
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: te.String()}}}
	if te.IsError() {
		res.SetError(cause)
	}
	return res
}
