package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/internal/formatter"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/guard/redisguard"
	"github.com/selfheal/selfheal/mcp/proxy"
	"github.com/selfheal/selfheal/mcp/proxy/sessions"
)

const proxyUsage = "usage: selfheal proxy [flags] [--] COMMAND [ARG...]"

// proxyHelp is what -h prints above the flags: the three ways to run the
// proxy, where the server's command starts, and what --strict changes.
const proxyHelp = proxyUsage + `
       selfheal proxy --listen ADDR [flags] --upstream URL
       selfheal proxy --listen ADDR [flags] [--] COMMAND [ARG...]

The server's command starts at the first argument that is not one of the
flags below (or a flag's value) and takes every argument after it, flags
included: in selfheal proxy --strict node server.js --port 3, --port 3 is
the server's. A "--" ends the proxy's flags where it stands.

By default a tool call is forwarded to the server, and when the server
rejects it, the client reads selfheal's validation_error instead, with what
the server said. --strict answers every call that fails the tool's schema
before it reaches the server.

flags:`

// commandsPath is the MCP endpoint of --listen ADDR COMMAND.
const commandsPath = "/mcp"

// shutdownTimeout bounds how long the calls under way may take to finish
// once SIGINT or SIGTERM asks an HTTP proxy to stop.
const shutdownTimeout = 10 * time.Second

// streamLinger is how long the standalone streams outlive the last call
// under way at shutdown. A client reads a call's answer and the end of its
// standalone stream in two goroutines, and the go-sdk's fails every call
// it has not yet taken an answer for when the stream ends: without the
// linger, an answer the proxy had sent was lost in about one shutdown in
// ten on a loaded machine. It costs a stopping proxy this much only while
// a client holds a standalone stream open.
const streamLinger = time.Second

// forwarded are the signals the proxy passes on to the server: what a
// client (or a user at a terminal) sends to stop the server reaches the
// process that is the server, and the proxy then ends with its status.
var forwarded = []os.Signal{os.Interrupt, syscall.SIGTERM}

