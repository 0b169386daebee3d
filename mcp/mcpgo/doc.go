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
// Either way, per call:
//
//   - the arguments are validated against the tool's input schema
//     (RawInputSchema, else InputSchema) compiled with
//     adapters/jsonschemav6. Invalid arguments are answered with IsError
//     true, the validation_error text as the only content, and the issues
//     as StructuredContent ({"issues": [...]}, each issue in Zod v4's issue
//     JSON, without the values sent; in _meta under "selfheal/issues" for a
//     tool with an output schema, since clients check structuredContent
//     against it even on errors); the handler is
//     not called. Absent arguments are validated as {}; arguments that are
//     not a JSON object are a validation_error at (root);
//   - a guard (package mcp/guard, [WithGuard]) may refuse the call with
//     SERVER_BUSY, RATE_LIMITED or TIMEOUT;
//   - a handler's error that is an envelope (envelope.Error(...), also
//     wrapped) becomes its tool_error, IsError from its severity (a warning
//     rides on the handler's result with IsError false); any other error,
//     and a panic, becomes INTERNAL_ERROR, the raw error logged, not shown.
//
// The options are those of package mcp/gosdk, under the same names and with
// the same meaning: WithEngine sets the engine that words the errors (its
// language, budgets and redaction), WithGuard the guards. A client chooses
// the language of its validation_errors with the _meta key
// "selfheal/locale" of a tools/call request, a BCP 47 tag ("ja", "de-CH")
// or an Accept-Language value; else the Accept-Language header of an HTTP
// transport applies, else the engine's locale.
//
// # mcp-go's own validation must stay off
//
// server.WithInputSchemaValidation runs before any handler or middleware
// and answers a failure itself ("input schema validation failed: /age:
// &{Got:1/1 Want:18/1}"), so selfheal would never see the invalid
// arguments. Do not use it with this package: AddTool and Middleware
// validate against the same schemas. Both log an error when it is on, and
// [Check] returns an error saying so (and one for every tool schema that
// does not compile), for a test or a startup check:
//
//	if err := mcpgo.Check(s); err != nil {
//		log.Fatal(err)
//	}
//
// # Contract awareness
//
// Given a known-good lockfile of the tools (WithContract;
// see package contract and "selfheal lock"), each validation_error also
// carries a <contract_awareness> section: the BREAKING and RISKY changes of
// the failed tool since that lockfile, at most WithContractLimit of them,
// computed once per tool.
//
// # Cost
//
// A valid call through AddTool costs the schema validation and nothing
// else: the arguments mcp-go already decoded are validated in place. Only
// an invalid call decodes the wire JSON again (with exact numbers) and
// renders text. Middleware adds a tool lookup per call (mcp-go's GetTool
// copies the tool), and mcp-go allocates the middleware chain per call.
package mcpgo
