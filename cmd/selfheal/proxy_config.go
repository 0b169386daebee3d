package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/guard/redisguard"
)

// The engine's budgets, as selfheal.WithMaxIssues, WithMaxBytes and
// WithMaxValueRunes document them, shown as the flags' defaults.
// TestEngineDefaults holds them to the engine's.
const (
	defaultMaxIssues     = 20
	defaultMaxBytes      = 4096
	defaultMaxValueRunes = 60
)

// proxyConfig is what the flags and arguments of selfheal proxy ask for,
// parsed and checked (parseProxyConfig): runProxy builds the proxy from it
// and from nothing else.
type proxyConfig struct {
	// command is the server's command line: the stdio server, or the one
	// started for each session with --listen; nil with --upstream.
	command []string
	// listen is --listen's address; "" over stdio.
	listen string
	// warm is --warm: the server's processes started ahead of the
	// sessions in command mode.
	warm int
	// upstream is --upstream's URL; nil unless the proxy is in front of
	// an HTTP server.
	upstream *url.URL

	// What the engine says, as the Go options of the same names.
	locale        string
	examples      bool
	maxIssues     int
	maxBytes      int
	maxValueRunes int
	// redact replaces the default list of redacted field names when it is
	// not nil; empty (--redact=), every value is shown.
	redact []string

	strict   bool
	typos    bool
	maxDepth int
	lockfile string // "": no contract awareness
	logPath  string // "": no call log
	metrics  string // the address of the metrics server; "": none

	// limits are the guards' limits; nil when no limit flag was given.
	// With redisURL, MaxQueued is guard.NoQueue.
	limits *guard.Limits
	// limitHeader is the request header whose value the limits are kept
	// per (--limit-by; Mcp-Session-Id for session); "": per tool.
	limitHeader string
	// redisURL keeps the limits' counters in Redis; "": in the process.
	redisURL        string
	redisFailClosed bool
	redisTimeout    time.Duration

	// serve are the bounds of --listen (maxConns is the mode's).
	serve           serveLimits
	upstreamTimeout time.Duration
	// allowedHosts and allowedOrigins replace the defaults when not nil.
	allowedHosts, allowedOrigins []string
}

// proxyFlags are the proxy's flags as typed. Those the config holds as
// they are go straight into it; check converts the others.
type proxyFlags struct {
	proxyConfig
	upstreamArg, redactArg, limitByArg, redisFailArg string
	allowedHostsArg, allowedOriginsArg               string
	bodyMemoryMiB                                    int
	lim                                              guard.Limits
	// set are the flags given on the command line, whatever their value.
	set map[string]bool
}

// parseProxyConfig parses the arguments of selfheal proxy (after "proxy")
// with the flags it defines on fs, and checks them: the config, or the
// one-line error the user reads (flag.ErrHelp for -h). It opens, starts
// and dials nothing: what only the build can tell (a lockfile that does
// not parse, a server that cannot be found, an address in use) is
// runProxy's to say.
func parseProxyConfig(fs *flag.FlagSet, args []string) (*proxyConfig, error) {
	f := &proxyFlags{set: map[string]bool{}}
	f.define(fs)
	command, err := parseProxyArgs(fs, args)
	if err != nil {
		return nil, err
	}
	f.command = command
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if err := f.check(); err != nil {
		return nil, err
	}
	return &f.proxyConfig, nil
}

