// Package proxy gives selfheal's answers to any MCP server, in any
// language, with no change to its code: it sits between an MCP client and
// the server and relays their JSON-RPC messages unchanged. When the server
// rejects a tool call whose arguments the tool's schema finds wrong, the
// client gets selfheal's validation_error in place of the rejection, with
// what the server said kept; near misses of declared keys are answered
// before they reach the server. It is a JSON-RPC proxy, not an MCP
// implementation, and uses no MCP SDK.
//
// Build a [Proxy] with [New], then put it in front of a server:
//
//   - a stdio server (newline-delimited JSON-RPC): [Proxy.Serve];
//   - a Streamable HTTP server: [Proxy.HTTPHandler];
//   - a stdio server served over Streamable HTTP, one process per
//     session: package [github.com/selfheal/selfheal/mcp/proxy/sessions].
//
// The command "selfheal proxy" runs the same three ways, without writing Go:
//
//	selfheal proxy CMD ARGS…
//	selfheal proxy --listen ADDR --upstream URL
//	selfheal proxy --listen ADDR CMD ARGS…
//
// [Proxy] says what the proxy reads (over stdio, the requests and results
// it needs, each in one pass; every other message streams through) and how
// it answers a bad call. Options add guards, the strict mode, the hosts
// and origins served, a call log, metrics, the outcomes of the answers
// ([WithOutcomes]), contract awareness and the language.
package proxy
