// Package proxy gives selfheal's answers to any MCP server, in any
// language, with no change to its code: it sits between an MCP client and
// the server and relays their JSON-RPC messages unchanged. It is a
// JSON-RPC proxy, not an MCP implementation, and uses no MCP SDK.
//
// The server decides, selfheal explains. A tools/call of a listed tool is
// checked against the tool's input schema and forwarded; when the server
// refuses it and the refusal is about its arguments (a JSON-RPC -32602, a
// message naming a field the schema flags, or an issue the schema makes
// certain: a missing required field, a value of the wrong type, a value
// outside an enum), the client reads selfheal's validation_error in place
// of the refusal, with what the server said kept. When every issue is one
// servers commonly tolerate (an extra key, a loose format, a number sent
// as a string) and the server's message names none of them, the server
// failed for a reason of its own (a missing file, the network): its
// answer passes unchanged, and the disagreement is logged. Only what the
// server would get wrong without a word is answered before forwarding: a
// near miss of a declared key ('dryrun' for dryRun), which it drops.
// [WithStrict] answers every bad call before forwarding, for a server that
// does not check its input. The same call is decided the same way over
// every transport: a stdio line, an HTTP body, a member of a JSON-RPC
// batch.
//
// Build a [Proxy] with [New], then put it in front of a server:
//
//   - a stdio server (newline-delimited JSON-RPC): [Proxy.Serve];
//   - a Streamable HTTP server: [Proxy.HTTPHandler], with the bounds of
//     the command by default (read deadline, upstream silence, body
//     memory, requests at once, Host and Origin);
//   - a stdio server served over Streamable HTTP, one process per
//     session: package [github.com/selfheal/selfheal/mcp/proxy/sessions].
//
// The command "selfheal proxy" runs the same three ways, without writing Go:
//
//	selfheal proxy CMD ARGS…
//	selfheal proxy --listen ADDR --upstream URL
//	selfheal proxy --listen ADDR CMD ARGS…
//
// The proxy reads tools/call, tools/list, initialize and cancellation
// requests, tools/list results and the responses to the calls it may
// explain, in memory proportional to their size, each in one pass; every
// other message streams through as it arrives, in memory flat in its
// size. It sends requests of its own only to list the tools a call needs
// (see [Proxy]); their responses never reach the client. The options add
// guards ([WithGuard], [WithLimiter]), the strict mode, the HTTP bounds,
// a call log, metrics, contract awareness and the engine's language.
package proxy
