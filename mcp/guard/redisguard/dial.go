package redisguard

import (
	"context"
	"net"
	"time"
)

// Dialer wraps dial, the dialer of a go-redis client, so that the client
// reaches Redis again on the first call after Redis is back, and a call
// made while Redis refuses connections fails at once instead of at its
// deadline. Set it on the options of the client the Limiter uses;
// redis.NewDialer(opt) is go-redis's own dialer, with the options' TLS and
// dial timeout:
//
//	opt.Dialer = redisguard.Dialer(redis.NewDialer(opt))
//
// Without it, go-redis (v9) stops dialling once as many dials as its pool
// size have failed, a dial cut short by a call's deadline included: every
// command then fails with the last dial error without dialling, and one
// background dial a second decides when to try again. A Limiter failing
// open admits every call without limits for that second, or longer, after
// Redis is back. And go-redis retries a failed dial within a command, with
// backoffs that outlast any deadline a Limiter should have: while Redis is
// down, every call waited for its deadline.
//
// With Dialer, a dial that fails reaches go-redis as a connection whose
// every read and write fails with the dial's error (same text, but not a
// *net.OpError, which go-redis would retry): the command fails at once,
// the connection is discarded, no dial failure is counted, and the next
// command dials again.
func Dialer(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return failedConn{err: dialError{err.Error()}, addr: failedAddr{network, addr}}, nil
		}
		return c, nil
	}
}

// dialError is the error of a failed dial, as its text only: go-redis
// retries a command whose error is, or wraps, a *net.OpError of a dial.
type dialError struct{ text string }

func (e dialError) Error() string { return e.text }

// failedConn is a dial that failed, as a connection that fails.
type failedConn struct {
	err  error
	addr failedAddr
}

func (c failedConn) Read([]byte) (int, error)         { return 0, c.err }
func (c failedConn) Write([]byte) (int, error)        { return 0, c.err }
func (c failedConn) Close() error                     { return nil }
func (c failedConn) LocalAddr() net.Addr              { return failedAddr{network: c.addr.network} }
func (c failedConn) RemoteAddr() net.Addr             { return c.addr }
func (c failedConn) SetDeadline(time.Time) error      { return nil }
func (c failedConn) SetReadDeadline(time.Time) error  { return nil }
func (c failedConn) SetWriteDeadline(time.Time) error { return nil }

// failedAddr is the address a failed dial was for.
type failedAddr struct{ network, addr string }

func (a failedAddr) Network() string { return a.network }
func (a failedAddr) String() string  { return a.addr }
