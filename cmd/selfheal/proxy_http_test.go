package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/internal/testkit/redistest"
	"github.com/selfheal/selfheal/internal/testkit/syncbuf"
)

// callTimeout bounds every call of these tests: a call that takes longer
// hangs. It is generous, never a measure of speed.
const callTimeout = 60 * time.Second

// TestProxyHTTPUsage: the flags of the HTTP proxy, its limits kept in
// Redis and its metrics, used wrongly, are one line on standard error and
// exit 2, before anything listens or starts. TestParseProxyConfig has
// every misuse the arguments alone show; these are the ones only the
// build finds (a server, an address), and two of the others, through the
// command.
func TestProxyHTTPUsage(t *testing.T) {
	up := "http://127.0.0.1:1/mcp"
	tests := []struct {
		name   string
		args   []string
		stderr string // the whole line
	}{
		{"upstream without listen", []string{"--upstream", up}, "selfheal proxy: --upstream needs --listen ADDR: selfheal proxy --listen ADDR --upstream " + up},
		{"redis bad scheme", []string{"--redis", "http://127.0.0.1:6379", "--rate", "1", "--", "x"}, `selfheal proxy: --redis "http://127.0.0.1:6379": invalid URL scheme: http`},
		{"listen, command not found", []string{"--listen", "127.0.0.1:0", "--", "nosuch-selfheal-server"}, `selfheal proxy: cannot start "nosuch-selfheal-server": executable file not found in $PATH`},
		{"listen, no such path", []string{"--listen", "127.0.0.1:0", "--", "./nosuch"}, `selfheal proxy: cannot start "./nosuch": no such file or directory`},
		{"listen, command not found, no --", []string{"--listen", "127.0.0.1:0", "nosuch-selfheal-server", "--port", "3"}, `selfheal proxy: cannot start "nosuch-selfheal-server": executable file not found in $PATH`},
		{"listen, bad port", []string{"--listen", "127.0.0.1:99999", "--upstream", up}, "selfheal proxy: --listen: listen tcp: address 99999: invalid port"},
		{"metrics, bad port", []string{"--metrics", "127.0.0.1:99999", "--", "x"}, "selfheal proxy: --metrics: listen tcp: address 99999: invalid port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"proxy"}, tt.args...), strings.NewReader(""), &stdout, &stderr)
			if code != 2 {
				t.Fatalf("exit %d, want 2\nstderr: %s", code, stderr.String())
			}
			if got := stderr.String(); got != tt.stderr+"\n" {
				t.Errorf("stderr:\n got %q\nwant %q", got, tt.stderr+"\n")
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout: %q", stdout.String())
			}
		})
	}

	// An address in use: the error names it, exit 2.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"proxy", "--listen", l.Addr().String(), "--upstream", up}, nil, &stdout, &stderr); code != 2 {
		t.Fatalf("address in use: exit %d, want 2: %s", code, stderr.String())
	}
	if got := stderr.String(); !strings.HasPrefix(got, "selfheal proxy: --listen: listen tcp "+l.Addr().String()+": bind: address already in use") || strings.Count(got, "\n") != 1 {
		t.Errorf("address in use: stderr %q", got)
	}

	// -h shows the three forms and the new flags.
	stdout.Reset()
	if code := run([]string{"proxy", "-h"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("-h: exit %d", code)
	}
	for _, want := range []string{proxyHelp, "-listen", "-upstream", "-redis", "-redis-fail", "-redis-timeout", "-limit-by", "-metrics"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("-h does not show %q:\n%s", want, stdout.String())
		}
	}
}

