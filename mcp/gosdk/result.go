package gosdk

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// validationResult is the answer to invalid arguments: the validation_error
// text (with the tool's contract_awareness section ct, if any), IsError
// true, and the issues as structured content or in _meta.
func validationResult(ctx context.Context, c *toolcall.Config, req *mcp.CallToolRequest, action string, list issues.List, structured bool, ct *envelope.Contract) *mcp.CallToolResult {
	c.Answered(sessionOf(req), action, list)
	e := engineFor(c, req)
	cause := error(list) // boxed once, for the text and for GetError
	// The result, its content list and its text in one allocation.
	r := &struct {
		res     mcp.CallToolResult
		content [1]mcp.Content
		text    mcp.TextContent
	}{}
	res := &r.res
	forRevision(req, res)
	v, sc := toolcall.Answer(e, action, cause, ct)
	r.text.Text = v.String()
	r.content[0] = &r.text
	res.Content = r.content[:]
	if structured {
		res.StructuredContent = sc
	} else {
		res.Meta = mcp.Meta{toolcall.MetaIssues: sc}
	}
	res.SetError(cause) // for sending middleware (GetError); never marshaled
	return res
}

// sessionOf is the key of the call's session for WithOutcomes: its id; or
// "-" for a connection without one (stdio, in memory: the connection is
// the session, in every revision); "" for a call no session ties to the
// next (an HTTP request without a session id, as in a stateless revision,
// or a handler called alone).
func sessionOf(req *mcp.CallToolRequest) string {
	if req == nil || req.Session == nil {
		return ""
	}
	if id := req.Session.ID(); id != "" {
		return id
	}
	if req.Extra != nil && req.Extra.Header != nil {
		return "" // over HTTP, without a session
	}
	return "-"
}

// errorResult is the answer carrying a tool_error; IsError is from its
// severity. cause is kept for sending middleware (GetError) and never sent.
func errorResult(req *mcp.CallToolRequest, te envelope.ToolError, cause error) *mcp.CallToolResult {
	res := new(mcp.CallToolResult)
	forRevision(req, res)
	res.Content = []mcp.Content{&mcp.TextContent{Text: te.String()}}
	if te.IsError() {
		res.SetError(cause)
	}
	return res
}

// revision2026 is the first revision whose results carry resultType. Its
// dates compare as strings, as go-sdk compares them.
const revision2026 = "2026-07-28"

// complete is the empty result marked complete. go-sdk keeps resultType
// unexported and sets it only in its UnmarshalJSON (and for the results of
// the handlers it calls itself, which the Middleware's own answers are
// not): read once, then copied, since reading it costs more than the rest
// of a bad call's answer (15 µs of BenchmarkGoSDKDispatch/invalid's 87).
var complete = sync.OnceValue(func() (r mcp.CallToolResult) {
	if err := r.UnmarshalJSON([]byte(`{"resultType":"complete"}`)); err != nil {
		panic("gosdk: go-sdk no longer reads resultType: " + err.Error()) // a constant: fails every test at once
	}
	return r
})

// forRevision makes the empty result *res one of the request's revision:
// from 2026-07-28 on, marked complete ("resultType":"complete", which a
// client of that revision requires of every result), as go-sdk marks its
// own; before, unmarked, the bytes a 2025 client has always had. The
// revision is the request's own (its _meta), else the session's
// (initialize). It must run before res is filled: it overwrites the whole
// result.
func forRevision(req *mcp.CallToolRequest, res *mcp.CallToolResult) {
	if req != nil && req.ProtocolVersion() >= revision2026 {
		*res = complete()
	}
}
