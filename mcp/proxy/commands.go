package proxy

import (
	"net/http"
	"os/exec"
)

// Commands serves a stdio MCP server over Streamable HTTP, one process per
// session.
type Commands struct {
	p     *Proxy
	start func() *exec.Cmd
}

// Commands returns a handler serving the stdio server start makes.
func (p *Proxy) Commands(start func() *exec.Cmd) *Commands {
	return &Commands{p: p, start: start}
}

// ServeHTTP serves one request of the Streamable HTTP transport.
func (c *Commands) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "not yet", http.StatusNotImplemented)
}

// Close ends every session and its process.
func (c *Commands) Close() error { return nil }