// TestLabelSet: a label keeps its first values, then is "other".
func TestLabelSet(t *testing.T) {
	s := newLabelSet(2)
	for _, tt := range []struct{ in, want string }{{"a", "a"}, {"b", "b"}, {"a", "a"}, {"c", "other"}, {"b", "b"}} {
		if got := s.label(tt.in); got != tt.want {
			t.Errorf("label(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// httpBinaries are the programs the HTTP tests run.
type httpBinaries struct{ selfheal, server string }

// TestProxyHTTP runs the built command as an operator would: in front of
// a stdio server over HTTP, in front of an HTTP server, two replicas
// sharing their limits in a real Redis, and with metrics.
func TestProxyHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and the example server")
	}
	if runtime.GOOS == "windows" {
		t.Skip("signals and /proc")
	}
	dir := goBuild(t, "../../examples/mcpserver", ".")
	bin := httpBinaries{filepath.Join(dir, "selfheal"), filepath.Join(dir, "mcpserver")}

	t.Run("metrics over stdio", func(t *testing.T) { testMetricsStdio(t, bin) })
	t.Run("metrics of disagreements", func(t *testing.T) { testMetricsDisagreement(t, bin) })
	t.Run("outcomes, log and report", func(t *testing.T) { testOutcomes(t, bin) })
	t.Run("metrics of upstream errors", func(t *testing.T) { testMetricsUpstream(t, bin) })
	t.Run("stdio server over HTTP", func(t *testing.T) { testCommandsHTTP(t, bin) })
	t.Run("DNS rebinding", func(t *testing.T) { testRebinding(t, bin) })
	t.Run("slow body", func(t *testing.T) { testSlowBody(t, bin) })
	t.Run("silent upstream", func(t *testing.T) { testSilentUpstream(t, bin) })
	t.Run("replicas share a rate limit", func(t *testing.T) { testReplicasRate(t, bin) })
	t.Run("replicas share max-active", func(t *testing.T) { testReplicasActive(t, bin) })
	t.Run("graceful shutdown", func(t *testing.T) { testGracefulShutdown(t, bin) })
}

// nearMissCallLine misspells list_invoices' limit.
const nearMissCallLine = `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"billing.list_invoices","arguments":{"limt":5}}}`

// metricsSession is selfheal proxy --metrics over stdio, as a client runs
// it: call sends a line and returns the answer.
type metricsSession struct {
	*watched
	lineClient
	url string
}

// startMetricsSession starts cmd, a selfheal proxy --metrics 127.0.0.1:0
// over stdio, and initializes its MCP session.
func startMetricsSession(t *testing.T, cmd *exec.Cmd) *metricsSession {
	t.Helper()
	client := pipeClient(t, cmd)
	p := startWatched(t, cmd)
	m := &metricsSession{watched: p, lineClient: client, url: p.waitLine(t, "selfheal proxy: metrics on ")}
	m.call(initializeLine)
	m.send(initializedLine)
	return m
}

// holdsLines fails t for each line of want that text does not hold whole.
func holdsLines(t *testing.T, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains("\n"+text, "\n"+w+"\n") {
			t.Errorf("the metrics do not hold %q:\n%s", w, text)
		}
	}
}

// testMetricsStdio: with --metrics, bad calls through the stdio proxy are
// counted (call, answer, issues, latency): a near miss, answered before
// forwarding, and a call the server (the test binary's, which checks its
// input) rejects, explained with the server's own text. They are served in
// Prometheus's text format, with the Go and process collectors; no
// upstream error, no disagreement.
func testMetricsStdio(t *testing.T, bin httpBinaries) {
	cmd := exec.Command(bin.selfheal, append([]string{"proxy", "--metrics", "127.0.0.1:0"}, serverCommand(t, "checked")...)...)
	p := startMetricsSession(t, cmd)
	p.call(listLine)
	if got := p.call(nearMissCallLine); !strings.Contains(got, "did you mean 'limit'") || strings.Contains(got, "<server_message>") {
		t.Fatalf("a near miss, not answered before forwarding: %s", got)
	}
	if got := p.call(lenientCallLine); !strings.Contains(got, "<server_message>MCP error -32602: Invalid arguments for tool billing.list_invoices") {
		t.Fatalf("a call the server rejects, not explained: %s", got)
	}

	text := get(t, p.url)
	holdsLines(t, text,
		`selfheal_proxy_calls_total{tool="billing.list_invoices"} 2`,
		`selfheal_proxy_answered_total{code="VALIDATION_ERROR",tool="billing.list_invoices"} 2`,
		`selfheal_proxy_explained_total{tool="billing.list_invoices"} 1`,
		`selfheal_proxy_issues_total{code="unrecognized_keys"} 1`,
		`selfheal_proxy_issues_total{code="too_big"} 1`,
		`selfheal_proxy_added_latency_seconds_count 2`,
		`selfheal_proxy_upstream_errors_total 0`,
	)
	for _, want := range []string{`selfheal_proxy_added_latency_seconds_bucket{le="1e-06"}`, `go_goroutines `, `process_cpu_seconds_total `} {
		if !strings.Contains(text, want) {
			t.Errorf("the metrics do not hold %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "selfheal_proxy_schema_disagreements_total{") {
		t.Errorf("a disagreement counted where the server rejected the call:\n%s", text)
	}
	if resp, err := http.Get(strings.TrimSuffix(p.url, "/metrics") + "/other"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("/other: %s, want 404", resp.Status)
		}
	}

	p.stdin.Close()
	if code := p.wait(t); code != 0 {
		t.Errorf("exit %d after stdin closed, want 0\nstderr: %s", code, p.stderr.String())
	}
}

// testMetricsDisagreement: in front of a server that does not check its
// input (the test binary's), a call the schema calls bad that the server
// accepts is forwarded, its result untouched, and counted as a
// disagreement, not as an answer.
func testMetricsDisagreement(t *testing.T, bin httpBinaries) {
	cmd := exec.Command(bin.selfheal, append([]string{"proxy", "--metrics", "127.0.0.1:0"}, serverCommand(t, "v1")...)...)
	p := startMetricsSession(t, cmd)
	p.call(listLine)
	if got, want := p.call(lenientCallLine), `{"jsonrpc":"2.0","id":5,"result":{"content":[]}}`; got != want {
		t.Errorf("a call the server accepts: got\n%s\nwant the server's\n%s", got, want)
	}
	text := get(t, p.url)
	holdsLines(t, text,
		`selfheal_proxy_calls_total{tool="billing.list_invoices"} 1`,
		`selfheal_proxy_schema_disagreements_total{tool="billing.list_invoices"} 1`,
	)
	for _, absent := range []string{"selfheal_proxy_answered_total{", "selfheal_proxy_explained_total{"} {
		if strings.Contains(text, absent) {
			t.Errorf("the metrics hold %s for a call the server answered:\n%s", absent, text)
		}
	}
	p.stdin.Close()
	if code := p.wait(t); code != 0 {
		t.Errorf("exit %d after stdin closed, want 0\nstderr: %s", code, p.stderr.String())
	}
}

// testMetricsUpstream: an upstream server that cannot be reached is
// answered 502 with a JSON-RPC error, and counted; SIGTERM then ends the
// proxy with status 0.
func testMetricsUpstream(t *testing.T, bin httpBinaries) {
	dead := deadAddr(t)
	p := startWatched(t, exec.Command(bin.selfheal, "proxy", "--listen", "127.0.0.1:0",
		"--upstream", "http://"+dead+"/mcp", "--metrics", "127.0.0.1:0"))
	metricsURL := p.waitLine(t, "selfheal proxy: metrics on ")
	endpoint := p.waitLine(t, "selfheal proxy: listening on ")
	if !strings.HasSuffix(endpoint, "/mcp") {
		t.Errorf("the endpoint %s is not at the upstream's path /mcp", endpoint)
	}

	resp, err := http.Post(endpoint, "application/json", strings.NewReader(initializeLine))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !json.Valid(body) || !strings.Contains(string(body), `"error"`) {
		t.Errorf("initialize to a dead upstream: %s %s; want 502 with a JSON-RPC error", resp.Status, body)
	}
	// Elsewhere than the endpoint: 404, and nothing is forwarded.
	resp, err = http.Post(strings.TrimSuffix(endpoint, "/mcp")+"/other", "application/json", strings.NewReader(initializeLine))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST /other: %s, want 404", resp.Status)
	}
	if text := get(t, metricsURL); !strings.Contains(text, "selfheal_proxy_upstream_errors_total 1\n") {
		t.Errorf("one upstream error, not counted:\n%s", text)
	}
	if code := p.signal(t, syscall.SIGTERM); code != 0 {
		t.Errorf("exit %d after SIGTERM, want 0\nstderr: %s", code, p.stderr.String())
	}
}

// testCommandsHTTP: `--listen ADDR -- SERVER` serves a stdio server over
// Streamable HTTP to the go-sdk client of revision 2025-11-25, with
// sessions: its tools, a bad call answered
// with the validation_error, a valid call answered by the server, the
// session ended with DELETE; at SIGINT, with a session still open, the
// proxy ends with status 0 and no server process is left.
func testCommandsHTTP(t *testing.T, bin httpBinaries) {
	calls := filepath.Join(t.TempDir(), "calls.log") // the calls the proxy answers
	p := startWatched(t, exec.Command(bin.selfheal, "proxy", "--listen", "127.0.0.1:0", "--log", calls, "--", bin.server))
	endpoint := p.waitLine(t, "selfheal proxy: listening on ")
	if !strings.HasSuffix(endpoint, "/mcp") {
		t.Errorf("endpoint %s, want .../mcp", endpoint)
	}

	cs := connectSession(t, endpoint)
	tools := listTools(t, cs)
	if !tools["users.create"] {
		t.Fatalf("users.create is not listed: %v", tools)
	}
	res := callTool(t, cs, "users.create", map[string]any{"name": "A", "emial": "ada@example.com", "role": "admin"})
	text := callText(res)
	if !res.IsError {
		t.Errorf("bad call: not an error: %s", text)
	}
	for _, want := range []string{`<validation_error action="users.create">`, "Missing. You sent: the unknown key 'emial'", "You sent: 'A'"} {
		if !strings.Contains(text, want) {
			t.Errorf("the validation_error does not say %q:\n%s", want, text)
		}
	}
	res = callTool(t, cs, "users.create", map[string]any{"name": "Ada Lovelace", "email": "ada@example.com", "role": "admin"})
	if res.IsError || strings.Contains(callText(res), "validation_error") {
		t.Errorf("valid call: %s", callText(res))
	}
	if err := cs.Close(); err != nil { // DELETE
		t.Errorf("closing the session: %v", err)
	}

	// A session whose client never lists the tools: the proxy has listed
	// them itself, so its first call is checked, and answered by the proxy
	// (the call log has its line beside the first session's; the example
	// server, which validates too, would say the same). A request with
	// params [1], which TypeScript SDK servers never answer, is answered by
	// the proxy at once (issue 28).
	cs3 := connectSession(t, endpoint)
	res = callTool(t, cs3, "users.create", map[string]any{"name": "Ada Lovelace", "emial": "ada@example.com", "role": "admin"})
	if text := callText(res); !res.IsError || !strings.Contains(text, "Missing. You sent: the unknown key 'emial'") {
		t.Errorf("the first call, never listed: %s", text)
	}
	if data, err := os.ReadFile(calls); err != nil || strings.Count(string(data), `"tool":"users.create","codes"`) != 2 { // answers; their settlements and tallies beside
		t.Errorf("the call log, two bad calls answered by the proxy: %v\n%s", err, data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":55,"method":"tools/call","params":[1]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Mcp-Session-Id", cs3.ID())
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Errorf("params [1]: %v", err)
	} else {
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := `{"jsonrpc":"2.0","id":55,"error":{"code":-32602,"message":"Invalid params: params must be an object, not an array"}}`; string(data) != want {
			t.Errorf("params [1]: %d %s\nwant %s", resp.StatusCode, data, want)
		}
	}
	if err := cs3.Close(); err != nil {
		t.Errorf("closing the session: %v", err)
	}

	// A second session, left open (its GET stream too): SIGINT ends it.
	cs2 := connectSession(t, endpoint)
	listTools(t, cs2)
	// Its process and the warm one (--warm 1, the default) that waits for
	// the next session; the ended sessions' processes stop in the
	// background (DELETE is answered at once).
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		n := len(processesOf(t, bin.server))
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("%d server processes for one open session and one warm, want 2", n)
			break
		}
	}
	if code := p.signal(t, syscall.SIGINT); code != 0 {
		t.Errorf("exit %d after SIGINT, want 0\nstderr: %s", code, p.stderr.String())
	}
	cs2.Close()
	if left := processesOf(t, bin.server); len(left) > 0 {
		t.Errorf("server processes left running: %v", left)
	}
}

