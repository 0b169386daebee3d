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
// AddTool advertises the same tool (the input and output schemas mcp.AddTool
// would infer or take), validates arguments with the JSON Schema adapter
// (jsonschemav6) before the handler runs, and turns handler errors and
// panics into tool_error envelopes (see AddTool). Options set the engine
// that words the errors (its language, budgets and redaction: WithEngine),
// the logger of errors the model must not see, and guards (package guard)
// shedding load with SERVER_BUSY or RATE_LIMITED. They are the options of
// package mcp/mcpgo, under the same names and with the same meaning.
//
// Servers that keep mcp.AddTool can add Middleware instead: it rewrites
// go-sdk's own validation failures into validation_errors (a valid call
// costs nothing more), envelopes returned as errors into tool_errors, and
// recovers panics.
//
// What the client receives for invalid arguments: isError true, the
// validation_error text as the only content block, and the issues as
// {"issues": [...]} (each issue in Zod v4's issue JSON) in structuredContent,
// or in _meta under "selfheal/issues" when the tool declares an output
// schema (clients check structuredContent against it even on errors),
// without the values sent. The language is the client's when it declares
// one, as a BCP 47 tag ("ja", "de-CH") or an Accept-Language value under
// the _meta key "selfheal/locale" of the tools/call request, else of its
// initialize request, else in the Accept-Language header of an HTTP
// transport; else it is that of WithEngine's engine.
//
// Given a known-good lockfile of the tools (WithContract;
// see package contract and "selfheal lock"), each validation_error also
// carries a <contract_awareness> section: the BREAKING and RISKY changes of
// the failed tool since that lockfile, at most WithContractLimit of them.
package gosdk
