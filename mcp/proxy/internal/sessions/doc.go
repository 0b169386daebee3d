// Package sessions serves a stdio MCP server over the Streamable HTTP
// transport of MCP, with the answers of package proxy to bad calls: each
// process is relayed as [proxy.Proxy.Serve] relays one over stdio. A client
// of the session era (revisions up to 2025-11-25) gets a process of its own
// per session; a client of revision 2026-07-28, which has no session, is
// served by a small pool of processes, in front of a server of either era.
// A server that speaks only stdio can so be reached over HTTP and run behind
// a load balancer (with sticky sessions for the session era).
//
// Build a [proxy.Proxy] with proxy.New, then a [Server] with [New], and
// serve it as any http.Handler; Close ends its sessions:
//
//	p, _ := proxy.New()
//	srv := sessions.New(p, func() *exec.Cmd { return exec.Command("my-mcp-server") })
//	defer srv.Close()
//	http.ListenAndServe("localhost:8080", srv)
//
// The command "selfheal proxy --listen ADDR CMD ARGS…" runs it without
// writing Go.
package sessions