// upstream is a Streamable HTTP MCP server of the go-sdk, in the test:
// echo answers its arguments; the first call of slow waits until the gate
// is open, saying on entered that it runs, the others answer at once.
type upstream struct {
	url     string
	entered chan struct{}
	gate    chan struct{}
	once    sync.Once
	// slowCalls counts the calls of slow that reached the server.
	slowCalls atomic.Int64
}

// open lets the waiting call of slow end.
func (u *upstream) open() { u.once.Do(func() { close(u.gate) }) }

func startUpstream(t *testing.T) *upstream {
	t.Helper()
	u := &upstream{entered: make(chan struct{}, 100), gate: make(chan struct{})}
	server := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","minLength":1}},"required":["text"],"additionalProperties":false}`)
	server.AddTool(&mcp.Tool{Name: "echo", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// Server.AddTool does not check arguments: the handler refuses
		// a call without text itself, as a real server would, so that
		// the proxy, which forwards calls, has a rejection to explain.
		var args struct{ Text string }
		if json.Unmarshal(req.Params.Arguments, &args) != nil || args.Text == "" {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "text is required"}}}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + string(req.Params.Arguments)}}}, nil
	})
	server.AddTool(&mcp.Tool{Name: "slow", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if u.slowCalls.Add(1) > 1 {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slow done at once"}}}, nil
		}
		u.entered <- struct{}{}
		select {
		case <-u.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slow done"}}}, nil
	})
	server.AddTool(&mcp.Tool{Name: "ticks", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// A long call that streams its progress: 15 notifications 200 ms
		// apart, three seconds in all.
		tok := req.Params.GetProgressToken()
		for i := range 15 {
			time.Sleep(200 * time.Millisecond) // the call's own work, not a test's wait
			if tok != nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i + 1), Total: 15})
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ticked"}}}, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	t.Cleanup(srv.Close) // after the gate is open: Close waits for the handlers
	t.Cleanup(u.open)
	u.url = srv.URL + "/mcp"
	return u
}

