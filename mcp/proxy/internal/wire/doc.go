// Package wire reads and writes the JSON-RPC 2.0 messages of MCP as the
// proxy meets them on the wire: lines of bytes ([LineReader]), read in one
// pass for the few members the proxy needs ([Decode]) and never parsed
// whole, and the error responses it writes ([ErrorResponse]). The stdio
// proxy (package proxy) and the session server (package sessions) read
// messages alike because both use it.
package wire
