package proxy

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/selfheal/selfheal/internal/loopback"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// WithAllowedHosts sets the Host header values the HTTP proxy (HTTPHandler
// and CommandHandler) serves, by host name, port and ASCII case ignored
// ("*" allows any); another host is answered 403, the defence against DNS
// rebinding. Without it, a request that arrived on a loopback address must
// name a loopback host, as the go-sdk and TypeScript SDK servers require;
// one that arrived elsewhere may name any, so a proxy serving a network
// should be given its names.
func WithAllowedHosts(hosts ...string) Option {
	return func(c *config) { c.allowedHosts = append(c.allowedHosts, hosts...) }
}

// WithAllowedOrigins sets the Origin header values (scheme://host[:port];
// "*" allows any) the HTTP proxy serves beside the defaults; another is
// answered 403, and a request without one (every client but a browser) is
// served. By default a browser's request is served when its Origin names a
// loopback host and it arrived on a loopback address, or when its Origin
// is the proxy's own (the request's allowed Host).
func WithAllowedOrigins(origins ...string) Option {
	return func(c *config) { c.allowedOrigins = append(c.allowedOrigins, origins...) }
}

// forbidden answers 403 to a request whose Host or Origin is not served,
// and reports whether it did.
func (p *Proxy) forbidden(w http.ResponseWriter, r *http.Request) bool {
	msg := p.refusal(r)
	if msg == "" {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write(wire.ErrorResponse(nil, -32000, msg))
	return true
}

// refusal says why r's Host or Origin is not served, "" when it is.
func (p *Proxy) refusal(r *http.Request) string {
	addr, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	onLoopback := loopback.Addr(addr)
	host := hostname(r.Host)
	if !p.hostAllowed(host, onLoopback) {
		return fmt.Sprintf("Forbidden: the Host %q is not served here", truncate(r.Host))
	}
	origin := r.Header.Get("Origin")
	if origin == "" || p.originAllowed(origin, r.Host, onLoopback) {
		return ""
	}
	return fmt.Sprintf("Forbidden: the Origin %q is not served here", truncate(origin))
}

func (p *Proxy) hostAllowed(host string, onLoopback bool) bool {
	if len(p.cfg.allowedHosts) > 0 {
		return slices.ContainsFunc(p.cfg.allowedHosts, func(h string) bool { return h == "*" || strings.EqualFold(hostname(h), host) })
	}
	return !onLoopback || loopback.Host(host)
}

// originAllowed reports whether a request from origin, naming reqHost, may
// be served.
func (p *Proxy) originAllowed(origin, reqHost string, onLoopback bool) bool {
	if slices.ContainsFunc(p.cfg.allowedOrigins, func(o string) bool { return o == "*" || strings.EqualFold(strings.TrimSuffix(o, "/"), origin) }) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false // "null", a file: page, an extension: never by default
	}
	if onLoopback && loopback.Host(hostname(u.Host)) {
		return true
	}
	// The proxy's own origin: under the Host the host check allowed.
	return strings.EqualFold(u.Host, reqHost)
}

// hostname is a host without its port or an IPv6 address's brackets.
func hostname(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}

// truncate cuts a header value quoted in a refusal: a client may send any.
func truncate(s string) string {
	const max = 200
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