// proxyCommand implements `selfheal proxy`: it starts the MCP server
// COMMAND and relays JSON-RPC between it and the client on stdin/stdout,
// explaining the tool calls the server rejects (with --strict, answering
// those whose arguments fail their schema itself). It returns the
// server's exit status (128+N when signal N killed it), or 2 when the flags
// are wrong or the server cannot be started.
func proxyCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	locale := fs.String("locale", "en", "the language of the messages: a BCP 47 tag or an Accept-Language value")
	examples := fs.Bool("examples", true, "add a valid example to format expectations")
	maxIssues := fs.Int("max-issues", formatter.DefaultMaxIssues, "the most issue lines in one validation_error; negative means no cap")
	maxBytes := fs.Int("max-bytes", formatter.DefaultMaxBytes, "the most bytes of issue lines in one validation_error; negative means no cap")
	maxValueRunes := fs.Int("max-value-runes", formatter.DefaultMaxValueRunes, "where a value shown to the model is cut, in characters")
	redact := fs.String("redact", "", "comma-separated field names whose values are never shown, replacing the default list (password, token, secret...); --redact= shows every value")
	strict := fs.Bool("strict", false, "answer every call whose arguments fail the tool's schema before it reaches the server, for servers that do not validate their own input (a bad call would run); without it a call is forwarded, and explained when the server rejects it")
	typos := onOff(true)
	fs.Var(&typos, "typos", "on or off: an undeclared key that is a near miss of a declared one ('dryrun' for 'dryRun') is an issue with a did-you-mean, even when the schema is open, answered before the call reaches the server whatever --strict says")
	lockfile := fs.String("lockfile", "", "a lockfile (selfheal lock) of the server's tools: validation_errors of changed tools carry <contract_awareness>")
	maxActive := fs.Int("max-active", 0, "per tool: how many calls may run at the same time (0: any number); more are queued, then answered SERVER_BUSY")
	maxQueued := fs.Int("max-queued", 0, "per tool, with --max-active: how many calls may wait for a slot (0: unbounded, -1: none)")
	rate := fs.Float64("rate", 0, "per tool: calls per second admitted on average (0: no limit); more are answered RATE_LIMITED")
	burst := fs.Int("burst", 0, "per tool, with --rate: how many calls may be admitted at once above the rate (0 means 1)")
	maxDepth := fs.Int("max-depth", issues.DefaultMaxDepth, "how deeply a call's arguments may nest objects and arrays to be checked: deeper ones are forwarded unchecked, or with --strict answered with too_big; negative means no limit")
	logPath := fs.String("log", "", "append one JSON line per call the proxy answers to this file (time, tool, codes, paths; never the values sent)")
	listen := fs.String("listen", "", "serve MCP's Streamable HTTP transport on this address (host:port): in front of --upstream URL, at its path, or of the stdio server COMMAND, one process per session, at "+commandsPath)
	upstream := fs.String("upstream", "", "with --listen: the URL of the Streamable HTTP MCP server behind the proxy (http://host:port/mcp)")
	redisURL := fs.String("redis", "", "keep the counters of --max-active and --rate in this Redis (redis://[user:password@]host:port/db), shared by every replica of the proxy; calls beyond --max-active are not queued")
	redisFail := fs.String("redis-fail", "open", "with --redis, what a call gets while Redis cannot be reached: open (admitted unchecked) or closed (SERVER_BUSY)")
	redisTimeout := fs.Duration("redis-timeout", defaultRedisTimeout, "with --redis, how long a call waits for Redis before Redis counts as unreachable (then --redis-fail applies); much shorter fails calls Redis answers on a busy machine, and with --redis-fail open admits them unchecked")
	limitBy := fs.String("limit-by", "", "with --listen: apply the limits per session (session: its Mcp-Session-Id) or per value of a request header (header:NAME, as header:X-Api-Key) rather than per tool for everyone")
	readTimeout := fs.Duration("read-timeout", defaultReadTimeout, "with --listen: how long a client may take to send a request's body; a slower one is cut")
	idleTimeout := fs.Duration("idle-timeout", defaultIdleTimeout, "with --listen: how long a kept-alive connection waits for its next request")
	upstreamTimeout := fs.Duration("upstream-timeout", defaultUpstreamTimeout, "with --upstream: how long the server may stay silent (before its response, or between two parts of a streamed one) before the client gets a JSON-RPC error; a call that streams progress is never cut")
	bodyMemory := fs.Int("body-memory", defaultBodyMemory>>20, "with --listen: the MiB of request bodies the proxy reads or holds at once, for all clients; a request that does not fit waits, then gets 503")
	allowedHosts := fs.String("allowed-hosts", "", "with --listen: comma-separated host names the proxy serves, from the Host header (* for any); by default only localhost and loopback addresses when it listens on loopback, any host otherwise")
	allowedOrigins := fs.String("allowed-origins", "", "with --listen: comma-separated origins (scheme://host[:port]) of web pages that may call the proxy (* for any), beside loopback pages on loopback and the proxy's own")
	metricsAddr := fs.String("metrics", "", "serve Prometheus metrics at "+metricsPath+" on this address (host:port)")
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "selfheal proxy: "+format+"\n", a...)
		return exitUsage
	}
	command, err := parseProxyArgs(fs, args)
	if err != nil {
		return parseError(err, fs, proxyHelp, stdout, fail)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var upstreamURL *url.URL
	switch {
	case *listen == "" && set["listen"]:
		return fail("--listen needs an address, as --listen 127.0.0.1:8080")
	case *listen == "" && set["upstream"]:
		return fail("--upstream needs --listen ADDR: selfheal proxy --listen ADDR --upstream %s", *upstream)
	case *listen == "" && set["limit-by"]:
		return fail("--limit-by needs --listen: over stdio the proxy has one client")
	case *listen == "" && (set["allowed-hosts"] || set["allowed-origins"]):
		return fail("--allowed-hosts and --allowed-origins need --listen: over stdio there is no Host or Origin")
	case *listen == "" && (set["read-timeout"] || set["idle-timeout"] || set["body-memory"]):
		return fail("--read-timeout, --idle-timeout and --body-memory need --listen: over stdio there is no connection to bound")
	case !set["upstream"] && set["upstream-timeout"]:
		return fail("--upstream-timeout needs --upstream URL")
	case *readTimeout <= 0 || *idleTimeout <= 0 || *upstreamTimeout <= 0:
		return fail("--read-timeout, --idle-timeout and --upstream-timeout must be positive durations, as 30s")
	case *bodyMemory < 1 || *bodyMemory > 1<<20:
		return fail("--body-memory must be between 1 and 1048576 MiB, not %d", *bodyMemory)
	case *listen == "" && len(command) == 0:
		return fail("no server command: %s", strings.TrimPrefix(proxyUsage, "usage: "))
	case *listen != "" && set["upstream"] && len(command) > 0:
		return fail("--upstream and a server command exclude each other: the proxy is in front of one server")
	case *listen != "" && set["upstream"]:
		u, err := url.Parse(*upstream)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fail("--upstream must be an absolute http or https URL, as http://127.0.0.1:3000/mcp, not %q", *upstream)
		}
		upstreamURL = u
	case *listen != "" && len(command) == 0:
		return fail("--listen needs --upstream URL or a server command: selfheal proxy --listen ADDR --upstream URL, or selfheal proxy --listen ADDR COMMAND")
	}
	limitKey, err := parseLimitBy(*limitBy)
	if err != nil {
		return fail("%v", err)
	}
	if *redisFail != "open" && *redisFail != "closed" {
		return fail("--redis-fail must be open or closed, not %q", *redisFail)
	}
	if set["redis-fail"] && *redisURL == "" {
		return fail("--redis-fail needs --redis URL")
	}
	if set["redis-timeout"] && *redisURL == "" {
		return fail("--redis-timeout needs --redis URL")
	}
	if *redisTimeout <= 0 {
		return fail("--redis-timeout must be a positive duration, as 500ms, not %v", *redisTimeout)
	}
	var redisOpts *redis.Options
	if *redisURL != "" {
		o, err := redis.ParseURL(*redisURL)
		if err != nil {
			return fail("--redis %q: %s", *redisURL, strings.TrimPrefix(oneLine(err), "redis: "))
		}
		// go-redis itself stops at the limiter's deadline, and reaches
		// Redis again on the first call after an outage.
		o.ContextTimeoutEnabled = true
		o.Dialer = redisguard.Dialer(redis.NewDialer(o))
		redisOpts = o
		if set["max-queued"] {
			return fail("--max-queued cannot be used with --redis: the limits kept in Redis have no queue, a call beyond --max-active is answered SERVER_BUSY at once")
		}
		if !set["max-active"] && !set["rate"] {
			return fail("--redis keeps the counters of --max-active and --rate: set one of them")
		}
	}

	engineOpts := []selfheal.Option{
		selfheal.WithLocale(*locale),
		selfheal.WithExamples(*examples),
		selfheal.WithMaxIssues(*maxIssues),
		selfheal.WithMaxBytes(*maxBytes),
		selfheal.WithMaxValueRunes(*maxValueRunes),
	}
	if set["redact"] {
		engineOpts = append(engineOpts, selfheal.WithRedact(splitList(*redact)...))
	}
	// Everything written on stderr by the proxy and, when stderr is not a
	// file the child can share, by exec's copy of the child's stderr goes
	// through one lock so that lines do not interleave mid-line.
	errOut := stderr
	if _, ok := stderr.(*os.File); !ok {
		errOut = &lockedWriter{w: stderr}
	}
	opts := []proxy.Option{
		proxy.WithEngine(selfheal.New(engineOpts...)),
		proxy.WithTypos(bool(typos)),
		proxy.WithStrict(*strict),
		proxy.WithMaxDepth(*maxDepth),
	}
	if *lockfile != "" {
		l, err := contract.ReadFile(*lockfile)
		if err != nil {
			return fail("%v", oneLine(err))
		}
		opts = append(opts, proxy.WithContract(l))
	}
	logger := slog.New(slog.NewTextHandler(errOut, nil)).With("component", "selfheal proxy")
	if set["max-active"] || set["max-queued"] || set["rate"] || set["burst"] {
		l := guard.Limits{MaxActive: *maxActive, MaxQueued: *maxQueued, Rate: *rate, Burst: *burst}
		if err := checkLimits(l); err != nil {
			return fail("%v", err)
		}
		if redisOpts == nil {
			opts = append(opts, proxy.WithGuard(l))
		} else {
			l.MaxQueued = guard.NoQueue
			redis.SetLogger(newRedisLog(logger)) // go-redis's own lines, for the whole process
			client := redis.NewClient(redisOpts)
			defer client.Close()
			lim, err := redisguard.New(client, l,
				redisguard.WithFailClosed(*redisFail == "closed"),
				redisguard.WithTimeout(*redisTimeout),
				redisguard.WithLogger(logger))
			if err != nil {
				return fail("%v", oneLine(err))
			}
			opts = append(opts, proxy.WithLimiter(lim))
		}
	}
	if limitKey != nil {
		opts = append(opts, proxy.WithLimitBy(limitKey))
	}
	if set["allowed-hosts"] {
		opts = append(opts, proxy.WithAllowedHosts(splitList(*allowedHosts)...))
	}
	if set["allowed-origins"] {
		opts = append(opts, proxy.WithAllowedOrigins(splitList(*allowedOrigins)...))
	}
	if *listen != "" && !set["allowed-hosts"] && !loopbackAddr(*listen) {
		fmt.Fprintf(errOut, "selfheal proxy: --listen %s is reachable from other machines and serves any Host: a web page can reach it by DNS rebinding; name the hosts it serves with --allowed-hosts\n", *listen)
	}
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return fail("%v", err)
		}
		defer f.Close()
		opts = append(opts, proxy.WithCallLog(f))
	}
	var metrics *proxyMetrics
	if *metricsAddr != "" {
		metrics = newProxyMetrics()
		opts = append(opts, proxy.WithObserver(metrics.observe))
	}
	if upstreamURL != nil {
		transport := timedTransport(http.DefaultTransport.(*http.Transport), *upstreamTimeout)
		if metrics != nil {
			transport = metrics.transport(transport)
		}
		opts = append(opts, proxy.WithTransport(transport))
	}
	opts = append(opts, proxy.WithLogger(logger))
	p, err := proxy.New(opts...)
	if err != nil {
		return fail("%v", oneLine(err))
	}
	if *listen != "" && upstreamURL == nil {
		// Every session starts the command: one that cannot be found is
		// the operator's error now, not each client's later.
		if _, err := exec.LookPath(command[0]); err != nil {
			return fail("cannot start %q: %s", command[0], startError(err))
		}
	}
	if metrics != nil {
		ln, err := net.Listen("tcp", *metricsAddr)
		if err != nil {
			return fail("--metrics: %v", oneLine(err))
		}
		srv := &http.Server{
			Handler:           metrics.handler(),
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          log.New(errOut, "selfheal proxy: metrics: ", 0),
		}
		go srv.Serve(ln)
		defer srv.Close()
		fmt.Fprintf(errOut, "selfheal proxy: metrics on http://%s%s\n", ln.Addr(), metricsPath)
	}
	limits := serveLimits{readTimeout: *readTimeout, idleTimeout: *idleTimeout, bodyMemory: int64(*bodyMemory) << 20}
	switch {
	case *listen == "":
		return runChild(p, command, stdin, stdout, errOut)
	case upstreamURL != nil:
		path := upstreamURL.Path
		if path == "" {
			path = "/"
		}
		limits.maxConns = maxConns(0)
		return serveHTTP(*listen, path, p.HTTPHandler(upstreamURL), nil, limits, errOut)
	default:
		limits.maxConns = maxConns(maxCommandSessions)
		cmds := sessions.New(p, func() *exec.Cmd {
			cmd := exec.Command(command[0], command[1:]...)
			cmd.Stderr = errOut
			return cmd
		})
		return serveHTTP(*listen, commandsPath, cmds, cmds.Close, limits, errOut)
	}
}

