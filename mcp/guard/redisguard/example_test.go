package redisguard_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/redis/go-redis/v9"

	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/guard/redisguard"
)

// Every replica of a server makes the same Limiter on the same Redis: at
// most 8 calls of a tool run at once across all of them, and 20 calls a
// second start, 40 at once. Here Redis cannot be reached (nothing listens
// on port 1), and the Limiter fails closed: the model reads why, and when
// to retry.
func Example() {
	opt := &redis.Options{
		Addr:                  "127.0.0.1:1",
		ContextTimeoutEnabled: true, // stop at the Limiter's deadline
		MaxRetries:            -1,
	}
	opt.Dialer = redisguard.Dialer(redis.NewDialer(opt)) // reconnect as soon as Redis is back
	client := redis.NewClient(opt)
	defer client.Close()
	limiter, err := redisguard.New(client, guard.Limits{MaxActive: 8, Rate: 20, Burst: 40},
		redisguard.WithPrefix("myserver"), redisguard.WithFailClosed(true),
		redisguard.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		panic(err)
	}

	// In a tool's handler, keyed by the tool (or tool and caller):
	release, te := limiter.Acquire(context.Background(), "tools/search")
	if te != nil {
		fmt.Println(te.String())
		return
	}
	defer release()
	// ... run the tool ...

	// Output:
	// <tool_error code="SERVER_BUSY" severity="error">
	//   <message>The server cannot take calls right now: its call limits are unavailable.</message>
	//   <recovery>Wait a few seconds, then call again once.</recovery>
	// </tool_error>
}
