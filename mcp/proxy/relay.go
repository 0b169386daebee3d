package proxy

import (
	"io"
	"net/http"

	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
)

// The session server (package sessions) relays each session as Serve
// does: package relay hands it what it needs of this package, without
// exported names here.
func init() {
	relay.Of = func(p any) *relay.Relay { return p.(*Proxy).relay() }
	relay.Decode = func(line []byte) (*relay.Message, bool) {
		m, ok := decode(line)
		if !ok {
			return nil, false
		}
		return &relay.Message{
			Method: m.method, HasMethod: m.hasMethod, Response: m.isResponse(),
			ID: m.id, Params: m.params, Result: m.result,
		}, true
	}
	relay.Members = members
	relay.Str = str
	relay.IDKey = idKey
	relay.ErrorResponse = errorResponse
	relay.ValidJSON = validJSON
	relay.SkipSpace, relay.SkipValue, relay.SkipString = skipSpace, skipValue, skipString
	relay.Lines = func(r io.Reader) func() ([]byte, error) { return newLineReader(r).next }
	relay.MediaType = mediaType
}

// relay returns what the session server uses of p. The limits of
// WithGuard become one limiter shared by every session: one process per
// session must not mean a limit per session.
func (p *Proxy) relay() *relay.Relay {
	limiter := p.cfg.limiter
	if limiter == nil && p.cfg.limits != nil {
		limiter, _ = guard.NewLimiter(*p.cfg.limits) // the limits were checked by New
	}
	r := &relay.Relay{Serve: p.serve, Forbidden: p.forbidden, Logger: p.cfg.Logger, Limiter: limiter}
	if f := p.cfg.limitBy; f != nil {
		r.LimitBy = func(req *http.Request) string { return hashLimitBy(f(req)) }
	}
	return r
}
