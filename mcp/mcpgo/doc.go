// Package mcpgo plugs selfheal into servers built with
// github.com/mark3labs/mcp-go (v1.2.x): a model that calls a tool with bad
// arguments gets one validation_error listing every problem, with what it
// sent and what was expected, instead of mcp-go's one-line Go struct dump;
// a handler's failure becomes a tool_error the model can act on.
//
// Register a tool with [AddTool] instead of s.AddTool (one line changes):
//
//	mcpgo.AddTool(s, mcp.NewTool("users.create",
//		mcp.WithString("email", mcp.Required(), mcp.WithStringFormat("email")),
//	), createUser, mcpgo.WithLogger(logger))
//
// or keep s.AddTool and install [Middleware] once for every tool:
//
//	s.Use(mcpgo.Middleware(mcpgo.WithLogger(logger)))
//
// Call [Check] at startup: mcp-go's server.WithInputSchemaValidation must
// stay off, as it answers invalid arguments before selfheal can.
//
// Every answer is in the request's revision (MCP 2026-07-28, marked
// "resultType":"complete", or 2025-11-25, as it always was).
//
// [AddTool] says what the client receives, [WithEngine] in which language.
// The options ([Option]) are those of package mcp/gosdk; among them,
// [WithGuard] sheds load and [WithContract] makes errors contract-aware.
package mcpgo
