package syncbuf_test

import (
	"fmt"
	"log/slog"
	"sync"

	"github.com/selfheal/selfheal/internal/testkit/syncbuf"
)

// A log written by goroutines, read by the test once they are done.
func Example() {
	var log syncbuf.Buffer
	logger := slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // no time: the output is the same every run
			}
			return a
		},
	}))
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { logger.Info("done") })
	}
	wg.Wait()
	fmt.Print(log.String())
	// Output:
	// level=INFO msg=done
	// level=INFO msg=done
}