// define defines the proxy's flags on fs, with their defaults. The flags,
// their names and meanings, are a contract: scripts and client
// configurations use them. Each usage is one short sentence, for -h (see
// printProxyHelp); the details are in the package doc and the README.
func (f *proxyFlags) define(fs *flag.FlagSet) {
	c := &f.proxyConfig
	// How a call is judged.
	fs.BoolVar(&c.strict, "strict", false, "answer every call failing its schema before forwarding it")
	c.typos = true
	fs.Var((*onOff)(&c.typos), "typos", "answer near misses ('dryrun' for 'dryRun') before forwarding")
	fs.IntVar(&c.maxDepth, "max-depth", issues.DefaultMaxDepth, "how deep arguments are checked; negative: no limit")
	fs.StringVar(&c.lockfile, "lockfile", "", "a `lockfile` (selfheal lock): answers say what changed")
	fs.StringVar(&c.logPath, "log", "", "append a JSON line per call the proxy answers to this `file`")
	fs.StringVar(&c.metrics, "metrics", "", "serve Prometheus metrics at "+metricsPath+" on this `address`")
	// What the answers say.
	fs.StringVar(&c.locale, "locale", "en", "the `language` of the messages (BCP 47 or Accept-Language)")
	fs.BoolVar(&c.examples, "examples", true, "add a valid example to format expectations")
	fs.IntVar(&c.maxIssues, "max-issues", defaultMaxIssues, "the most issue lines in one answer; negative: no cap")
	fs.IntVar(&c.maxBytes, "max-bytes", defaultMaxBytes, "the most bytes of issue lines in one answer; negative: no cap")
	fs.IntVar(&c.maxValueRunes, "max-value-runes", defaultMaxValueRunes, "where a value shown to the model is cut, in characters")
	fs.StringVar(&f.redactArg, "redact", "", "field `names` whose values are never shown, replacing the default list")
	// Guards.
	fs.IntVar(&f.lim.MaxActive, "max-active", 0, "per tool: calls running at once (0: any); more wait, then SERVER_BUSY")
	fs.IntVar(&f.lim.MaxQueued, "max-queued", 0, "per tool: calls waiting for a slot (0: unbounded, -1: none)")
	fs.Float64Var(&f.lim.Rate, "rate", 0, "per tool: calls per second (0: no limit); more get RATE_LIMITED")
	fs.IntVar(&f.lim.Burst, "burst", 0, "per tool: calls admitted at once above --rate (0 means 1)")
	fs.StringVar(&f.limitByArg, "limit-by", "", "keep the limits per `mode` (session, header:NAME), not per tool")
	fs.StringVar(&c.redisURL, "redis", "", "keep the limits' counters in this Redis `URL`, shared by replicas")
	fs.StringVar(&f.redisFailArg, "redis-fail", "open", "calls while Redis is unreachable: `open` (admitted) or closed")
	fs.DurationVar(&c.redisTimeout, "redis-timeout", defaultRedisTimeout, "how long a call waits for Redis")
	// HTTP.
	fs.StringVar(&c.listen, "listen", "", "serve Streamable HTTP on this `address` (host:port)")
	fs.StringVar(&f.upstreamArg, "upstream", "", "the `URL` of the Streamable HTTP server behind the proxy")
	fs.StringVar(&f.allowedHostsArg, "allowed-hosts", "", "the `hosts` served (Host header; * for any); default loopback")
	fs.StringVar(&f.allowedOriginsArg, "allowed-origins", "", "the `origins` of web pages allowed to call the proxy (* for any)")
	fs.DurationVar(&c.serve.readTimeout, "read-timeout", defaultReadTimeout, "how long a client may take to send a request")
	fs.DurationVar(&c.serve.idleTimeout, "idle-timeout", defaultIdleTimeout, "how long a kept-alive connection waits for a request")
	fs.DurationVar(&c.upstreamTimeout, "upstream-timeout", defaultUpstreamTimeout, "how long the upstream may stay silent before an error")
	fs.IntVar(&f.bodyMemoryMiB, "body-memory", defaultBodyMemory>>20, "the `MiB` of request bodies held at once, for all clients")
	fs.IntVar(&c.warm, "warm", defaultWarm, "with a server command: processes kept started for the next session")
}

