// Package proxy gives selfheal's answers to any MCP server, in any
// language, with no change to its code: it sits between an MCP client and a
// stdio MCP server and relays their newline-delimited JSON-RPC messages,
// answering itself the tool calls whose arguments are wrong. It is a
// JSON-RPC proxy, not an MCP implementation, and uses no MCP SDK. The
// command "selfheal proxy -- CMD ARGS…" runs it in front of a child
// process.
//
// # Transparent
//
// Every line passes through unchanged, byte for byte and in order, in both
// directions: requests, responses, notifications, the server's requests to
// the client (sampling, elicitation, roots), progress, cancellation,
// methods the proxy does not know, and lines that are not JSON. A line is
// forwarded as soon as it is read; none is held back waiting for another.
// There is no size limit short of memory, and memory is bounded by the
// largest single message. Over stdio the proxy sends no request of its own.
//
// # What it reads
//
// Two things, never rewritten:
//
//   - the results of the client's tools/list requests (every page): each
//     tool's name, inputSchema and outputSchema. Each distinct input schema
//     is compiled once with package jsonschemav6 (the draft from its
//     "$schema", 2020-12 by default, formats asserted); a schema that does
//     not compile is logged once and the tool's calls pass unchecked. A
//     listing (a request without a cursor and the pages after it) replaces
//     the tools known before once its last page has passed. After the
//     server's notifications/tools/list_changed the tools stay known until
//     the client lists them again.
//   - the client's tools/call requests. A call of a listed tool whose
//     arguments fail its schema is answered by the proxy and never reaches
//     the server; every other call is forwarded untouched, as are calls of
//     tools not listed (yet), notifications, and lines that are not a
//     well-formed JSON-RPC 2.0 message: the server answers them.
//
// # The answer to a bad call
//
// The same result the Go integrations (mcp/gosdk, mcp/mcpgo) give, as the
// JSON-RPC response to the request's own id:
//
//	{"jsonrpc":"2.0","id":7,"result":{
//	  "content":[{"type":"text","text":"<validation_error action=\"write_file\">…"}],
//	  "isError":true,
//	  "structuredContent":{"issues":[{"code":"invalid_type","path":["content"],"expected":"string"}]}}}
//
// (one line on the wire). The issues, in Zod v4's issue JSON and without
// the values sent, are in result._meta["selfheal/issues"] instead when the
// tool declares an output schema. Arguments are checked as the Go
// integrations check them: absent arguments are validated as {}, arguments
// that are not an object are an invalid_type at (root), arguments nested
// deeper than WithMaxDepth are refused from their bytes. The text is in the
// language the client asks for in the call's _meta["selfheal/locale"], or
// else in its initialize request's, or else the engine's (WithEngine).
// With WithContract, it carries the tool's <contract_awareness> section.
//
// # Guards, logs and other transports
//
// WithGuard bounds each tool's calls (package guard) with SERVER_BUSY or
// RATE_LIMITED; WithLimiter does the same with counters that may live in
// Redis. WithCallLog writes one JSON line per call the proxy answers (never
// a value sent), WithObserver feeds metrics, WithLogger tells the operator
// what they must know. [Proxy.HTTPHandler] is the same proxy in front of a
// Streamable HTTP server, and [Proxy.Commands] serves a stdio server over
// Streamable HTTP, one process per session.
package proxy