// testReplicasRate: two replicas in front of one server, their rate limit
// (1 call per second, 3 at once) kept in one Redis: eight quick calls of a
// session, alternating between the replicas, are admitted three times (four
// if a second passed), the rest answered RATE_LIMITED by whichever replica
// got them. Then Redis stops: the calls go on (fail open), none hangs. Then
// Redis restarts on the same port: the next eight calls are limited again,
// although each replica failed more dials than its pool size (pool_size=2,
// past which go-redis alone stops dialling for a second). Through it all,
// go-redis writes nothing of its own on stderr and each replica says once
// that Redis is unavailable.
func testReplicasRate(t *testing.T, bin httpBinaries) {
	up := startUpstream(t)
	rs := redistest.StartServer(t)
	var eps []string
	var proxies []*watched
	for range 2 {
		p := startWatched(t, exec.Command(bin.selfheal, "proxy", "--listen", "127.0.0.1:0", "--upstream", up.url,
			"--rate", "1", "--burst", "3", "--redis", "redis://"+rs.Addr+"/0?pool_size=2"))
		eps = append(eps, p.waitLine(t, "selfheal proxy: listening on "))
		proxies = append(proxies, p)
	}
	lb := newBalancer(eps)
	cs := connect(t, eps[0], lb.client())
	defer cs.Close()
	if tools := listTools(t, cs); !tools["echo"] {
		t.Fatalf("echo is not listed: %v", tools)
	}

	lb.alternate.Store(true)
	limitedRound := func(when string) {
		t.Helper()
		start := time.Now()
		var ok int
		limited := map[string]int{} // by replica
		for i := range 8 {
			res := callTool(t, cs, "echo", map[string]any{"text": fmt.Sprint(when, " ", i)})
			text := callText(res)
			switch {
			case !res.IsError && strings.HasPrefix(text, "echo: "):
				ok++
			case res.IsError && strings.Contains(text, "<tool_error") && strings.Contains(text, "RATE_LIMITED") && strings.Contains(text, "retry_after"):
				limited[eps[i%2]]++
			default:
				t.Fatalf("%s, call %d: neither the server's answer nor RATE_LIMITED: %s", when, i, text)
			}
		}
		elapsed := time.Since(start)
		if most := 3 + int(elapsed/time.Second) + 1; ok < 3 || ok > most {
			t.Errorf("%s: %d calls admitted in %v, want 3 to %d", when, ok, elapsed, most)
		}
		if elapsed < time.Second && (limited[eps[0]] == 0 || limited[eps[1]] == 0) {
			t.Errorf("%s: a replica never refused a call: each counted alone? refused by replica: %v", when, limited)
		}
	}
	limitedRound("call")

	// Redis is gone: calls are admitted unchecked, through both replicas,
	// and none hangs.
	rs.Stop()
	for i := range 6 {
		res := callTool(t, cs, "echo", map[string]any{"text": fmt.Sprint("after ", i)})
		if res.IsError {
			t.Errorf("call %d with Redis stopped: %s", i, callText(res))
		}
	}
	// A bad call the server rejects is still explained by the proxy.
	res := callTool(t, cs, "echo", map[string]any{"text": ""})
	if !res.IsError || !strings.Contains(callText(res), `<validation_error action="echo">`) ||
		!strings.Contains(callText(res), "text is required") {
		t.Errorf("bad call with Redis stopped: %s", callText(res))
	}

	// Redis is back, empty: the limits hold from the first call on.
	rs.Restart()
	limitedRound("back")

	for i, p := range proxies {
		var unavailable int
		for _, line := range strings.Split(p.stderr.String(), "\n") {
			if strings.HasPrefix(line, "redis: ") {
				t.Errorf("replica %d: go-redis wrote on stderr itself: %s", i, line)
			}
			if strings.Contains(line, "Redis is unavailable") {
				unavailable++
			}
		}
		if unavailable != 1 {
			t.Errorf("replica %d said %d times that Redis is unavailable, want once:\n%s", i, unavailable, p.stderr.String())
		}
	}
}

