package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// go-redis's own lines reach the proxy's log one a minute at most, with
// the count of those dropped in between.
func TestRedisLog(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})).With("component", "selfheal proxy")
	start := time.Unix(1_700_000_000, 0)
	var now time.Time
	r := newRedisLog(log)
	r.now = func() time.Time { return now }
	for _, line := range []struct {
		at     time.Duration
		format string
		args   []any
	}{
		{0, "redis: connection pool: failed to dial after %d attempts: %v", []any{5, "dial tcp 127.0.0.1:6379: connect: connection refused"}},
		{time.Second, "redis: connection pool: failed to dial after %d attempts: %v", []any{5, "refused"}},
		{59 * time.Second, "push: error processing pending notifications before reading reply: %v\n", []any{"EOF"}},
		{time.Minute, "redis: connection pool: failed to dial after %d attempts: %v", []any{1, "i/o timeout"}},
		{time.Minute + time.Millisecond, "dropped", nil},
		{3 * time.Minute, "redis: %s", []any{"back"}},
	} {
		now = start.Add(line.at)
		r.Printf(context.Background(), line.format, line.args...)
	}
	want := []string{
		`level=WARN msg="go-redis (logged once a minute at most)" component="selfheal proxy" message="redis: connection pool: failed to dial after 5 attempts: dial tcp 127.0.0.1:6379: connect: connection refused"`,
		`level=WARN msg="go-redis (logged once a minute at most)" component="selfheal proxy" message="redis: connection pool: failed to dial after 1 attempts: i/o timeout" dropped=2`,
		`level=WARN msg="go-redis (logged once a minute at most)" component="selfheal proxy" message="redis: back" dropped=1`,
	}
	if got := strings.Split(strings.TrimSpace(out.String()), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("log:\n%s\nwant:\n%s", out.String(), strings.Join(want, "\n"))
	}
}
