// Package guard bounds the calls of an MCP tool and answers the calls it
// turns away with a tool_error the model can act on, as the wire contract
// asks: SERVER_BUSY when there is no room (with a recovery telling the model
// to wait and send its calls one at a time), RATE_LIMITED with a retry_after
// when calls come too fast.
//
// A [Guard] combines two limits, each optional ([Limits]):
//
//   - concurrency: at most MaxActive calls run at once; up to MaxQueued more
//     wait for a slot in first-in first-out order, and a call beyond that is
//     shed at once. A waiting call gives up when its context ends (TIMEOUT
//     for a deadline): it leaves the queue and never holds a slot;
//   - rate: a token bucket (golang.org/x/time/rate) of Rate calls per second
//     and Burst calls at once. A call above the rate is refused at once, not
//     delayed, with the time until the bucket admits a call as retry_after.
//
// Both integrations (mcp/gosdk, mcp/mcpgo) take a guard per tool as an
// option; call [Guard.Acquire] directly anywhere else:
//
//	release, te := g.Acquire(ctx)
//	if te != nil {
//		return te // the model reads te.String()
//	}
//	defer release()
//
// A [Limiter] keeps such limits per key (per tool, per tool and caller):
// [NewLimiter] in this process, mcp/guard/redisguard in Redis, so that the
// replicas of a server behind a load balancer share one rate and one
// concurrency limit. mcp/proxy takes either.
//
// The envelopes are fixed texts: no argument, caller identity, key or limit
// value ever reaches the model. A guard starts no goroutine and holds no
// timer; a refused call costs one small allocation, an admitted call with a
// concurrency limit one for its release function, and a guard with no
// concurrency limit none.
package guard