// testReplicasActive: two replicas with --max-active 1 in one Redis: while
// a slow call holds the slot through replica A, a call through replica B
// is answered SERVER_BUSY; once it ends, B admits a call.
func testReplicasActive(t *testing.T, bin httpBinaries) {
	up := startUpstream(t)
	rs := redistest.StartServer(t)
	var eps []string
	for range 2 {
		p := startWatched(t, exec.Command(bin.selfheal, "proxy", "--listen", "127.0.0.1:0", "--upstream", up.url,
			"--max-active", "1", "--redis", "redis://"+rs.Addr, "--redis-fail", "closed"))
		eps = append(eps, p.waitLine(t, "selfheal proxy: listening on "))
	}
	a := connect(t, eps[0], nil)
	defer a.Close()
	b := connect(t, eps[1], nil)
	defer b.Close()
	listTools(t, a)
	listTools(t, b)

	held := holdCall(t, a, up, "hold")

	res := callTool(t, b, "slow", map[string]any{"text": "second"})
	text := callText(res)
	if !res.IsError || !strings.Contains(text, "<tool_error") || !strings.Contains(text, "SERVER_BUSY") {
		t.Errorf("a call through B while A holds the only slot: %s; want SERVER_BUSY", text)
	}
	if n := up.slowCalls.Load(); n != 1 {
		t.Errorf("the server got %d calls, want 1", n)
	}

	up.open()
	select {
	case res := <-held:
		if res.IsError {
			t.Errorf("the slow call: %s", callText(res))
		}
	case <-time.After(callTimeout):
		t.Fatal("the slow call hangs")
	}
	// The slot is given back once the response has passed A, in Redis: a
	// moment after the client may have read it.
	for deadline := time.Now().Add(callTimeout); ; time.Sleep(20 * time.Millisecond) {
		res := callTool(t, b, "slow", map[string]any{"text": "third"})
		if !res.IsError {
			break
		}
		if !strings.Contains(callText(res), "SERVER_BUSY") || time.Now().After(deadline) {
			t.Fatalf("a call through B once the slot is free: %s", callText(res))
		}
	}
}

