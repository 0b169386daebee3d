package proxy

import (
	"net/http"
	"net/url"
)

// HTTPHandler returns a Streamable HTTP reverse proxy to the MCP server at
// upstream (the URL of its MCP endpoint).
func (p *Proxy) HTTPHandler(upstream *url.URL) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not yet", http.StatusNotImplemented)
	})
}
