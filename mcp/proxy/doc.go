// Package proxy gives selfheal's answers to any MCP server, in any
// language, with no change to its code: a JSON-RPC proxy (no MCP SDK)
// that relays the messages between an MCP client and the server
// unchanged. The server decides, selfheal explains: a tools/call is
// checked against its tool's schema and forwarded, and when the server
// refuses it for its arguments the client reads selfheal's
// validation_error in its place; a refusal for a reason of the server's
// own (a missing file, the network) passes unchanged and the disagreement
// is logged (see [Proxy]). A near miss of a declared key ('dryrun' for
// dryRun), which the server would drop, is answered before forwarding;
// [WithStrict] answers every bad call so. A call is decided the same way
// as a stdio line, an HTTP body or a batch member.
//
// Build a [Proxy] with [New], then put it in front of a server:
//
//   - a stdio server (newline-delimited JSON-RPC): [Proxy.Serve];
//   - a Streamable HTTP server: [Proxy.HTTPHandler], with the command's
//     bounds by default;
//   - a stdio server, a process per HTTP session: [Proxy.CommandHandler].
//
// The command "selfheal proxy" runs the same three ways without writing Go.
// Options add guards, the strict mode, the HTTP bounds, a call log,
// metrics, the answers' outcomes ([WithOutcomes]) and the language.
package proxy
