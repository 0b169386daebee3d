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
	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/guard/redisguard"
	"github.com/selfheal/selfheal/mcp/proxy"
)

const proxyUsage = "usage: selfheal proxy [flags] [--] COMMAND [ARG...]"

// proxyHelp is what -h prints above the flags: the three ways to run the
// proxy, where the server's command starts, and where the details are.
const proxyHelp = proxyUsage + `
       selfheal proxy --listen ADDR [flags] --upstream URL
       selfheal proxy --listen ADDR [flags] [--] COMMAND [ARG...]

A call is forwarded, and a refusal about its arguments is explained. The
server's command starts at the first argument that is not a flag. Details:
go doc github.com/selfheal/selfheal/cmd/selfheal, and the README.`

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
	c, err := parseProxyConfig(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printProxyHelp(stdout, fs)
		return exitValid
	}
	if err != nil {
		return parseError(err, fs, proxyHelp, stdout, proxyFail(stderr))
	}
	return runProxy(c, stdin, stdout, stderr)
}

// proxyFail writes a usage error of selfheal proxy, one line on stderr,
// and returns exit status 2.
func proxyFail(stderr io.Writer) func(format string, a ...any) int {
	return func(format string, a ...any) int {
		fmt.Fprintf(stderr, "selfheal proxy: "+format+"\n", a...)
		return exitUsage
	}
}

