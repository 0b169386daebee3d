package clientcall_test

import (
	"context"
	"fmt"
	"time"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/internal/clientcall"
)

// A read-only tool answers RATE_LIMITED once, then succeeds: Call waits the
// envelope's retry_after (not its own backoff, the server knows better) and
// calls again. Sleep is replaced so the example shows the wait without
// taking it; Outcome stands in for an SDK result.
func ExampleCall() {
	answers := []clientcall.Outcome{
		{IsError: true, Texts: []string{envelope.Error(envelope.RateLimited, "Slow down.").RetryAfter(2 * time.Second).String()}},
		{Texts: []string{`{"total":42}`}},
	}
	cfg := &clientcall.Config{
		Retries: 3,
		Hints:   &clientcall.Hints{ReadOnly: true}, // safe to call twice
		Sleep: func(_ context.Context, d time.Duration) error {
			fmt.Println("wait", d)
			return nil
		},
	}
	attempt := 0
	call := func(context.Context) (clientcall.Outcome, error) {
		attempt++
		return answers[attempt-1], nil
	}
	read := func(o clientcall.Outcome) clientcall.Outcome { return o }
	res, err := clientcall.Call(context.Background(), cfg, call, read)
	fmt.Println(res.Texts[0], err, attempt)
	// Output:
	// wait 2s
	// {"total":42} <nil> 2
}
