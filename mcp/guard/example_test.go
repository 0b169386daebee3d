package guard_test

import (
	"context"
	"fmt"

	"github.com/selfheal/selfheal/mcp/guard"
)

// One call at a time and none waiting: a second concurrent call is shed with
// SERVER_BUSY, and a free slot admits the next call.
func Example() {
	g := guard.New(guard.Limits{MaxActive: 1, MaxQueued: guard.NoQueue})
	ctx := context.Background()

	release, te := g.Acquire(ctx) // the first call runs
	fmt.Println("first call admitted:", te == nil)

	_, te = g.Acquire(ctx) // a second one arrives while it runs
	fmt.Println(te.String())

	release() // the first call is done
	release, te = g.Acquire(ctx)
	fmt.Println("third call admitted:", te == nil)
	release()
	// Output:
	// first call admitted: true
	// <tool_error code="SERVER_BUSY" severity="error">
	//   <message>The server is busy: too many calls of this tool are running or waiting.</message>
	//   <recovery>Wait a few seconds, then call again. Send calls one at a time: wait for each result before the next call.</recovery>
	// </tool_error>
	// third call admitted: true
}

// A rate limit answers calls above the rate with RATE_LIMITED and the time to
// wait until the bucket admits a call.
func ExampleGuard_Acquire_rate() {
	g := guard.New(guard.Limits{Rate: 1.0 / 30, Burst: 1}) // one call every 30 s
	ctx := context.Background()
	if _, te := g.Acquire(ctx); te == nil {
		fmt.Println("first call admitted")
	}
	_, te := g.Acquire(ctx)
	fmt.Println(te.Code, te.RetryAfter.Round(10e9))
	// Output:
	// first call admitted
	// RATE_LIMITED 30s
}

// A Limiter keeps limits per key: here per tool, each with its own one
// call per minute. mcp/guard/redisguard is the same with its counters in
// Redis, shared by every replica.
func ExampleNewLimiter() {
	lim, err := guard.NewLimiter(guard.Limits{Rate: 1.0 / 60, Burst: 1})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for _, tool := range []string{"read_file", "write_file", "read_file"} {
		if _, te := lim.Acquire(ctx, tool); te != nil {
			fmt.Println(tool, te.Code)
			continue
		}
		fmt.Println(tool, "admitted")
	}
	// Output:
	// read_file admitted
	// write_file admitted
	// read_file RATE_LIMITED
}