// loopbackAddr reports whether a listen address (host:port) is on this
// machine only: localhost or a loopback IP. An empty host, 0.0.0.0 or ::
// listen on every interface.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// parseProxyArgs parses the proxy's flags at the head of args and returns
// the server command: what follows the first "--", or else everything from
// the first argument that is neither a flag nor a flag's value. Clients
// such as MCP Inspector's CLI consume a "--" of their own, so the command
// must work without one; once the server's command has started, nothing
// is read as ours, so that its flags ("node server.js --port 3") and its
// own "--" ("cargo run -- --stdio") reach it unchanged.
func parseProxyArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	flags := args
	i := slices.Index(args, "--")
	if i >= 0 {
		// A "--" is never a flag's value: "--log -- srv" lacks the log's
		// path, as it did before the command could go without "--".
		flags = args[:i]
	}
	if err := fs.Parse(flags); err != nil {
		return nil, err
	}
	if fs.NArg() == 0 {
		if i < 0 {
			return nil, nil
		}
		return args[i+1:], nil
	}
	start := len(flags) - fs.NArg()
	if start > 0 && isSwitchValue(fs, args[start-1], args[start]) {
		// "--typos off" sets --typos and would start a server named off
		// (or /bin/false for "--examples false"): a typo, not a server.
		return nil, fmt.Errorf("%s %s: a switch takes its value after \"=\", as %s=%s; a server command named %q goes after --", args[start-1], args[start], args[start-1], args[start], args[start])
	}
	return args[start:], nil
}