// proxyHelpOrder is the order of the flags in -h (define's), with the
// heading of each group ("…:") before it.
var proxyHelpOrder = []string{
	"calls:", "strict", "typos", "max-depth", "lockfile", "log", "metrics",
	"answers:", "locale", "examples", "max-issues", "max-bytes", "max-value-runes", "redact",
	"guards:", "max-active", "max-queued", "rate", "burst", "limit-by", "redis", "redis-fail", "redis-timeout",
	"HTTP (with --listen):", "listen", "upstream", "allowed-hosts", "allowed-origins",
	"read-timeout", "idle-timeout", "upstream-timeout", "body-memory", "warm",
}

// printProxyHelp prints proxyHelp and the flags, one line each, under
// their group's heading: one screen.
func printProxyHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, proxyHelp)
	for _, name := range proxyHelpOrder {
		f := fs.Lookup(name)
		if f == nil {
			fmt.Fprintln(w, name)
			continue
		}
		arg, usage := flag.UnquoteUsage(f)
		left := "--" + f.Name
		if arg != "" {
			left += " " + arg
		}
		if d := f.DefValue; d != "" && d != "0" && d != "false" {
			usage += " (" + d + ")"
		}
		fmt.Fprintf(w, "  %-28s %s\n", left, usage)
	}
}

// check returns the first misconfiguration of the flags, in the words
// selfheal proxy has always used (scripts match them), and converts the
// flags that the config holds in another form.
func (f *proxyFlags) check() error {
	c, set := &f.proxyConfig, f.set
	if c.listen == "" && set["listen"] {
		return errors.New("--listen needs an address, as --listen 127.0.0.1:8080")
	}
	if c.warm < 0 || set["warm"] && (c.listen == "" || set["upstream"]) {
		return errors.New("--warm needs --listen and a server command, and a count of 0 or more")
	}
	// Flags that mean nothing without another, in the order they are told.
	for _, n := range []struct {
		flags []string
		ok    bool
		msg   string
	}{
		{[]string{"upstream"}, c.listen != "", "--upstream needs --listen ADDR: selfheal proxy --listen ADDR --upstream " + f.upstreamArg},
		{[]string{"limit-by"}, c.listen != "", "--limit-by needs --listen: over stdio the proxy has one client"},
		{[]string{"allowed-hosts", "allowed-origins"}, c.listen != "", "--allowed-hosts and --allowed-origins need --listen: over stdio there is no Host or Origin"},
		{[]string{"read-timeout", "idle-timeout", "body-memory"}, c.listen != "", "--read-timeout, --idle-timeout and --body-memory need --listen: over stdio there is no connection to bound"},
		{[]string{"upstream-timeout"}, set["upstream"], "--upstream-timeout needs --upstream URL"},
		{[]string{"redis-fail"}, c.redisURL != "", "--redis-fail needs --redis URL"},
		{[]string{"redis-timeout"}, c.redisURL != "", "--redis-timeout needs --redis URL"},
		{[]string{"max-queued"}, c.redisURL == "", "--max-queued cannot be used with --redis: the limits kept in Redis have no queue, a call beyond --max-active is answered SERVER_BUSY at once"},
	} {
		if !n.ok && slices.ContainsFunc(n.flags, func(name string) bool { return set[name] }) {
			return errors.New(n.msg)
		}
	}
	if err := f.checkValues(); err != nil {
		return err
	}
	if err := f.checkServer(); err != nil {
		return err
	}
	if c.redisURL != "" && !set["max-active"] && !set["rate"] {
		return errors.New("--redis keeps the counters of --max-active and --rate: set one of them")
	}
	if set["max-active"] || set["max-queued"] || set["rate"] || set["burst"] {
		if err := checkLimits(f.lim); err != nil {
			return err
		}
		l := f.lim
		if c.redisURL != "" {
			l.MaxQueued = guard.NoQueue
		}
		c.limits = &l
	}
	c.serve.bodyMemory = int64(f.bodyMemoryMiB) << 20
	c.redisFailClosed = f.redisFailArg == "closed"
	lists := map[string]*[]string{"redact": &c.redact, "allowed-hosts": &c.allowedHosts, "allowed-origins": &c.allowedOrigins}
	for name, arg := range map[string]string{"redact": f.redactArg, "allowed-hosts": f.allowedHostsArg, "allowed-origins": f.allowedOriginsArg} {
		if set[name] {
			*lists[name] = givenList(arg)
		}
	}
	return nil
}

