// Package gosdk plugs selfheal into servers built on the official Go MCP SDK,
// github.com/modelcontextprotocol/go-sdk (v1.8): a model that calls a tool
// with bad arguments gets every problem in one validation_error it can act
// on, instead of go-sdk's first-error string
// (`validating "arguments": validating root: ...`), and a failing tool
// answers with a tool_error instead of a raw Go error.
//
// The one line a server author changes is the registration:
//
//	mcp.AddTool(server, tool, handler)   // before
//	gosdk.AddTool(server, tool, handler) // after
//
// Servers that keep mcp.AddTool can install [Middleware] once instead:
//
//	server.AddReceivingMiddleware(gosdk.Middleware())
//
// It rewrites go-sdk's validation failures into validation_errors and
// envelopes returned as errors into tool_errors, and recovers panics.
//
// Every answer is in the revision of the request: a client of MCP
// 2026-07-28 (go-sdk's default) gets "resultType":"complete", which it
// requires, and go-sdk's serverInfo; one of 2025-11-25 what it always got.
// go-sdk serves 2026-07-28 over stdio and, over HTTP, statelessly
// (StreamableHTTPOptions{Stateless: true}) only.
//
// [AddTool] says what the client receives, [WithEngine] in which language.
// The options ([Option]) are those of package mcp/mcpgo; among them,
// [WithGuard] sheds load and [WithContract] makes errors contract-aware.
package gosdk