// isSwitchValue reports whether arg is a boolean flag of fs written
// without a value and next the spelling of one (on, off, true, false...).
func isSwitchValue(fs *flag.FlagSet, arg, next string) bool {
	name, ok := strings.CutPrefix(arg, "-")
	if !ok || strings.Contains(name, "=") {
		return false
	}
	f := fs.Lookup(strings.TrimPrefix(name, "-"))
	if f == nil {
		return false
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
		return false
	}
	switch strings.ToLower(next) {
	case "on", "off", "true", "false", "yes", "no", "t", "f", "1", "0":
		return true
	}
	return false
}

// parseLimitBy reads --limit-by: the function giving the value of a
// request the limits are kept per, or nil for none.
func parseLimitBy(s string) (func(*http.Request) string, error) {
	switch {
	case s == "":
		return nil, nil
	case s == "session":
		return func(r *http.Request) string { return r.Header.Get("Mcp-Session-Id") }, nil
	case strings.HasPrefix(s, "header:") && validHeaderName(strings.TrimPrefix(s, "header:")):
		name := http.CanonicalHeaderKey(strings.TrimPrefix(s, "header:"))
		return func(r *http.Request) string { return r.Header.Get(name) }, nil
	}
	return nil, fmt.Errorf("--limit-by must be session or header:NAME (as header:X-Api-Key), not %q", s)
}