// runProxy builds the proxy c describes and runs it: over stdio, or
// listening until a signal stops it. What c names and only the build can
// check (a lockfile, the call log's file, the server's executable, the
// metrics address) fails as the flags do, one line and exit 2.
func runProxy(c *proxyConfig, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := proxyFail(stderr)
	// Everything written on stderr by the proxy and, when stderr is not a
	// file the child can share, by exec's copy of the child's stderr goes
	// through one lock so that lines do not interleave mid-line.
	errOut := stderr
	if _, ok := stderr.(*os.File); !ok {
		errOut = &lockedWriter{w: stderr}
	}
	logger := slog.New(slog.NewTextHandler(errOut, nil)).With("component", "selfheal proxy")
	opts, closeAll, err := c.options(logger)
	defer closeAll()
	if err != nil {
		return fail("%s", oneLine(err))
	}
	if c.listen != "" && c.allowedHosts == nil && !loopbackAddr(c.listen) {
		fmt.Fprintf(errOut, "selfheal proxy: --listen %s is reachable from other machines and serves any Host: a web page can reach it by DNS rebinding; name the hosts it serves with --allowed-hosts\n", c.listen)
	}
	var metrics *proxyMetrics
	if c.metrics != "" {
		metrics = newProxyMetrics()
		opts = append(opts, proxy.WithObserver(metrics.observe), proxy.WithOutcomes(metrics.outcome))
	}
	if c.upstream != nil && metrics != nil {
		// The proxy's own transport, counted: every request goes to one
		// host, which may keep the whole pool's idle connections.
		rt := http.DefaultTransport.(*http.Transport).Clone()
		rt.MaxIdleConnsPerHost = max(rt.MaxIdleConns, 100)
		rt.ResponseHeaderTimeout = c.upstreamTimeout
		opts = append(opts, proxy.WithTransport(metrics.transport(rt)))
	}
	opts = append(opts, proxy.WithReadTimeout(c.serve.readTimeout), proxy.WithBodyMemory(c.serve.bodyMemory),
		proxy.WithUpstreamSilence(c.upstreamTimeout))
	opts = append(opts, proxy.WithLogger(logger))
	p, err := proxy.New(opts...)
	if err != nil {
		return fail("%s", oneLine(err))
	}
	if c.listen != "" && c.upstream == nil {
		// Every session starts the command: one that cannot be found is
		// the operator's error now, not each client's later.
		if _, err := exec.LookPath(c.command[0]); err != nil {
			return fail("cannot start %q: %s", c.command[0], startError(err))
		}
	}
	if metrics != nil {
		ln, err := net.Listen("tcp", c.metrics)
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
	limits := c.serve
	switch {
	case c.listen == "":
		return runChild(p, c.command, stdin, stdout, errOut)
	case c.upstream != nil:
		path := c.upstream.Path
		if path == "" {
			path = "/"
		}
		limits.maxConns = maxConns(0)
		return serveHTTP(c.listen, path, p.HTTPHandler(c.upstream), nil, limits, errOut)
	default:
		limits.maxConns = maxConns(maxCommandSessions)
		cmds, err := p.CommandHandler(func() *exec.Cmd {
			cmd := exec.Command(c.command[0], c.command[1:]...)
			cmd.Stderr = errOut
			return cmd
		}, c.warm)
		if err != nil {
			return fail("%v", err)
		}
		return serveHTTP(c.listen, commandsPath, cmds, cmds.Close, limits, errOut)
	}
}

// options are the proxy's options for what the engine says, the contract,
// the limits, the Host and Origin rules and the call log. It opens the
// lockfile, the call log and the Redis client c names; closeAll, never
// nil, closes what it opened, after the proxy has run or when err says
// why it cannot.
func (c *proxyConfig) options(logger *slog.Logger) (opts []proxy.Option, closeAll func(), err error) {
	var closers []io.Closer
	closeAll = func() {
		for _, cl := range closers {
			cl.Close()
		}
	}
	engineOpts := []selfheal.Option{
		selfheal.WithLocale(c.locale),
		selfheal.WithExamples(c.examples),
		selfheal.WithMaxIssues(c.maxIssues),
		selfheal.WithMaxBytes(c.maxBytes),
		selfheal.WithMaxValueRunes(c.maxValueRunes),
	}
	if c.redact != nil {
		engineOpts = append(engineOpts, selfheal.WithRedact(c.redact...))
	}
	opts = []proxy.Option{
		proxy.WithEngine(selfheal.New(engineOpts...)),
		proxy.WithTypos(c.typos),
		proxy.WithStrict(c.strict),
		proxy.WithMaxDepth(c.maxDepth),
	}
	if c.lockfile != "" {
		l, err := contract.ReadFile(c.lockfile)
		if err != nil {
			return nil, closeAll, err
		}
		opts = append(opts, proxy.WithContract(l))
	}
	switch {
	case c.limits == nil:
	case c.redisURL == "":
		opts = append(opts, proxy.WithGuard(*c.limits))
	default:
		o, err := redisOptions(c.redisURL)
		if err != nil {
			return nil, closeAll, err
		}
		redis.SetLogger(newRedisLog(logger)) // go-redis's own lines, for the whole process
		client := redis.NewClient(o)
		closers = append(closers, client)
		lim, err := redisguard.New(client, *c.limits,
			redisguard.WithFailClosed(c.redisFailClosed),
			redisguard.WithTimeout(c.redisTimeout),
			redisguard.WithLogger(logger))
		if err != nil {
			return nil, closeAll, err
		}
		opts = append(opts, proxy.WithLimiter(lim))
	}
	if c.limitHeader != "" {
		name := c.limitHeader
		opts = append(opts, proxy.WithLimitBy(func(r *http.Request) string { return r.Header.Get(name) }))
	}
	if c.allowedHosts != nil {
		opts = append(opts, proxy.WithAllowedHosts(c.allowedHosts...))
	}
	if c.allowedOrigins != nil {
		opts = append(opts, proxy.WithAllowedOrigins(c.allowedOrigins...))
	}
	if c.logPath != "" {
		f, err := os.OpenFile(c.logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, closeAll, err
		}
		closers = append(closers, f)
		opts = append(opts, proxy.WithCallLog(f))
	}
	return opts, closeAll, nil
}

// loopbackAddr reports whether a listen address (host:port) is on this
// machine only: localhost or a loopback IP. An empty host, 0.0.0.0 or ::
// listen on every interface.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return strings.EqualFold(host, "localhost") || ip != nil && ip.IsLoopback()
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
	ep := &mcpEndpoint{path: path, h: h, streams: streams}
	srv := &http.Server{
		Handler:           ep,
		ReadHeaderTimeout: headerTimeout,
		ReadTimeout:       limits.readTimeout, // lifted by net/http once the body has come
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
