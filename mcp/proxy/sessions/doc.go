// Package sessions serves a stdio MCP server over the Streamable HTTP
// transport of MCP, one process per session, with the answers of package
// proxy to bad calls: each session is relayed as [proxy.Proxy.Serve]
// relays one over stdio. A server that speaks only stdio can so be reached
// over HTTP and run behind a load balancer (with sticky sessions).
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