// holdCall calls the upstream's slow tool through cs with text, and
// returns once the call has reached the upstream, which holds it until
// up.open: the channel gets the call's result then (a failed call as an
// error result with the error's text).
func holdCall(t *testing.T, cs *mcp.ClientSession, up *upstream, text string) <-chan *mcp.CallToolResult {
	t.Helper()
	held := make(chan *mcp.CallToolResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"text": text}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		held <- res
	}()
	select {
	case <-up.entered:
	case res := <-held:
		t.Fatalf("the slow call was answered before it reached the server: %s", callText(res))
	case <-time.After(callTimeout):
		t.Fatal("the slow call never reached the server")
	}
	return held
}

// testGracefulShutdown: at SIGTERM the proxy stops taking connections, but
// a call under way gets its answer; then the proxy exits 0.
func testGracefulShutdown(t *testing.T, bin httpBinaries) {
	up := startUpstream(t)
	p := startWatched(t, exec.Command(bin.selfheal, "proxy", "--listen", "127.0.0.1:0", "--upstream", up.url))
	endpoint := p.waitLine(t, "selfheal proxy: listening on ")
	cs := connect(t, endpoint, nil)
	defer cs.Close()
	listTools(t, cs)

	held := holdCall(t, cs, up, "in flight")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The listener closes at once: shutdown has begun.
	host := strings.TrimPrefix(strings.TrimSuffix(endpoint, "/mcp"), "http://")
	for deadline := time.Now().Add(callTimeout); ; {
		c, err := net.Dial("tcp", host)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the proxy still accepts connections after SIGTERM")
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case <-p.done:
		t.Fatalf("the proxy exited with a call under way:\n%s", p.stderr.String())
	default:
	}
	up.open()
	select {
	case res := <-held:
		if res.IsError || callText(res) != "slow done" {
			t.Errorf("the call under way at SIGTERM: %s", callText(res))
		}
	case <-time.After(callTimeout):
		t.Fatal("the call under way hangs")
	}
	if code := p.wait(t); code != 0 {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", code, p.stderr.String())
	}
}

// balancer sends a client's requests to the replicas: all to the first,
// until alternate is set; then each POST to the next replica in turn, as a
// round-robin load balancer without sticky sessions would.
type balancer struct {
	hosts     []string
	alternate atomic.Bool
	n         atomic.Int64
}

func newBalancer(endpoints []string) *balancer {
	lb := &balancer{}
	for _, e := range endpoints {
		u, _ := url.Parse(e)
		lb.hosts = append(lb.hosts, u.Host)
	}
	return lb
}

func (lb *balancer) client() *http.Client { return &http.Client{Transport: lb} }

func (lb *balancer) RoundTrip(r *http.Request) (*http.Response, error) {
	host := lb.hosts[0]
	if lb.alternate.Load() && r.Method == http.MethodPost {
		host = lb.hosts[int(lb.n.Add(1)-1)%len(lb.hosts)]
	}
	r = r.Clone(r.Context())
	r.URL.Host, r.Host = host, ""
	return http.DefaultTransport.RoundTrip(r)
}

