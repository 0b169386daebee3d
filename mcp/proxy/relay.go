package proxy

import (
	"net/http"

	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
)

// relaySource gives the session server (package sessions) p's relay:
// embedded in Proxy, it makes *Proxy satisfy relay.Of's interface without
// an exported name here.
type relaySource = relay.Source

// relay returns what the session server uses of p. The limits of
// WithGuard become one limiter shared by every session: one process per
// session must not mean a limit per session.
func (p *Proxy) relay() *relay.Relay {
	limiter := p.cfg.limiter
	if limiter == nil && p.cfg.limits != nil {
		limiter, _ = guard.NewLimiter(*p.cfg.limits) // the limits were checked by New
	}
	r := &relay.Relay{Serve: p.serve, Forbidden: p.forbidden, Guard: p.guardHTTP, Logger: p.cfg.Logger, Limiter: limiter}
	if f := p.cfg.limitBy; f != nil {
		r.LimitBy = func(req *http.Request) string { return hashLimitBy(f(req)) }
	}
	return r
}
