package main

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// What a proxy listening on a network gives each client at most, so that
// slow or many clients cannot hold it: the flags' defaults.
const (
	// defaultReadTimeout bounds the reading of a request, headers and body,
	// from its first byte: a client sending a byte at a time is cut then.
	defaultReadTimeout = 30 * time.Second
	// defaultIdleTimeout is how long a kept-alive connection waits for its
	// next request.
	defaultIdleTimeout = 2 * time.Minute
	// defaultUpstreamTimeout is how long the upstream server may stay
	// silent: before its response's headers, and between two reads of
	// its body. A call that streams progress is never cut; a frozen server
	// leaves its client a JSON-RPC error then.
	defaultUpstreamTimeout = 5 * time.Minute
	// defaultBodyMemory bounds the bytes of request bodies being read or
	// held at once, across every request.
	defaultBodyMemory = 128 << 20
	// headerTimeout bounds the reading of a request's headers.
	headerTimeout = 10 * time.Second
	// fdReserve are the file descriptors kept for everything but client
	// connections: the upstream's connections, listeners, logs.
	fdReserve = 128
	// fdPerSession are the descriptors a session's process takes in
	// command mode (its three pipes and the process's handle).
	fdPerSession = 4
	// maxCommandSessions is proxy.CommandServer's bound on sessions
	// (processes).
	maxCommandSessions = 1000
	// defaultWarm is --warm's default: one process of the server waits
	// started, so that the next session's first answer costs no process
	// start (700 ms for a Node server), for the memory of one idle process
	// (see bench/README.md). More would start servers that may never be
	// used, and a server with side effects at its start would have them
	// early; a burst of sessions starts the rest at once anyway.
	defaultWarm = 1
)

// serveLimits are the network bounds of selfheal proxy --listen.
type serveLimits struct {
	readTimeout, idleTimeout time.Duration
	bodyMemory               int64
	maxConns                 int // 0: no bound
}

// connLimit is a listener that serves at most max connections at once.
// Past it, a new connection is answered 503 and closed at once, rather
// than left for accept to fail on the file-descriptor limit.
type connLimit struct {
	net.Listener
	max  int
	open atomic.Int64
}

func (l *connLimit) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) > int64(l.max) {
			l.open.Add(-1)
			refuseConn(c)
			continue
		}
		return &limitedConn{Conn: c, l: l}, nil
	}
}

// refuseConn answers a connection over the limit and closes it, without
// waiting for a client that does not read.
func refuseConn(c net.Conn) {
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = io.WriteString(c, "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n")
	_ = c.Close()
}

// limitedConn counts itself out of its connLimit when closed.
type limitedConn struct {
	net.Conn
	l    *connLimit
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}

// maxConns is how many client connections fit under the process's limit
// of open files, less a reserve and, in command mode, the descriptors of
// sessions' processes (sessions of them at most); 0 when the limit is not
// known.
func maxConns(sessions int) int {
	limit := openFileLimit()
	if limit <= 0 {
		return 0
	}
	return max(limit-fdReserve-sessions*fdPerSession, 16)
}
