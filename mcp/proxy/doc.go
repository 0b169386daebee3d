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
// # Guards and logs
//
// WithGuard bounds each tool's calls (package guard): a call beyond the
// limits is answered with SERVER_BUSY or RATE_LIMITED; WithLimiter does the
// same with a limiter whose counters may live elsewhere (Redis). WithCallLog writes
// one JSON line per call the proxy answers (time, tool, issue codes,
// paths, never a value sent), WithObserver reports every call of a listed
// tool to a metrics hook, and WithLogger receives what the operator must
// know (a schema that does not compile).
//
// # Over HTTP, in front of a remote server
//
// HTTPHandler is the same proxy for a Streamable HTTP server: a reverse
// proxy (net/http/httputil) that passes POST, GET and DELETE with their
// headers and streams, reads the tools/list results whichever body carries
// them, and answers a bad tools/call as JSON or as one server-sent event,
// as the client accepts. Behind a load balancer, a replica that did not
// relay a session's listing lists its tools itself, with the call's
// headers, before checking the call. WithGuard's limits are then shared by
// all the sessions of the handler, per tool; WithLimitBy splits them per
// session or per caller (hashed); WithLimiter with mcp/guard/redisguard
// shares them across replicas. An upstream failure is a JSON-RPC error to
// every request it leaves unanswered, never a hang.
//
// # Over HTTP, one process per session
//
// Commands serves a stdio server over the Streamable HTTP transport: each
// initialize request starts the server's process, relayed as Serve relays
// one, and the session (its Mcp-Session-Id) ends with it. A server that
// speaks only stdio can so sit behind a load balancer with sticky
// sessions. The server's messages go to the client's open streams by
// response id, progress token and stream, each once and in order; what no
// stream can carry waits, bounded, for the next GET stream. A session
// ends at DELETE, when idle, at Close, or when its process exits: its
// process has two seconds to exit once its stdin is closed before it is
// killed, and every request still waiting gets a JSON-RPC error rather
// than hanging. Bodies, batches, sessions and waiting messages are
// bounded.
package proxy
