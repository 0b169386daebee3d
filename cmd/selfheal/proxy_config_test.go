package main

import (
	"bytes"
	"flag"
	"io"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/selfheal/selfheal/internal/formatter"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/guard"
)

// stdioConfig is the config of selfheal proxy -- srv: every flag at its
// default. The engine's defaults are the library's.
func stdioConfig() proxyConfig {
	return proxyConfig{
		command:         []string{"srv"},
		warm:            1,
		locale:          "en",
		examples:        true,
		maxIssues:       formatter.DefaultMaxIssues,
		maxBytes:        formatter.DefaultMaxBytes,
		maxValueRunes:   formatter.DefaultMaxValueRunes,
		typos:           true,
		maxDepth:        issues.DefaultMaxDepth,
		redisTimeout:    500 * time.Millisecond,
		serve:           serveLimits{readTimeout: 30 * time.Second, idleTimeout: 2 * time.Minute, bodyMemory: 128 << 20},
		upstreamTimeout: 5 * time.Minute,
	}
}

// with is stdioConfig changed by change.
func with(change func(c *proxyConfig)) proxyConfig {
	c := stdioConfig()
	change(&c)
	return c
}

// TestParseProxyConfig: the arguments of selfheal proxy, as a user types
// them, give a config or the one line the user reads after "selfheal
// proxy: ". The checks that need nothing but the arguments are all here;
// TestProxyUsage and TestProxyHTTPUsage run those that open, find or
// listen, through the command.
func TestParseProxyConfig(t *testing.T) {
	upstream, err := url.Parse("http://127.0.0.1:3000/mcp")
	if err != nil {
		t.Fatal(err)
	}
	const up = "http://127.0.0.1:3000/mcp"
	tests := []struct {
		name string
		args []string
		want proxyConfig // when err is ""
		err  string
	}{
		// What a config holds.
		{"defaults", []string{"--", "srv"}, stdioConfig(), ""},
		{"command without --, its flags its own", []string{"--strict", "srv", "--port", "3", "--", "x"},
			with(func(c *proxyConfig) { c.strict = true; c.command = []string{"srv", "--port", "3", "--", "x"} }), ""},
		{"engine", []string{"--locale=fr", "--examples=false", "--max-issues=-1", "--max-bytes", "100", "--max-value-runes", "8", "--max-depth=3", "--", "srv"},
			with(func(c *proxyConfig) {
				c.locale, c.examples, c.maxIssues, c.maxBytes, c.maxValueRunes, c.maxDepth = "fr", false, -1, 100, 8, 3
			}), ""},
		{"typos off", []string{"--typos=off", "--", "srv"}, with(func(c *proxyConfig) { c.typos = false }), ""},
		{"redact", []string{"--redact", "pin, otp,", "--", "srv"}, with(func(c *proxyConfig) { c.redact = []string{"pin", "otp"} }), ""},
		{"redact nothing", []string{"--redact=", "--", "srv"}, with(func(c *proxyConfig) { c.redact = []string{} }), ""},
		{"files", []string{"--lockfile", "a.lock", "--log", "calls.log", "--metrics", ":9090", "--", "srv"},
			with(func(c *proxyConfig) { c.lockfile, c.logPath, c.metrics = "a.lock", "calls.log", ":9090" }), ""},
		{"limits in process", []string{"--max-active", "2", "--max-queued=-1", "--rate", "0.5", "--burst", "3", "--", "srv"},
			with(func(c *proxyConfig) { c.limits = &guard.Limits{MaxActive: 2, MaxQueued: -1, Rate: 0.5, Burst: 3} }), ""},
		{"a burst alone is a guard", []string{"--burst", "3", "--", "srv"},
			with(func(c *proxyConfig) { c.limits = &guard.Limits{Burst: 3} }), ""},
		{"limits in Redis, no queue", []string{"--redis", "redis://127.0.0.1:6379/2", "--redis-fail", "closed", "--redis-timeout", "2s", "--max-active", "4", "--", "srv"},
			with(func(c *proxyConfig) {
				c.redisURL, c.redisFailClosed, c.redisTimeout = "redis://127.0.0.1:6379/2", true, 2*time.Second
				c.limits = &guard.Limits{MaxActive: 4, MaxQueued: guard.NoQueue}
			}), ""},
		{"listen in front of a URL", []string{"--listen", "127.0.0.1:0", "--upstream", up, "--upstream-timeout", "1m", "--read-timeout", "5s", "--idle-timeout", "6s", "--body-memory", "2"},
			with(func(c *proxyConfig) {
				c.command, c.listen, c.upstream, c.upstreamTimeout = nil, "127.0.0.1:0", upstream, time.Minute
				c.serve = serveLimits{readTimeout: 5 * time.Second, idleTimeout: 6 * time.Second, bodyMemory: 2 << 20}
			}), ""},
		{"listen in front of a command", []string{"--listen", ":8080", "--limit-by", "session", "--allowed-hosts", "mcp.example.com", "--allowed-origins=", "srv"},
			with(func(c *proxyConfig) {
				c.listen, c.limitHeader, c.allowedHosts, c.allowedOrigins = ":8080", "Mcp-Session-Id", []string{"mcp.example.com"}, []string{}
			}), ""},
		{"limit by a header", []string{"--listen", ":8080", "--limit-by", "header:x-api-key", "--", "srv"},
			with(func(c *proxyConfig) { c.listen, c.limitHeader = ":8080", "X-Api-Key" }), ""},

		// What the flag package says.
		{"unknown flag", []string{"--fast", "--", "x"}, proxyConfig{}, "flag provided but not defined: -fast"},
		{"-- as a flag's value", []string{"--log", "--", "x"}, proxyConfig{}, "flag needs an argument: -log"},
		{"bad typos", []string{"--typos=maybe", "--", "x"}, proxyConfig{}, `invalid boolean value "maybe" for -typos: want on or off, not "maybe"`},
		{"-h", []string{"-h"}, proxyConfig{}, flag.ErrHelp.Error()},

		// The command.
		{"no command", nil, proxyConfig{}, "no server command: selfheal proxy [flags] [--] COMMAND [ARG...]"},
		{"nothing after --", []string{"--typos=off", "--"}, proxyConfig{}, "no server command: selfheal proxy [flags] [--] COMMAND [ARG...]"},
		{"switch value apart", []string{"--typos", "off", "--", "x"}, proxyConfig{}, `--typos off: a switch takes its value after "=", as --typos=off; a server command named "off" goes after --`},
		{"switch value apart, no --", []string{"-examples", "false", "npx", "server"}, proxyConfig{}, `-examples false: a switch takes its value after "=", as -examples=false; a server command named "false" goes after --`},

		// The limits.
		{"bad max-active", []string{"--max-active", "-1", "--", "x"}, proxyConfig{}, "--max-active must be 0 (no limit) or more, not -1"},
		{"bad max-queued", []string{"--max-active=1", "--max-queued=-2", "--", "x"}, proxyConfig{}, "--max-queued must be 0 (unbounded), a positive bound or -1 (never queue), not -2"},
		{"bad rate", []string{"--rate=-3", "--", "x"}, proxyConfig{}, "--rate must be 0 (no limit) or a positive number of calls per second, not -3"},
		{"NaN rate", []string{"--rate=NaN", "--", "x"}, proxyConfig{}, "--rate must be 0 (no limit) or a positive number of calls per second, not NaN"},
		{"bad burst", []string{"--rate=1", "--burst=-1", "--", "x"}, proxyConfig{}, "--burst must be 0 (meaning 1) or more, not -1"},
		{"redis-fail unknown", []string{"--redis", "redis://127.0.0.1:1", "--rate", "1", "--redis-fail", "maybe", "--", "x"}, proxyConfig{}, `--redis-fail must be open or closed, not "maybe"`},
		{"redis-fail without redis", []string{"--redis-fail", "closed", "--rate", "1", "--", "x"}, proxyConfig{}, "--redis-fail needs --redis URL"},
		{"redis-timeout without redis", []string{"--redis-timeout", "1s", "--rate", "1", "--", "x"}, proxyConfig{}, "--redis-timeout needs --redis URL"},
		{"redis-timeout zero", []string{"--redis", "redis://127.0.0.1:1", "--redis-timeout", "0s", "--rate", "1", "--", "x"}, proxyConfig{}, "--redis-timeout must be a positive duration, as 500ms, not 0s"},
		{"redis-timeout negative", []string{"--redis", "redis://127.0.0.1:1", "--redis-timeout=-1s", "--rate", "1", "--", "x"}, proxyConfig{}, "--redis-timeout must be a positive duration, as 500ms, not -1s"},
		{"redis bad scheme", []string{"--redis", "http://127.0.0.1:6379", "--rate", "1", "--", "x"}, proxyConfig{}, `--redis "http://127.0.0.1:6379": invalid URL scheme: http`},
		{"redis bad db", []string{"--redis", "redis://127.0.0.1:6379/x", "--rate", "1", "--", "x"}, proxyConfig{}, `--redis "redis://127.0.0.1:6379/x": invalid database number: "x"`},
		{"redis with max-queued", []string{"--redis", "redis://127.0.0.1:1", "--max-active", "1", "--max-queued", "5", "--", "x"}, proxyConfig{}, "--max-queued cannot be used with --redis: the limits kept in Redis have no queue, a call beyond --max-active is answered SERVER_BUSY at once"},
		{"redis with max-queued -1", []string{"--redis", "redis://127.0.0.1:1", "--max-active", "1", "--max-queued=-1", "--", "x"}, proxyConfig{}, "--max-queued cannot be used with --redis: the limits kept in Redis have no queue, a call beyond --max-active is answered SERVER_BUSY at once"},
		{"redis without limits", []string{"--redis", "redis://127.0.0.1:1", "--", "x"}, proxyConfig{}, "--redis keeps the counters of --max-active and --rate: set one of them"},
		{"redis, bad rate", []string{"--redis", "redis://127.0.0.1:1", "--rate=-1", "--", "x"}, proxyConfig{}, "--rate must be 0 (no limit) or a positive number of calls per second, not -1"},

		// HTTP.
		{"upstream without listen", []string{"--upstream", up}, proxyConfig{}, "--upstream needs --listen ADDR: selfheal proxy --listen ADDR --upstream " + up},
		{"upstream without listen, with command", []string{"--upstream", up, "--", "x"}, proxyConfig{}, "--upstream needs --listen ADDR: selfheal proxy --listen ADDR --upstream " + up},
		{"empty listen", []string{"--listen=", "--upstream", up}, proxyConfig{}, "--listen needs an address, as --listen 127.0.0.1:8080"},
		{"listen alone", []string{"--listen", "127.0.0.1:0"}, proxyConfig{}, "--listen needs --upstream URL or a server command: selfheal proxy --listen ADDR --upstream URL, or selfheal proxy --listen ADDR COMMAND"},
		{"upstream and command", []string{"--listen", "127.0.0.1:0", "--upstream", up, "--", "x"}, proxyConfig{}, "--upstream and a server command exclude each other: the proxy is in front of one server"},
		{"upstream and command, no --", []string{"--listen", "127.0.0.1:0", "--upstream", up, "x"}, proxyConfig{}, "--upstream and a server command exclude each other: the proxy is in front of one server"},
		{"upstream not http", []string{"--listen", "127.0.0.1:0", "--upstream", "ftp://h/mcp"}, proxyConfig{}, `--upstream must be an absolute http or https URL, as http://127.0.0.1:3000/mcp, not "ftp://h/mcp"`},
		{"upstream relative", []string{"--listen", "127.0.0.1:0", "--upstream", "/mcp"}, proxyConfig{}, `--upstream must be an absolute http or https URL, as http://127.0.0.1:3000/mcp, not "/mcp"`},
		{"upstream unparsable", []string{"--listen", "127.0.0.1:0", "--upstream", "http://[::1"}, proxyConfig{}, `--upstream must be an absolute http or https URL, as http://127.0.0.1:3000/mcp, not "http://[::1"`},
		{"upstream empty", []string{"--listen", "127.0.0.1:0", "--upstream="}, proxyConfig{}, `--upstream must be an absolute http or https URL, as http://127.0.0.1:3000/mcp, not ""`},
		{"upstream-timeout without upstream", []string{"--listen", "127.0.0.1:0", "--upstream-timeout", "1m", "--", "x"}, proxyConfig{}, "--upstream-timeout needs --upstream URL"},
		{"limit-by over stdio", []string{"--limit-by", "session", "--", "x"}, proxyConfig{}, "--limit-by needs --listen: over stdio the proxy has one client"},
		{"warm over stdio", []string{"--warm", "2", "--", "x"}, proxyConfig{}, "--warm needs --listen and a server command, and a count of 0 or more"},
		{"warm with upstream", []string{"--listen", "127.0.0.1:0", "--warm", "2", "--upstream", up}, proxyConfig{}, "--warm needs --listen and a server command, and a count of 0 or more"},
		{"warm negative", []string{"--listen", "127.0.0.1:0", "--warm=-1", "--", "x"}, proxyConfig{}, "--warm needs --listen and a server command, and a count of 0 or more"},
		{"warm", []string{"--listen", "127.0.0.1:0", "--warm", "3", "--", "srv"}, with(func(c *proxyConfig) { c.listen, c.warm = "127.0.0.1:0", 3 }), ""},
		{"allowed hosts over stdio", []string{"--allowed-hosts", "a.example", "--", "x"}, proxyConfig{}, "--allowed-hosts and --allowed-origins need --listen: over stdio there is no Host or Origin"},
		{"body memory over stdio", []string{"--body-memory", "1", "--", "x"}, proxyConfig{}, "--read-timeout, --idle-timeout and --body-memory need --listen: over stdio there is no connection to bound"},
		{"zero read timeout", []string{"--listen", ":0", "--read-timeout", "0s", "--", "x"}, proxyConfig{}, "--read-timeout, --idle-timeout and --upstream-timeout must be positive durations, as 30s"},
		{"body memory zero", []string{"--listen", ":0", "--body-memory", "0", "--", "x"}, proxyConfig{}, "--body-memory must be between 1 and 1048576 MiB, not 0"},
		{"body memory too large", []string{"--listen", ":0", "--body-memory", "1048577", "--", "x"}, proxyConfig{}, "--body-memory must be between 1 and 1048576 MiB, not 1048577"},
		{"limit-by unknown", []string{"--listen", "127.0.0.1:0", "--limit-by", "ip", "--upstream", up}, proxyConfig{}, `--limit-by must be session or header:NAME (as header:X-Api-Key), not "ip"`},
		{"limit-by no header", []string{"--listen", "127.0.0.1:0", "--limit-by", "header:", "--upstream", up}, proxyConfig{}, `--limit-by must be session or header:NAME (as header:X-Api-Key), not "header:"`},
		{"limit-by bad header", []string{"--listen", "127.0.0.1:0", "--limit-by", "header:X Key", "--upstream", up}, proxyConfig{}, `--limit-by must be session or header:NAME (as header:X-Api-Key), not "header:X Key"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			c, err := parseProxyConfig(fs, tt.args)
			switch {
			case tt.err != "":
				if err == nil || err.Error() != tt.err {
					t.Errorf("error %v\nwant %s", err, tt.err)
				}
			case err != nil:
				t.Errorf("error %v; want a config", err)
			case !reflect.DeepEqual(*c, tt.want):
				t.Errorf("config\n got %+v\nwant %+v", *c, tt.want)
			}
		})
	}
}

// TestProxyHelp: selfheal proxy -h fits one screen (at most 40 lines of
// at most 104 characters), each flag on one line, every flag shown; the
// text is testdata/proxy_help.golden (go test -update rewrites it).
func TestProxyHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"proxy", "-h"}, nil, &stdout, &stderr); code != 0 || stderr.Len() != 0 {
		t.Fatalf("-h: exit %d, stderr %q", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) > 40 {
		t.Errorf("-h prints %d lines, more than a screen", len(lines))
	}
	for _, l := range lines {
		if len(l) > 104 {
			t.Errorf("a line of %d characters: %q", len(l), l)
		}
	}
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	(&proxyFlags{}).define(fs)
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(proxyHelpOrder, f.Name) {
			t.Errorf("--%s is not in proxyHelpOrder: -h does not show it", f.Name)
		}
	})
	checkGolden(t, "proxy_help", stdout.Bytes())
}
