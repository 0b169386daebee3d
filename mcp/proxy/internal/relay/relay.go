package relay

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/selfheal/selfheal/mcp/guard"
)

// Relay is what the session server uses of one proxy.
type Relay struct {
	// Serve relays one session as Proxy.Serve does, its calls admitted
	// by limiter (nil: the proxy's own guards) under keys with limitBy
	// (see LimitBy; "" for none).
	Serve func(ctx context.Context, client io.Reader, toClient io.Writer, server io.Reader, toServer io.Writer, limiter guard.Limiter, limitBy string) error
	// Silence bounds how long a request may get nothing from its server
	// (WithUpstreamSilence); 0 or less: the session server's default.
	Silence time.Duration
	// Logger is the proxy's logger (WithLogger).
	Logger *slog.Logger
	// Limiter admits the calls of every session: WithLimiter's, or one
	// for WithGuard's limits, shared by the sessions; nil for none.
	Limiter guard.Limiter
	// LimitBy is the key of the limits of r's calls: the hash of
	// WithLimitBy's value for r ("" for none); nil without WithLimitBy.
	LimitBy func(r *http.Request) string
}

// ErrNoRoom is the error of a request body's read for which the proxy's
// body-memory budget has no room: the session server answers it 503, as
// HTTPHandler does, not as a body it cannot read.
var ErrNoRoom = errors.New("selfheal proxy: no room for the request body")

// OwnPrefix begins the ids of the proxy's own requests, which no client
// can collide with.
const OwnPrefix = "selfheal-proxy/"
