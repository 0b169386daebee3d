// Package proxy gives selfheal's answers to any MCP server, in any
// language, with no change to its code: it sits between an MCP client and
// the server, relays their JSON-RPC messages unchanged, and answers itself
// the tool calls whose arguments are wrong. It is a JSON-RPC proxy, not an
// MCP implementation, and uses no MCP SDK.
//
// Build a [Proxy] with [New], then put it in front of a server:
//
//   - a stdio server (newline-delimited JSON-RPC): [Proxy.Serve];
//   - a Streamable HTTP server: [Proxy.HTTPHandler];
//   - a stdio server served over Streamable HTTP, one process per
//     session: [Proxy.Commands].
//
// The smallest example relays a client on this process's stdin and stdout
// to a server's pipes:
//
//	p, err := proxy.New()
//	// ...
//	err = p.Serve(ctx, os.Stdin, os.Stdout, serverStdout, serverStdin)
//
// The command "selfheal proxy" runs the same three ways, without writing Go:
//
//	selfheal proxy -- CMD ARGS…
//	selfheal proxy --listen ADDR --upstream URL
//	selfheal proxy --listen ADDR -- CMD ARGS…
//
// [Proxy] says what the proxy reads and how it answers a bad call. The
// options add guards ([WithGuard], [WithLimiter]), a call log, metrics,
// contract awareness and the engine's language.
package proxy