// watched is a process of the test whose standard error is read line by
// line, for the addresses it prints.
type watched struct {
	cmd    *exec.Cmd
	stderr *syncbuf.Buffer
	lines  chan string
	done   chan struct{} // closed once Wait has returned
}

func startWatched(t *testing.T, cmd *exec.Cmd) *watched {
	t.Helper()
	errR, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &watched{cmd: cmd, stderr: &syncbuf.Buffer{}, lines: make(chan string, 1000), done: make(chan struct{})}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(errR)
		for sc.Scan() {
			w.stderr.Write(append(sc.Bytes(), '\n'))
			select {
			case w.lines <- sc.Text():
			default:
			}
		}
		io.Copy(io.Discard, errR)
	}()
	go func() {
		<-copied // Wait closes the pipe: read it all first
		cmd.Wait()
		close(w.done)
	}()
	t.Cleanup(func() {
		select {
		case <-w.done:
		default:
			cmd.Process.Kill()
			<-w.done
		}
	})
	return w
}

// waitLine returns the rest of the first line on stderr after prefix.
func (w *watched) waitLine(t *testing.T, prefix string) string {
	t.Helper()
	deadline := time.After(callTimeout)
	for {
		select {
		case line := <-w.lines:
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				return rest
			}
		case <-w.done:
			t.Fatalf("the process ended before saying %q:\n%s", prefix, w.stderr.String())
		case <-deadline:
			t.Fatalf("the process never said %q:\n%s", prefix, w.stderr.String())
		}
	}
}

// wait waits for the process to end and returns its exit status.
func (w *watched) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-w.done:
	case <-time.After(callTimeout):
		t.Fatalf("the process did not end:\n%s", w.stderr.String())
	}
	if ws, ok := w.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("killed by %v:\n%s", ws.Signal(), w.stderr.String())
	}
	return w.cmd.ProcessState.ExitCode()
}

// signal sends sig and returns the exit status.
func (w *watched) signal(t *testing.T, sig os.Signal) int {
	t.Helper()
	if err := w.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	return w.wait(t)
}

// connect opens a go-sdk client session to endpoint over Streamable HTTP.
func connect(t *testing.T, endpoint string, hc *http.Client) *mcp.ClientSession {
	t.Helper()
	return connectAs(t, endpoint, hc, nil)
}

// connectSession connects as a client of revision 2025-11-25, which has
// sessions (the go-sdk client speaks 2026-07-28 by default, without).
func connectSession(t *testing.T, endpoint string) *mcp.ClientSession {
	t.Helper()
	return connectAs(t, endpoint, nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
}

func connectAs(t *testing.T, endpoint string, hc *http.Client, opts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "selfheal-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1}, opts)
	if err != nil {
		t.Fatalf("connect %s: %v", endpoint, err)
	}
	return cs
}

// listTools returns the names of the session's tools.
func listTools(t *testing.T, cs *mcp.ClientSession) map[string]bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	names := map[string]bool{}
	for _, tool := range res.Tools {
		names[tool.Name] = true
	}
	return names
}

// callTool calls a tool; a call that does not end within callTimeout
// hangs, and fails the test.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// get returns the body of a GET of u.
func get(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v", u, resp.Status, err)
	}
	return string(body)
}

// deadAddr is a loopback address where nothing listens while the test
// runs: a socket bound to it and not listening, so that connecting is
// refused. A port merely listened on and closed could be given again to
// the next listener on port 0, the proxy's own (CI saw the upstream answer
// 404: it was the proxy's metrics server).
func deadAddr(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
}

// processesOf lists the running processes of the program at path.
func processesOf(t *testing.T, path string) []string {
	t.Helper()
	exes, _ := filepath.Glob("/proc/[0-9]*/exe")
	var out []string
	for _, exe := range exes {
		target, err := os.Readlink(exe)
		if err != nil || target != path {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(filepath.Dir(exe), "stat"))
		if err == nil && strings.Contains(string(stat), ") Z ") {
			continue // a zombie: it has exited
		}
		out = append(out, filepath.Dir(exe))
	}
	return out
}

