package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/formatter"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/proxy"
)

const proxyUsage = "usage: selfheal proxy [flags] -- COMMAND [ARG...]"

// forwarded are the signals the proxy passes on to the server: what a
// client (or a user at a terminal) sends to stop the server reaches the
// process that is the server, and the proxy then ends with its status.
var forwarded = []os.Signal{os.Interrupt, syscall.SIGTERM}

// proxyCommand implements `selfheal proxy`: it starts the MCP server
// COMMAND and relays JSON-RPC between it and the client on stdin/stdout,
// answering the tool calls whose arguments fail their schema. It returns the
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
	typos := onOff(true)
	fs.Var(&typos, "typos", "on or off: an undeclared key that is a near miss of a declared one ('dryrun' for 'dryRun') is an issue with a did-you-mean, even when the schema is open")
	lockfile := fs.String("lockfile", "", "a lockfile (selfheal lock) of the server's tools: validation_errors of changed tools carry <contract_awareness>")
	maxActive := fs.Int("max-active", 0, "per tool: how many calls may run at the same time (0: any number); more are queued, then answered SERVER_BUSY")
	maxQueued := fs.Int("max-queued", 0, "per tool, with --max-active: how many calls may wait for a slot (0: unbounded, -1: none)")
	rate := fs.Float64("rate", 0, "per tool: calls per second admitted on average (0: no limit); more are answered RATE_LIMITED")
	burst := fs.Int("burst", 0, "per tool, with --rate: how many calls may be admitted at once above the rate (0 means 1)")
	maxDepth := fs.Int("max-depth", issues.DefaultMaxDepth, "how deeply a call's arguments may nest objects and arrays before the proxy answers the call with too_big; negative means no limit")
	logPath := fs.String("log", "", "append one JSON line per call the proxy answers to this file (time, tool, codes, paths; never the values sent)")
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "selfheal proxy: "+format+"\n", a...)
		return exitUsage
	}
	flags, command, dashed := splitCommand(args)
	if err := fs.Parse(flags); err != nil {
		return parseError(err, fs, proxyUsage, stdout, fail)
	}
	if fs.NArg() > 0 {
		if dashed {
			return fail("unexpected argument %q before --", fs.Arg(0))
		}
		// Without "--" the server's own flags would be read as ours; make
		// the boundary explicit rather than guess it.
		return fail("put the server command after --: selfheal proxy [flags] -- %s", strings.Join(fs.Args(), " "))
	}
	if len(command) == 0 {
		return fail("no server command: %s", strings.TrimPrefix(proxyUsage, "usage: "))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

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
		proxy.WithMaxDepth(*maxDepth),
		proxy.WithLogger(slog.New(slog.NewTextHandler(errOut, nil)).With("component", "selfheal proxy")),
	}
	if *lockfile != "" {
		l, err := contract.ReadFile(*lockfile)
		if err != nil {
			return fail("%v", oneLine(err))
		}
		opts = append(opts, proxy.WithContract(l))
	}
	if set["max-active"] || set["max-queued"] || set["rate"] || set["burst"] {
		l := guard.Limits{MaxActive: *maxActive, MaxQueued: *maxQueued, Rate: *rate, Burst: *burst}
		if err := checkLimits(l); err != nil {
			return fail("%v", err)
		}
		opts = append(opts, proxy.WithGuard(l))
	}
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return fail("%v", err)
		}
		defer f.Close()
		opts = append(opts, proxy.WithCallLog(f))
	}
	p, err := proxy.New(opts...)
	if err != nil {
		return fail("%v", oneLine(err))
	}
	return runChild(p, command, stdin, stdout, errOut)
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
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err.Error()
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
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
