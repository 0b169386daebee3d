package main

import (
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/selfheal/selfheal/internal/formatter"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/guard/redisguard"
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
// configurations use them.
func (f *proxyFlags) define(fs *flag.FlagSet) {
	c := &f.proxyConfig
	fs.StringVar(&c.locale, "locale", "en", "the language of the messages: a BCP 47 tag or an Accept-Language value")
	fs.BoolVar(&c.examples, "examples", true, "add a valid example to format expectations")
	fs.IntVar(&c.maxIssues, "max-issues", formatter.DefaultMaxIssues, "the most issue lines in one validation_error; negative means no cap")
	fs.IntVar(&c.maxBytes, "max-bytes", formatter.DefaultMaxBytes, "the most bytes of issue lines in one validation_error; negative means no cap")
	fs.IntVar(&c.maxValueRunes, "max-value-runes", formatter.DefaultMaxValueRunes, "where a value shown to the model is cut, in characters")
	fs.StringVar(&f.redactArg, "redact", "", "comma-separated field names whose values are never shown, replacing the default list (password, token, secret...); --redact= shows every value")
	fs.BoolVar(&c.strict, "strict", false, "answer every call whose arguments fail the tool's schema before it reaches the server, for servers that do not validate their own input (a bad call would run); without it a call is forwarded, and explained when the server rejects it")
	c.typos = true
	fs.Var((*onOff)(&c.typos), "typos", "on or off: an undeclared key that is a near miss of a declared one ('dryrun' for 'dryRun') is an issue with a did-you-mean, even when the schema is open, answered before the call reaches the server whatever --strict says")
	fs.StringVar(&c.lockfile, "lockfile", "", "a lockfile (selfheal lock) of the server's tools: validation_errors of changed tools carry <contract_awareness>")
	fs.IntVar(&f.lim.MaxActive, "max-active", 0, "per tool: how many calls may run at the same time (0: any number); more are queued, then answered SERVER_BUSY")
	fs.IntVar(&f.lim.MaxQueued, "max-queued", 0, "per tool, with --max-active: how many calls may wait for a slot (0: unbounded, -1: none)")
	fs.Float64Var(&f.lim.Rate, "rate", 0, "per tool: calls per second admitted on average (0: no limit); more are answered RATE_LIMITED")
	fs.IntVar(&f.lim.Burst, "burst", 0, "per tool, with --rate: how many calls may be admitted at once above the rate (0 means 1)")
	fs.IntVar(&c.maxDepth, "max-depth", issues.DefaultMaxDepth, "how deeply a call's arguments may nest objects and arrays to be checked: deeper ones are forwarded unchecked, or with --strict answered with too_big; negative means no limit")
	fs.StringVar(&c.logPath, "log", "", "append one JSON line per call the proxy answers to this file (time, tool, codes, paths; never the values sent)")
	fs.IntVar(&c.warm, "warm", defaultWarm, "with --listen and a server command: how many processes of it wait started for the next session")
	fs.StringVar(&c.listen, "listen", "", "serve MCP's Streamable HTTP transport on this address (host:port): in front of --upstream URL, at its path, or of the stdio server COMMAND (a process per session, or a pool for stateless clients) at "+commandsPath)
	fs.StringVar(&f.upstreamArg, "upstream", "", "with --listen: the URL of the Streamable HTTP MCP server behind the proxy (http://host:port/mcp)")
	fs.StringVar(&c.redisURL, "redis", "", "keep the counters of --max-active and --rate in this Redis (redis://[user:password@]host:port/db), shared by every replica of the proxy; calls beyond --max-active are not queued")
	fs.StringVar(&f.redisFailArg, "redis-fail", "open", "with --redis, what a call gets while Redis cannot be reached: open (admitted unchecked) or closed (SERVER_BUSY)")
	fs.DurationVar(&c.redisTimeout, "redis-timeout", defaultRedisTimeout, "with --redis, how long a call waits for Redis before Redis counts as unreachable (then --redis-fail applies); much shorter fails calls Redis answers on a busy machine, and with --redis-fail open admits them unchecked")
	fs.StringVar(&f.limitByArg, "limit-by", "", "with --listen: apply the limits per session (session: its Mcp-Session-Id) or per value of a request header (header:NAME, as header:X-Api-Key) rather than per tool for everyone")
	fs.DurationVar(&c.serve.readTimeout, "read-timeout", defaultReadTimeout, "with --listen: how long a client may take to send a request, headers and body, from its first byte; a slower one is cut")
	fs.DurationVar(&c.serve.idleTimeout, "idle-timeout", defaultIdleTimeout, "with --listen: how long a kept-alive connection waits for its next request")
	fs.DurationVar(&c.upstreamTimeout, "upstream-timeout", defaultUpstreamTimeout, "with --upstream: how long the server may stay silent (before its response, or between two parts of a streamed one) before the client gets a JSON-RPC error; a call that streams progress is never cut")
	fs.IntVar(&f.bodyMemoryMiB, "body-memory", defaultBodyMemory>>20, "with --listen: the MiB of request bodies the proxy reads or holds at once, for all clients; a request that does not fit waits, then gets 503")
	fs.StringVar(&f.allowedHostsArg, "allowed-hosts", "", "with --listen: comma-separated host names the proxy serves, from the Host header (* for any); by default only localhost and loopback addresses when it listens on loopback, any host otherwise")
	fs.StringVar(&f.allowedOriginsArg, "allowed-origins", "", "with --listen: comma-separated origins (scheme://host[:port]) of web pages that may call the proxy (* for any), beside loopback pages on loopback and the proxy's own")
	fs.StringVar(&c.metrics, "metrics", "", "serve Prometheus metrics at "+metricsPath+" on this address (host:port)")
}

// check returns the first misconfiguration of the flags, in the words
// selfheal proxy has always used (scripts match them), and converts the
// flags that the config holds in another form.
func (f *proxyFlags) check() error {
	c, set := &f.proxyConfig, f.set
	switch {
	case c.listen == "" && set["listen"]:
		return errors.New("--listen needs an address, as --listen 127.0.0.1:8080")
	case c.warm < 0 || (set["warm"] && (c.listen == "" || set["upstream"])):
		return errors.New("--warm needs --listen and a server command, and a count of 0 or more")
	case c.listen == "" && set["upstream"]:
		return fmt.Errorf("--upstream needs --listen ADDR: selfheal proxy --listen ADDR --upstream %s", f.upstreamArg)
	case c.listen == "" && set["limit-by"]:
		return errors.New("--limit-by needs --listen: over stdio the proxy has one client")
	case c.listen == "" && (set["allowed-hosts"] || set["allowed-origins"]):
		return errors.New("--allowed-hosts and --allowed-origins need --listen: over stdio there is no Host or Origin")
	case c.listen == "" && (set["read-timeout"] || set["idle-timeout"] || set["body-memory"]):
		return errors.New("--read-timeout, --idle-timeout and --body-memory need --listen: over stdio there is no connection to bound")
	case !set["upstream"] && set["upstream-timeout"]:
		return errors.New("--upstream-timeout needs --upstream URL")
	case c.serve.readTimeout <= 0 || c.serve.idleTimeout <= 0 || c.upstreamTimeout <= 0:
		return errors.New("--read-timeout, --idle-timeout and --upstream-timeout must be positive durations, as 30s")
	case f.bodyMemoryMiB < 1 || f.bodyMemoryMiB > 1<<20:
		return fmt.Errorf("--body-memory must be between 1 and 1048576 MiB, not %d", f.bodyMemoryMiB)
	case c.listen == "" && len(c.command) == 0:
		return fmt.Errorf("no server command: %s", strings.TrimPrefix(proxyUsage, "usage: "))
	case c.listen != "" && set["upstream"] && len(c.command) > 0:
		return errors.New("--upstream and a server command exclude each other: the proxy is in front of one server")
	case c.listen != "" && set["upstream"]:
		u, err := url.Parse(f.upstreamArg)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--upstream must be an absolute http or https URL, as http://127.0.0.1:3000/mcp, not %q", f.upstreamArg)
		}
		c.upstream = u
	case c.listen != "" && len(c.command) == 0:
		return errors.New("--listen needs --upstream URL or a server command: selfheal proxy --listen ADDR --upstream URL, or selfheal proxy --listen ADDR COMMAND")
	}
	c.serve.bodyMemory = int64(f.bodyMemoryMiB) << 20
	header, err := parseLimitBy(f.limitByArg)
	if err != nil {
		return err
	}
	c.limitHeader = header
	if f.redisFailArg != "open" && f.redisFailArg != "closed" {
		return fmt.Errorf("--redis-fail must be open or closed, not %q", f.redisFailArg)
	}
	c.redisFailClosed = f.redisFailArg == "closed"
	switch {
	case set["redis-fail"] && c.redisURL == "":
		return errors.New("--redis-fail needs --redis URL")
	case set["redis-timeout"] && c.redisURL == "":
		return errors.New("--redis-timeout needs --redis URL")
	case c.redisTimeout <= 0:
		return fmt.Errorf("--redis-timeout must be a positive duration, as 500ms, not %v", c.redisTimeout)
	}
	if c.redisURL != "" {
		if _, err := redisOptions(c.redisURL); err != nil {
			return err
		}
		if set["max-queued"] {
			return errors.New("--max-queued cannot be used with --redis: the limits kept in Redis have no queue, a call beyond --max-active is answered SERVER_BUSY at once")
		}
		if !set["max-active"] && !set["rate"] {
			return errors.New("--redis keeps the counters of --max-active and --rate: set one of them")
		}
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
	if set["redact"] {
		c.redact = givenList(f.redactArg)
	}
	if set["allowed-hosts"] {
		c.allowedHosts = givenList(f.allowedHostsArg)
	}
	if set["allowed-origins"] {
		c.allowedOrigins = givenList(f.allowedOriginsArg)
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
