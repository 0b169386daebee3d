package proxy

import (
	"errors"
	"net/http"
	"os/exec"

	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
	"github.com/selfheal/selfheal/mcp/proxy/internal/sessions"
)

// CommandServer serves a stdio MCP server over the Streamable HTTP
// transport of MCP, with the proxy's answers to bad calls: a process of
// the server per session for clients of the session era (revisions up to
// 2025-11-25), and a small pool of processes for clients of revision
// 2026-07-28, which have no session. Each process is relayed as
// [Proxy.Serve] relays one over stdio. It is an http.Handler, safe for
// concurrent use; Close ends it. The command "selfheal proxy --listen ADDR
// CMD ARGS…" runs one.
//
// Each process starts in a process session of its own (setsid on Unix), so
// that the scheduler shares the CPU among the servers, not among their
// proxy's whole group, and a stop reaches what it started: at its end a
// process's stdin is closed, and its group is killed two seconds later if
// it has not exited. warm processes are started ahead and wait for the
// next session, so that a session's first answer costs no process start;
// DELETE is answered at once and its process stopped in the background.
//
// Streams carry event ids and can be resumed (Last-Event-ID). Bounds: a
// body of 4 MiB (413 beyond), 1000 processes (503 for a new session
// beyond), a session idle for 30 minutes ends, a request whose server
// says nothing for WithUpstreamSilence gets a JSON-RPC error. The guards
// are shared by every session, and the handler has HTTPHandler's Host,
// Origin and body safety; it authenticates no one.
type CommandServer struct {
	s *sessions.Server
	h http.Handler // s in the proxy's HTTP safety (guardHTTP)
}

// CommandHandler returns a CommandServer that relays each process as p
// does and starts the processes start returns. start must return a new,
// unstarted command on each call; the server sets its Stdin and Stdout to
// pipes of its own and leaves Stderr as start set it (nil: discarded).
// warm (0 for none) processes are kept started ahead of the sessions that
// will take them. It fails when p was not made by New or start is nil.
func (p *Proxy) CommandHandler(start func() *exec.Cmd, warm int) (*CommandServer, error) {
	if p == nil || p.cfg.Logger == nil {
		return nil, errors.New("proxy: CommandHandler needs a Proxy made by proxy.New")
	}
	if start == nil {
		return nil, errors.New("proxy: CommandHandler needs a start function")
	}
	if warm < 0 {
		return nil, errors.New("proxy: CommandHandler: warm must not be negative")
	}
	s := sessions.New(p.relay(), start, warm)
	return &CommandServer{s: s, h: p.guardHTTP(s)}, nil
}

// ServeHTTP serves one request of the Streamable HTTP transport.
func (c *CommandServer) ServeHTTP(w http.ResponseWriter, r *http.Request) { c.h.ServeHTTP(w, r) }

// Close ends every session and stops every process, the warm ones
// included; it returns once they have been reaped.
func (c *CommandServer) Close() error { return c.s.Close() }

// relay returns what the session server uses of p.
func (p *Proxy) relay() *relay.Relay {
	r := &relay.Relay{Serve: p.serve, Silence: p.cfg.upstreamSilence, Logger: p.cfg.Logger, Limiter: p.sharedLimiter()}
	if f := p.cfg.limitBy; f != nil {
		r.LimitBy = func(req *http.Request) string { return hashLimitBy(f(req)) }
	}
	return r
}

// sharedLimiter is WithLimiter's, or one for WithGuard's limits shared by
// every session: a session per process or per client must not mean a limit
// per session. nil for none.
func (p *Proxy) sharedLimiter() guard.Limiter {
	if p.cfg.limiter == nil && p.cfg.limits != nil {
		l, _ := guard.NewLimiter(*p.cfg.limits) // the limits were checked by New
		return l
	}
	return p.cfg.limiter
}
