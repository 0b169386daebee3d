// Package wiretest speaks MCP to a server as raw bytes, in either revision,
// over stdio framing (one JSON-RPC message a line) or Streamable HTTP, and
// hands back each response's result exactly as the server wrote it. The
// integrations' tests use it to check what a client of each revision reads
// on the wire, which an SDK client would decode and forgive (a go-sdk client
// reads a missing resultType as complete).
//
// It is a test helper, kept under mcp/internal because it reaches the
// integrations' internal tracker; production code never imports it.
package wiretest