// validHeaderName reports whether s is a header name: one or more token
// characters (RFC 9110).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// serveHTTP serves h at path on addr (404 elsewhere) until SIGINT or
// SIGTERM, then stops: no new connection is accepted, the calls under way
// have shutdownTimeout to finish (a second signal cuts them), the
// standalone streams (GET) end streamLinger after they have, and then
// closeFn (if any) ends what h still holds. It prints the address it
// listens on, so that --listen :0 can be used, and returns 0 when stopped
// by a signal, 2 when it cannot listen, 1 when serving fails.
func serveHTTP(addr, path string, h http.Handler, closeFn func() error, limits serveLimits, stderr io.Writer) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, forwarded...)
	defer signal.Stop(sigs)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if closeFn != nil {
			closeFn()
		}
		fmt.Fprintf(stderr, "selfheal proxy: --listen: %s\n", oneLine(err))
		return exitUsage
	}
	if limits.maxConns > 0 {
		ln = &connLimit{Listener: ln, max: limits.maxConns}
	}
	streams, endStreams := context.WithCancel(context.Background())
	defer endStreams()
	ep := &mcpEndpoint{path: path, h: newBodyBudget(limits.bodyMemory).wrap(h, limits.readTimeout), streams: streams}
	srv := &http.Server{
		Handler:           ep,
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       limits.idleTimeout,
		ErrorLog:          log.New(stderr, "selfheal proxy: ", 0),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stderr, "selfheal proxy: listening on http://%s%s\n", ln.Addr(), path)

	code := 0
	select {
	case <-sigs:
		ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		stopped := make(chan error, 1)
		go func() { stopped <- srv.Shutdown(ctx) }()
		// A standalone stream carries only what the server sends on its
		// own, and never ends by itself: it must not hold the shutdown
		// back. But a client may take its end for the session's (the
		// go-sdk's fails its calls under way), so it ends streamLinger
		// after them.
		go func() {
			ep.waitCalls(ctx)
			linger := time.NewTimer(streamLinger)
			defer linger.Stop()
			select {
			case <-ctx.Done():
			case <-linger.C:
			}
			endStreams()
		}()
		select {
		case err = <-stopped:
		case <-sigs:
			cancel()
			err = <-stopped
		}
		cancel()
		endStreams()
		if err != nil {
			srv.Close()
		}
		<-served
	case err := <-served:
		fmt.Fprintf(stderr, "selfheal proxy: %s\n", oneLine(err))
		code = 1
	}
	if closeFn != nil {
		if err := closeFn(); err != nil {
			fmt.Fprintf(stderr, "selfheal proxy: %s\n", oneLine(err))
		}
	}
	return code
}