// testRebinding: in both HTTP modes, on loopback, the request of the
// conformance suite's DNS-rebinding check (Host and Origin
// evil.example.com) is answered 403 and starts or reaches nothing, while
// an ordinary session works; --allowed-origins admits a web page.
func testRebinding(t *testing.T, bin httpBinaries) {
	up := startUpstream(t)
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"upstream", []string{"--upstream", up.url}},
		{"command", []string{bin.server}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			args := append([]string{"proxy", "--listen", "127.0.0.1:0", "--allowed-origins", "https://app.example.com"}, mode.args...)
			p := startWatched(t, exec.Command(bin.selfheal, args...))
			endpoint := p.waitLine(t, "selfheal proxy: listening on ")
			for _, tc := range []struct {
				host, origin string
				status       int
			}{
				{"evil.example.com", "http://evil.example.com", http.StatusForbidden},
				{"", "http://evil.example.com", http.StatusForbidden},
				{"", "https://app.example.com", http.StatusOK},
				{"", "", http.StatusOK},
			} {
				req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(initializeLine))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if tc.host != "" {
					req.Host = tc.host
				}
				if tc.origin != "" {
					req.Header.Set("Origin", tc.origin)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
				resp.Body.Close()
				if resp.StatusCode != tc.status {
					t.Errorf("Host %q Origin %q: %s %s, want %d", tc.host, tc.origin, resp.Status, body, tc.status)
				}
			}
			cs := connect(t, endpoint, nil)
			if tools := listTools(t, cs); len(tools) == 0 {
				t.Errorf("no tools listed through the proxy")
			}
		})
	}
}

// TestLoopbackAddr: which --listen addresses only this machine reaches
// (no warning about DNS rebinding without --allowed-hosts).
func TestLoopbackAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "localhost:8080": true, "[::1]:8080": true, "127.1.2.3:0": true,
		":8080": false, "0.0.0.0:8080": false, "[::]:8080": false, "10.0.0.5:8080": false, "example.com:80": false, "nonsense": false,
	} {
		if got := loopbackAddr(addr); got != want {
			t.Errorf("loopbackAddr(%q) = %v, want %v", addr, got, want)
		}
	}
}

// testSlowBody: a client sending its body a byte at a time is cut at
// --read-timeout (a second here; it would take 1,000 s to send it all),
// and the proxy goes on serving others, their calls as long as they take.
func testSlowBody(t *testing.T, bin httpBinaries) {
	up := startUpstream(t)
	p := startWatched(t, exec.Command(bin.selfheal, "proxy", "--listen", "127.0.0.1:0", "--read-timeout", "1s", "--upstream", up.url))
	endpoint := p.waitLine(t, "selfheal proxy: listening on ")
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 10000\r\n\r\n", u.Path, u.Host)
	go func() { // a byte every 100 ms until the proxy closes the connection
		for {
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	// The guard is far past the deadline, far short of the body's end.
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	// Cut means the proxy closed the connection: an end of stream, or a
	// reset when a byte of ours arrives after the close (which one depends
	// on timing). Only the guard's timeout says it was not cut.
	if _, err := io.Copy(io.Discard, conn); err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("the slow client was not cut: %v", err)
		}
	}
	cs := connect(t, endpoint, nil)
	if tools := listTools(t, cs); !tools["echo"] {
		t.Errorf("the proxy stopped serving: %v", tools)
	}
	// Once a request has come, its deadline is lifted: a call answered
	// after three seconds, past --read-timeout, is not cut.
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ticks", Arguments: map[string]any{}, Meta: mcp.Meta{"progressToken": "t1"}})
	if err != nil || res.IsError || callText(res) != "ticked" {
		t.Errorf("a call longer than --read-timeout was cut: %v %v", err, res)
	}
}

// testSilentUpstream: with --upstream-timeout 1s, a call the server never
// answers (it sends nothing, as a SIGSTOPped process) gets a JSON-RPC
// error instead of hanging,
// and a call that streams progress for three seconds is not cut.
func testSilentUpstream(t *testing.T, bin httpBinaries) {
	up := startUpstream(t)
	p := startWatched(t, exec.Command(bin.selfheal, "proxy", "--listen", "127.0.0.1:0", "--upstream-timeout", "1s", "--upstream", up.url))
	endpoint := p.waitLine(t, "selfheal proxy: listening on ")
	cs := connect(t, endpoint, nil)
	defer cs.Close()
	listTools(t, cs)

	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"text": "hold"}})
	switch {
	case ctx.Err() != nil:
		t.Fatalf("the call hung until the client's own limit")
	case err == nil && !res.IsError:
		t.Errorf("a call the server never answered succeeded: %s", callText(res))
	case err != nil && !strings.Contains(err.Error(), "selfheal proxy") && !strings.Contains(err.Error(), "Bad Gateway"):
		// Before the server's headers, the proxy answers 502 with the
		// JSON-RPC error, which go-sdk reports by its status; after, the
		// stream's last event is the error.
		t.Errorf("not the proxy's error: %v", err)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "ticks", Arguments: map[string]any{}, Meta: mcp.Meta{"progressToken": "t1"}})
	if err != nil || res.IsError || callText(res) != "ticked" {
		t.Errorf("a call streaming progress was cut: %v %v", err, res)
	}
}
