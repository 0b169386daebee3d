package redisguard_test

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/guard/redisguard"
)

// Every replica of a server makes the same Limiter on the same Redis: at
// most 8 calls of a tool run at once across all of them, and 20 calls a
// second start, 40 at once. The example needs a Redis, so it is compiled
// but not run.
func Example() {
	opt := &redis.Options{
		Addr:                  "localhost:6379",
		ContextTimeoutEnabled: true, // stop at the Limiter's deadline
	}
	opt.Dialer = redisguard.Dialer(redis.NewDialer(opt)) // reconnect as soon as Redis is back
	client := redis.NewClient(opt)
	defer client.Close()
	limiter, err := redisguard.New(client, guard.Limits{MaxActive: 8, Rate: 20, Burst: 40},
		redisguard.WithPrefix("myserver"))
	if err != nil {
		panic(err)
	}

	// In a tool's handler, keyed by the tool (or tool and caller):
	release, te := limiter.Acquire(context.Background(), "tools/search")
	if te != nil {
		fmt.Println(te.String()) // the model reads why, and when to retry
		return
	}
	defer release()
	// ... run the tool ...
}