// mcpEndpoint serves h at path only. It counts the requests under way
// other than the standalone streams (GET), and ends those streams when
// streams ends.
type mcpEndpoint struct {
	path    string
	h       http.Handler
	streams context.Context
	calls   atomic.Int64 // requests other than GET under way
}

func (e *mcpEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != e.path {
		http.Error(w, "selfheal proxy: not found; the MCP endpoint is "+e.path, http.StatusNotFound)
		return
	}
	if r.Method != http.MethodGet {
		e.calls.Add(1)
		defer e.calls.Add(-1)
		e.h.ServeHTTP(w, r)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(e.streams, cancel)
	defer stop()
	e.h.ServeHTTP(w, r.WithContext(ctx))
}

// waitCalls returns once no request other than a GET is under way, or
// when ctx ends.
func (e *mcpEndpoint) waitCalls(ctx context.Context) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for e.calls.Load() > 0 {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// runChild starts command with pipes for its stdin and stdout and our
// stderr, relays through p until the server's stdout ends, waits for the
// server and returns its exit status. Signals in forwarded are passed on to
// the server while it runs.
func runChild(p *proxy.Proxy, command []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stderr = stderr
	// Pipes of our own rather than cmd.StdinPipe and cmd.StdoutPipe: Wait
	// closes those, so it could not run while Serve still reads the last
	// answers; with these the relay ends on the server's EOF and Wait only
	// reaps the process.
	childIn, toServer, err := os.Pipe()
	if err != nil {
		fmt.Fprintf(stderr, "selfheal proxy: %v\n", err)
		return exitUsage
	}
	fromServer, childOut, err := os.Pipe()
	if err != nil {
		childIn.Close()
		toServer.Close()
		fmt.Fprintf(stderr, "selfheal proxy: %v\n", err)
		return exitUsage
	}
	// Writes to the server block in the kernel rather than park on the
	// runtime's network poller (Fd puts the pipe in blocking mode). A
	// goroutine that the poller wakes runs on the thread that was polling,
	// and when this one (which reads stdin with blocking system calls, as
	// os.Stdin does) went back to reading stdin after the end of a message
	// that had filled the 64 KiB pipe, no thread polled any more: the
	// server's answer waited for the runtime's fallback poll, 10 ms or
	// more (issue 29: 11.6 ms for a call with 70 KB of arguments, 0.9 ms
	// at 60 KB). Reading stdin through the poller removes that stall too,
	// but costs every small call 15 to 30 µs; this costs none.
	toServer.Fd()
	cmd.Stdin, cmd.Stdout = childIn, childOut
	// Listening before the start: a signal sent as soon as the server runs
	// is passed on rather than killing the proxy and orphaning the server.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, forwarded...)
	defer signal.Stop(sigs)
	err = cmd.Start()
	// The child has its own copies of its ends (or failed to start); ours
	// must go, or the server would never see EOF on its stdin and we would
	// never see it on its stdout.
	childIn.Close()
	childOut.Close()
	if err != nil {
		toServer.Close()
		fromServer.Close()
		fmt.Fprintf(stderr, "selfheal proxy: cannot start %q: %s\n", command[0], startError(err))
		return exitUsage
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Serve closes toServer when the client ends; closing it again when
	// the server ended first must be harmless.
	in := &closeOnce{File: toServer}
	served := make(chan error, 1)
	go func() { served <- p.Serve(ctx, stdin, stdout, fromServer, in) }()

	var waited chan error
	for {
		select {
		case sig := <-sigs:
			forward(cmd.Process, sig)
		case err := <-served:
			served = nil
			if err != nil && !errors.Is(err, context.Canceled) {
				fmt.Fprintf(stderr, "selfheal proxy: %s\n", oneLine(err))
			}
			// The relay is over: the server's stdout ended (it exited or
			// closed it), or the client's side failed. The server's stdin
			// closing is its cue to exit if it has not; we wait for it.
			in.Close()
			fromServer.Close()
			waited = make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
		case <-waited:
			cancel()
			return exitStatus(cmd.ProcessState)
		}
	}
}

// forward passes sig on to the server. Where signals cannot be sent to
// another process (Windows), the server is killed instead, which is what
// SIGTERM would have asked of it.
func forward(p *os.Process, sig os.Signal) {
	if err := p.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		_ = p.Kill()
	}
}

// exitStatus is the status a shell would report for the server: its exit
// code, or 128+N when signal N killed it, so that `selfheal proxy -- X`
// ends as X would have.
func exitStatus(ps *os.ProcessState) int {
	if ps == nil {
		return exitUsage
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	if code := ps.ExitCode(); code >= 0 {
		return code
	}
	return 1
}

// startError is the reason a command could not be started, without the
// "exec:" or "fork/exec PATH:" prefixes, since the message already names
// the command.
func startError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err.Error()
	}
	return oneLine(err)
}

// checkLimits is guard.Limits.Validate worded with the flags' names, which
// are what the user typed.
func checkLimits(l guard.Limits) error {
	switch {
	case l.MaxActive < 0:
		return fmt.Errorf("--max-active must be 0 (no limit) or more, not %d", l.MaxActive)
	case l.MaxQueued < guard.NoQueue:
		return fmt.Errorf("--max-queued must be 0 (unbounded), a positive bound or -1 (never queue), not %d", l.MaxQueued)
	case l.Rate < 0 || math.IsNaN(l.Rate):
		return fmt.Errorf("--rate must be 0 (no limit) or a positive number of calls per second, not %v", l.Rate)
	case l.Burst < 0:
		return fmt.Errorf("--burst must be 0 (meaning 1) or more, not %d", l.Burst)
	}
	return l.Validate()
}

// splitList splits a comma-separated flag value, dropping blanks, so that
// "password, pin," names two fields.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// onOff is a boolean flag spelt on or off (true and false work too), so
// that --typos=off reads as the documentation says; --typos alone means on.
type onOff bool

func (b *onOff) String() string {
	if b != nil && bool(*b) {
		return "on"
	}
	return "off"
}

func (b *onOff) Set(s string) error {
	switch strings.ToLower(s) {
	case "on", "true", "1", "yes":
		*b = true
	case "off", "false", "0", "no":
		*b = false
	default:
		return fmt.Errorf("want on or off, not %q", s)
	}
	return nil
}

func (b *onOff) IsBoolFlag() bool { return true }

// closeOnce makes closing the server's stdin idempotent: Serve closes it
// when the client ends, runChild when the server ends first.
type closeOnce struct {
	*os.File
	once sync.Once
	err  error
}

func (c *closeOnce) Close() error {
	c.once.Do(func() { c.err = c.File.Close() })
	return c.err
}

// lockedWriter serializes writes to a stderr that the proxy's logger and
// exec's copy of the child's stderr share.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
