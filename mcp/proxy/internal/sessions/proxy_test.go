package sessions_test

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/proxy"
	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
	"github.com/selfheal/selfheal/mcp/proxy/internal/sessions"
)

// The internal tests relay through a real proxy, by its public Serve: the
// shared limiter and the Host checks are those of proxy.Proxy.CommandHandler,
// tested through it (see origin_test.go).
func init() {
	sessions.ProxyRelay = func(strict bool, listWait time.Duration) *relay.Relay {
		opts := []proxy.Option{proxy.WithLogger(slog.New(slog.DiscardHandler)), proxy.WithStrict(strict)}
		if listWait != 0 {
			opts = append(opts, proxy.WithListWait(listWait))
		}
		p, err := proxy.New(opts...)
		if err != nil {
			panic(err)
		}
		return &relay.Relay{
			Serve: func(ctx context.Context, client io.Reader, toClient io.Writer, server io.Reader, toServer io.Writer, _ guard.Limiter, _ string) error {
				return p.Serve(ctx, client, toClient, server, toServer)
			},
			Logger: slog.New(slog.DiscardHandler),
		}
	}
}