// checkValues checks the values of the flags that have a range or a
// spelling.
func (f *proxyFlags) checkValues() error {
	c := &f.proxyConfig
	switch {
	case c.serve.readTimeout <= 0 || c.serve.idleTimeout <= 0 || c.upstreamTimeout <= 0:
		return errors.New("--read-timeout, --idle-timeout and --upstream-timeout must be positive durations, as 30s")
	case f.bodyMemoryMiB < 1 || f.bodyMemoryMiB > 1<<20:
		return fmt.Errorf("--body-memory must be between 1 and 1048576 MiB, not %d", f.bodyMemoryMiB)
	case f.redisFailArg != "open" && f.redisFailArg != "closed":
		return fmt.Errorf("--redis-fail must be open or closed, not %q", f.redisFailArg)
	case c.redisTimeout <= 0:
		return fmt.Errorf("--redis-timeout must be a positive duration, as 500ms, not %v", c.redisTimeout)
	}
	header, err := parseLimitBy(f.limitByArg)
	c.limitHeader = header
	if err == nil && c.redisURL != "" {
		_, err = redisOptions(c.redisURL)
	}
	return err
}

// checkServer checks what the proxy is in front of: a command, or with
// --listen an --upstream URL or a command, never both.
func (f *proxyFlags) checkServer() error {
	c, upstream := &f.proxyConfig, f.set["upstream"]
	switch {
	case c.listen == "" && len(c.command) == 0:
		return fmt.Errorf("no server command: %s", strings.TrimPrefix(proxyUsage, "usage: "))
	case c.listen == "":
		return nil
	case upstream && len(c.command) > 0:
		return errors.New("--upstream and a server command exclude each other: the proxy is in front of one server")
	case upstream:
		u, err := url.Parse(f.upstreamArg)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--upstream must be an absolute http or https URL, as http://127.0.0.1:3000/mcp, not %q", f.upstreamArg)
		}
		c.upstream = u
	case len(c.command) == 0:
		return errors.New("--listen needs --upstream URL or a server command: selfheal proxy --listen ADDR --upstream URL, or selfheal proxy --listen ADDR COMMAND")
	}
	return nil
}

// redisOptions are the options of the Redis client of --redis URL: the
// URL's, and a client that stops at a call's deadline and reaches Redis
// again on the first call after an outage (see redisguard).
func redisOptions(redisURL string) (*redis.Options, error) {
	o, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, fmt.Errorf("--redis %q: %s", redisURL, strings.TrimPrefix(oneLine(err), "redis: "))
	}
	o.ContextTimeoutEnabled = true
	o.Dialer = redisguard.Dialer(redis.NewDialer(o))
	return o, nil
}

// parseLimitBy reads --limit-by: the request header whose value the
// limits are kept per (Mcp-Session-Id for session), or "" for none.
func parseLimitBy(s string) (string, error) {
	switch {
	case s == "":
		return "", nil
	case s == "session":
		return "Mcp-Session-Id", nil
	case strings.HasPrefix(s, "header:") && validHeaderName(strings.TrimPrefix(s, "header:")):
		return http.CanonicalHeaderKey(strings.TrimPrefix(s, "header:")), nil
	}
	return "", fmt.Errorf("--limit-by must be session or header:NAME (as header:X-Api-Key), not %q", s)
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

// givenList is the value of a list flag that was given: never nil, so
// that an empty one (--redact=) differs from one left out.
func givenList(s string) []string {
	return append([]string{}, splitList(s)...)
}
