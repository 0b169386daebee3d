// Package eventstream reads and writes the server-sent events of MCP's
// Streamable HTTP transport, for the HTTP-to-HTTP proxy and the server of
// stdio sessions over HTTP, which both speak it.
package eventstream
