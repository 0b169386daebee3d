package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"
)

// defaultRedisTimeout is --redis-timeout's default, redisguard's own: on a
// busy machine 100ms failed calls that Redis answered, and each was
// admitted unchecked.
const defaultRedisTimeout = 500 * time.Millisecond

// redisLogEvery is how often, at most, go-redis's own lines are logged.
const redisLogEvery = time.Minute

// redisLog passes go-redis's own log lines to the proxy's logger, one a
// minute at most, saying how many it dropped since the last. go-redis
// logs from inside the client, for the whole process, to stderr by
// default: an outage of Redis made it write a line per failed dial (60 in
// 2 s), past the limit the proxy keeps for its own lines. The command
// installs it with redis.SetLogger; a library must not, as that changes
// the process.
type redisLog struct {
	log     *slog.Logger
	now     func() time.Time
	next    atomic.Int64 // unix ns before which lines are dropped
	dropped atomic.Int64 // since the last line logged
}

func newRedisLog(log *slog.Logger) *redisLog { return &redisLog{log: log, now: time.Now} }

// Printf logs one line of go-redis unless one was logged less than a
// minute ago.
func (r *redisLog) Printf(_ context.Context, format string, v ...any) {
	now := r.now().UnixNano()
	next := r.next.Load()
	if now < next || !r.next.CompareAndSwap(next, now+int64(redisLogEvery)) {
		r.dropped.Add(1)
		return
	}
	line := strings.TrimSpace(fmt.Sprintf(format, v...))
	if n := r.dropped.Swap(0); n > 0 {
		r.log.Warn("go-redis (logged once a minute at most)", "message", line, "dropped", n)
		return
	}
	r.log.Warn("go-redis (logged once a minute at most)", "message", line)
}
