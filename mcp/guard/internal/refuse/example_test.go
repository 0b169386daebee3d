package refuse_test

import (
	"context"
	"fmt"
	"time"

	"github.com/selfheal/selfheal/mcp/guard/internal/refuse"
)

// A guard picks the answer by why it turned the call away; the model sees
// only the envelope, so a limit hit in memory and one hit in Redis read the
// same, and nothing of the caller or the limits leaks into it.
func Example() {
	// 0.1s until a call is admitted, as at ten calls a second: retry_after
	// says so, rounded up to the millisecond, so a model that waits exactly
	// that long is not refused again.
	fmt.Println(refuse.RateLimited(99*time.Millisecond + 873*time.Microsecond).String())
	fmt.Println(refuse.Busy().Code)

	// A wait that hit its deadline timed out; one whose caller gave up never
	// ran. They ask for different recoveries, hence different codes.
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	fmt.Println(refuse.Cancelled(ctx).Code)
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	fmt.Println(refuse.Cancelled(ctx).Code)
	// Output:
	// <tool_error code="RATE_LIMITED" severity="error">
	//   <message>Too many calls of this tool: the rate limit is reached.</message>
	//   <recovery>Wait for the time in retry_after, then call again. Do not retry before then, and send calls one at a time.</recovery>
	//   <retry_after>0.1 seconds</retry_after>
	// </tool_error>
	// SERVER_BUSY
	// TIMEOUT
	// SERVER_BUSY
}
