package bench

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/selfheal/selfheal/internal/testkit/redistest"
	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/guard/redisguard"
)

// What a limit costs an admitted call, side by side:
//
//   - local: guard.NewLimiter, the counters in this process;
//   - redis: redisguard, the counters in a redis-server on loopback (one
//     round trip for Acquire, both limits in one script, and one for
//     release). It is what every replica of a server sharing one limit
//     pays; the difference is the price of sharing. Skipped when
//     redis-server is not installed;
//   - redis-ping: one PING on such a client, the floor of one round trip,
//     to read redis as round trips (about two) plus the scripts' work.
//     On a loaded machine a round trip is mostly waiting to be scheduled.
//
// Both enforce the same Limits, rate and concurrency, set so that no call
// is refused: the admitted path is the one every call takes.
var guardBenchLimits = guard.Limits{MaxActive: 64, MaxQueued: guard.NoQueue, Rate: 1e5, Burst: 1e9}

func BenchmarkLimit(b *testing.B) {
	ctx := context.Background()
	run := func(b *testing.B, lim guard.Limiter) {
		b.ReportAllocs()
		for b.Loop() {
			release, te := lim.Acquire(ctx, "tools/search")
			if te != nil {
				b.Fatal(te)
			}
			release()
		}
	}
	b.Run("local", func(b *testing.B) {
		lim, err := guard.NewLimiter(guardBenchLimits)
		if err != nil {
			b.Fatal(err)
		}
		run(b, lim)
	})
	client := func(b *testing.B) *redis.Client { // a server of its own
		c := redis.NewClient(&redis.Options{Addr: redistest.Start(b), ContextTimeoutEnabled: true})
		b.Cleanup(func() { c.Close() })
		return c
	}
	b.Run("redis", func(b *testing.B) {
		lim, err := redisguard.New(client(b), guardBenchLimits, redisguard.WithFailClosed(true))
		if err != nil {
			b.Fatal(err)
		}
		run(b, lim)
	})
	b.Run("redis-ping", func(b *testing.B) {
		c := client(b)
		b.ReportAllocs()
		for b.Loop() {
			if err := c.Ping(ctx).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
