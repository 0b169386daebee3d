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
// Either way, invalid arguments are answered with every problem in one
// validation_error (IsError true; the handler is not called), a guard
// ([WithGuard]) may refuse a call with SERVER_BUSY, RATE_LIMITED or
// TIMEOUT, and a handler's error or panic becomes a tool_error (see
// [AddTool]). The issues also travel as {"issues": [...]}, each in Zod v4's
// issue JSON without the values sent: in StructuredContent, or in _meta
// under "selfheal/issues" for a tool with an output schema (clients check
// structuredContent against it even on errors). A client chooses the
// language with the _meta key "selfheal/locale" of its tools/call request
// (a BCP 47 tag or an Accept-Language value), else with the Accept-Language
// header of an HTTP transport; else the engine's applies ([WithEngine]).
// The options are those of package mcp/gosdk, under the same names and
// with the same meaning. With [WithContract], validation_errors also carry
// the failed tool's changes since a known-good lockfile.
//
// mcp-go's server.WithInputSchemaValidation must stay off: it answers
// invalid arguments itself, with a Go struct dump, before any handler or
// middleware runs. [Check] finds it, and tool schemas that do not compile,
// at startup:
//
//	if err := mcpgo.Check(s); err != nil {
//		log.Fatal(err)
//	}
//
// A valid call through AddTool costs the schema validation of the
// arguments mcp-go already decoded, and nothing else.
package mcpgo
