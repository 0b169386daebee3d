package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// validationResult is the answer to invalid arguments: the validation_error
// text (with the tool's contract_awareness section ct, if any), IsError
// true, and the issues as structured content or in _meta.
func validationResult(ctx context.Context, c *toolcall.Config, req *mcp.CallToolRequest, action string, list issues.List, structured bool, ct *envelope.Contract) *mcp.CallToolResult {
	e := engineFor(c, req)
	cause := error(list) // boxed once, for the text and for GetError
	// The result, its content list and its text in one allocation.
	r := &struct {
		res     mcp.CallToolResult
		content [1]mcp.Content
		text    mcp.TextContent
	}{text: mcp.TextContent{Text: toolcall.Text(e, action, cause, ct)}}
	r.content[0] = &r.text
	res := &r.res
	res.Content = r.content[:]
	if structured {
		res.StructuredContent = toolcall.Structured(e, list)
	} else {
		res.Meta = mcp.Meta{toolcall.MetaIssues: toolcall.Structured(e, list)}
	}
	res.SetError(cause) // for sending middleware (GetError); never marshaled
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
