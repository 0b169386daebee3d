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
	// Serve relays one session as Proxy.Serve does, its calls admitted by
	// limiter (nil: the proxy's own guards) under keys with limitBy.
	Serve func(ctx context.Context, client io.Reader, toClient io.Writer, server io.Reader, toServer io.Writer, limiter guard.Limiter, limitBy string) error
	// Silence is WithUpstreamSilence (0 or less: the server's default).
	Silence time.Duration
	// Logger is the proxy's logger (WithLogger).
	Logger *slog.Logger
	// Limiter admits the calls of every session (WithLimiter's, or one for
	// WithGuard's limits); nil for none.
	Limiter guard.Limiter
	// LimitBy is the hash of WithLimitBy's value for r; nil without it.
	LimitBy func(r *http.Request) string
}

// ErrNoRoom fails a body's read when the body-memory budget has no room:
// answered 503, as HTTPHandler does, not as an unreadable body.
var ErrNoRoom = errors.New("selfheal proxy: no room for the request body")

// OwnPrefix begins the ids of the proxy's own requests, which no client
// can collide with.
const OwnPrefix = "selfheal-proxy/"
