// Package sessions serves a stdio MCP server over MCP's Streamable HTTP
// transport, with the proxy's answers to bad calls: the server behind
// proxy.Proxy.CommandHandler, which hands it the proxy's relay (package
// relay) so that the types are checked at compile time.
//
// Clients of the session era (revisions up to 2025-11-25) get one process
// per session, relayed as proxy.Proxy.Serve relays one over stdio; clients
// of revision 2026-07-28, which have no session, are served by a small pool
// of processes per WithLimitBy value (pool.go, stateless.go), bridged to a
// server of the session era when it speaks no later revision (modern.go),
// with their Mcp-Param headers checked against the arguments (params.go).
//
// One job per type: the HTTP front ([Server]), the processes ([process]:
// each in a process session of its own, a few started ahead for the next
// session), a session's relay and routing ([session]) and an event stream
// with its resumption ([stream]). Every bound (bodies, processes, idle
// sessions, silent servers) ends a request with an answer rather than a hang.
package sessions
