package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// The lines a raw JSON-RPC client sends, as an MCP client would.
const (
	initializeLine  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	listLine        = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	// emial for email, a one-character name: the answer must name both.
	badCallLine  = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"users.create","arguments":{"name":"A","emial":"ada@example.com","role":"admin"}}}`
	goodCallLine = `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"users.create","arguments":{"name":"Ada Lovelace","email":"ada@example.com","role":"admin"}}}`
)

// TestProxyUsage: a wrong call of the command is one line on standard
// error and exit 2, before any server is started (or because it cannot
// be). TestParseProxyConfig has every misuse the arguments alone show;
// these are the ones only the build finds (a file, a server), and two of
// the others, through the command.
func TestProxyUsage(t *testing.T) {
	dir := t.TempDir()
	lock := lockV1
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no command", []string{"proxy"}, "no server command: selfheal proxy [flags] [--] COMMAND"},
		{"not found, no --", []string{"proxy", "--strict", "nosuch-selfheal-server", "--stdio"}, `selfheal proxy: cannot start "nosuch-selfheal-server": executable file not found in $PATH`},
		{"unknown flag", []string{"proxy", "--fast", "--", "x"}, "flag provided but not defined: -fast"},
		{"missing lockfile", []string{"proxy", "--lockfile", filepath.Join(dir, "nope.lock"), "--", "x"}, "nope.lock: no such file or directory"},
		{"invalid lockfile", []string{"proxy", "--lockfile", "testdata/broken.schema.json", "--", "x"}, "testdata/broken.schema.json:"},
		{"log in no directory", []string{"proxy", "--lockfile", lock, "--log", filepath.Join(dir, "no", "calls.log"), "--", "x"}, "no such file or directory"},
		{"not found", []string{"proxy", "--", "nosuch-selfheal-server", "--stdio"}, `selfheal proxy: cannot start "nosuch-selfheal-server": executable file not found in $PATH`},
		{"no such path", []string{"proxy", "--", "./nosuch"}, `selfheal proxy: cannot start "./nosuch": no such file or directory`},
		{"not executable", []string{"proxy", "--", lock}, `selfheal proxy: cannot start "` + lock + `": permission denied`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != 2 {
				t.Fatalf("exit %d, want 2\nstderr: %s", code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr %q does not say %q", stderr.String(), tt.stderr)
			}
			if lines := strings.Count(stderr.String(), "\n"); lines != 1 {
				t.Errorf("stderr is %d lines, want one: %q", lines, stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout: %q", stdout.String())
			}
		})
	}

	// -h: the usage and the flags on standard output, exit 0.
	var stdout, stderr bytes.Buffer
	if code := run([]string{"proxy", "-h"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("-h: exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{proxyUsage, "--typos", "(on)", "--max-active", "--lockfile", "--log", "--strict", "answer every call failing its schema"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("-h does not show %q:\n%s", want, stdout.String())
		}
	}
}

// binaries are the programs the process tests run: the example MCP server,
// a stand-in child (testdata/child) and selfheal itself.
type binaries struct{ server, child, selfheal string }

// TestProxy runs the command against real programs: the project's example
// MCP server spoken to in raw JSON-RPC, and a child that exits or traps
// signals. The binaries are built once, for all its subtests.
func TestProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example server")
	}
	if runtime.GOOS == "windows" {
		t.Skip("signals and /proc")
	}
	dir := goBuild(t, "../../examples/mcpserver", "./testdata/child", ".")
	bin := binaries{filepath.Join(dir, "mcpserver"), filepath.Join(dir, "child"), filepath.Join(dir, "selfheal")}

	t.Run("session", func(t *testing.T) { testSession(t, bin) })
	t.Run("malformed line", func(t *testing.T) { testMalformed(t, bin) })
	t.Run("exit status", func(t *testing.T) { testExitStatus(t, bin) })
	t.Run("no leaks", func(t *testing.T) { testNoLeaks(t, bin) })
	t.Run("signals", func(t *testing.T) { testSignals(t, bin) })
	t.Run("command without --", func(t *testing.T) { testCommandArgs(t, bin) })
	t.Run("strict", testStrict)
	t.Run("call through the proxy", func(t *testing.T) { testCallThroughProxy(t, bin) })
}

// testCallThroughProxy: selfheal call in front of selfheal proxy (no --
// for either's server) reads the validation_error with its code and its
// field: the proxy's explanation of a terse rejection, with what the
// server said, and a server built with selfheal's own answer, passed
// untouched (one envelope, not one inside another).
func testCallThroughProxy(t *testing.T, bin binaries) {
	for _, tc := range []struct {
		name, tool, args, field, server string
		command                         []string
	}{
		{"explained", "billing.list_invoices", `{"limit":500}`, "limit",
			"MCP error -32602: Invalid arguments for tool billing.list_invoices: Number must be less than or equal to 100", serverCommand(t, "checked")},
		{"the server's own", "users.create", `{"name":"A","email":"ada@example.com","role":"admin"}`, "name", "", []string{bin.server}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append(append([]string{"call", "--json", "--", bin.selfheal, "proxy"}, tc.command...), tc.tool, "-")
			code := run(args, strings.NewReader(tc.args), &stdout, &stderr)
			if code != 1 {
				t.Fatalf("exit %d, want 1\nstderr: %s", code, stderr.String())
			}
			var out struct {
				Validation struct {
					Code   string `json:"code"`
					Fields []struct {
						Name string `json:"name"`
					} `json:"fields"`
					Server string `json:"server_message"`
				} `json:"validation_error"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
				t.Fatalf("%v\n%s", err, stdout.String())
			}
			v := out.Validation
			if v.Code != "VALIDATION_ERROR" || len(v.Fields) != 1 || v.Fields[0].Name != tc.field || v.Server != tc.server {
				t.Errorf("got %+v\n%s", v, stdout.String())
			}
		})
	}
}

// lenientCallLine breaks list_invoices' maximum (100) and nothing a server
// would drop: no near miss.
const lenientCallLine = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"billing.list_invoices","arguments":{"limit":500}}}`

// testStrict: in front of a server that does not check its input (the
// test server: go-sdk's AddTool without validation), a call the schema
// calls bad reaches the server and its result passes untouched by
// default; with --strict the proxy answers it with the validation_error.
func testStrict(t *testing.T) {
	server := serverCommand(t, "v1")
	for _, tc := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"default", nil, `{"jsonrpc":"2.0","id":5,"result":{"content":[]}}`},
		{"strict", []string{"--strict"}, `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"<validation_error action=\"billing.list_invoices\">\n  <field name=\"limit\">You sent: 500. Expected at most 100.</field>\n  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>\n</validation_error>"}],"isError":true,"structuredContent":{"issues":[{"code":"too_big","path":["limit"],"origin":"integer","maximum":100,"inclusive":true,"source":"jsonschema:maximum"}]}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startProxy(t, append(tc.flags, server...)...)
			p.call(initializeLine)
			p.send(initializedLine)
			p.call(listLine)
			got := p.call(lenientCallLine)
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if code := p.close(); code != 0 {
				t.Errorf("exit %d: %s", code, p.stderr.String())
			}
		})
	}
}

// TestParseProxyArgs: the proxy's flags come first; the server's command
// starts after a "--", or else at the first argument that is neither a
// flag nor a flag's value, and takes everything after it unread.
func TestParseProxyArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		command []string // nil: none
		flags   string   // strict, typos, listen and log after parsing
		err     string
	}{
		{"no --", []string{"npx", "-y", "@modelcontextprotocol/server-memory"}, []string{"npx", "-y", "@modelcontextprotocol/server-memory"}, "false on  ", ""},
		{"with --", []string{"--strict", "--", "npx", "-y", "server"}, []string{"npx", "-y", "server"}, "true on  ", ""},
		{"the server's flags", []string{"--strict", "node", "server.js", "--port", "3"}, []string{"node", "server.js", "--port", "3"}, "true on  ", ""},
		{"our flags in the server's", []string{"--log", "a.log", "node", "s.js", "--strict", "--log", "b.log"}, []string{"node", "s.js", "--strict", "--log", "b.log"}, "false on  a.log", ""},
		{"the server's own --", []string{"cargo", "run", "--", "--stdio"}, []string{"cargo", "run", "--", "--stdio"}, "false on  ", ""},
		{"-- first wins", []string{"--typos=off", "--", "--strict", "x"}, []string{"--strict", "x"}, "false off  ", ""},
		{"listen, command", []string{"--listen", "127.0.0.1:0", "node", "s.js"}, []string{"node", "s.js"}, "false on 127.0.0.1:0 ", ""},
		{"listen, --, command", []string{"--listen", "127.0.0.1:0", "--", "node", "s.js"}, []string{"node", "s.js"}, "false on 127.0.0.1:0 ", ""},
		{"the server's -h", []string{"srv", "-h"}, []string{"srv", "-h"}, "false on  ", ""},
		{"a dash alone", []string{"-", "x"}, []string{"-", "x"}, "false on  ", ""},
		{"flags only", []string{"--strict"}, nil, "true on  ", ""},
		{"nothing after --", []string{"--strict", "--"}, []string{}, "true on  ", ""},
		{"a switch's value", []string{"--strict", "true", "srv"}, nil, "", `--strict true: a switch takes its value after "=", as --strict=true; a server command named "true" goes after --`},
		{"an on/off's value", []string{"-typos", "OFF"}, nil, "", `-typos OFF: a switch takes its value after "=", as -typos=OFF; a server command named "OFF" goes after --`},
		{"a switch, then a server", []string{"--strict", "srv", "true"}, []string{"srv", "true"}, "true on  ", ""},
		{"a value that looks like one", []string{"--listen", "on", "srv"}, []string{"srv"}, "false on on ", ""},
		{"-- is no value", []string{"--log", "--", "srv"}, nil, "", "flag needs an argument: -log"},
		{"unknown flag", []string{"--fast", "srv"}, nil, "", "flag provided but not defined: -fast"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			strict := fs.Bool("strict", false, "")
			typos := onOff(true)
			fs.Var(&typos, "typos", "")
			listen := fs.String("listen", "", "")
			logPath := fs.String("log", "", "")
			command, err := parseProxyArgs(fs, tt.args)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (command == nil) != (tt.command == nil) || !slices.Equal(command, tt.command) {
				t.Errorf("command %q, want %q", command, tt.command)
			}
			if got := fmt.Sprintf("%v %v %s %s", *strict, typos.String(), *listen, *logPath); got != tt.flags {
				t.Errorf("flags %q, want %q", got, tt.flags)
			}
		})
	}
}

// testCommandArgs: without "--", the server gets every argument from its
// command on, those that look like the proxy's flags included, byte for
// byte; with "--" first, the server's own "--" reaches it too.
func testCommandArgs(t *testing.T, bin binaries) {
	tests := []struct {
		name string
		args []string
		want string // the child's stderr: its arguments, quoted, one a line
	}{
		{"no --", []string{bin.child, "echo", "-y", "pkg"}, "\"-y\"\n\"pkg\"\n"},
		{"after our flags", []string{"--strict", "--typos=off", bin.child, "echo", "--port", "3"}, "\"--port\"\n\"3\"\n"},
		{"our flags, the server's", []string{"--strict", bin.child, "echo", "--strict", "--log", "x"}, "\"--strict\"\n\"--log\"\n\"x\"\n"},
		{"the server's --", []string{bin.child, "echo", "--", "--stdio"}, "\"--\"\n\"--stdio\"\n"},
		{"ours, then the server's --", []string{"--strict", "--", bin.child, "echo", "--", "-h"}, "\"--\"\n\"-h\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startProxy(t, tt.args...)
			if code := p.wait(); code != 0 {
				t.Errorf("exit %d, want the child's 0\nstderr: %s", code, p.stderr.String())
			}
			p.closeStdin()
			if got := p.stderr.String(); got != tt.want {
				t.Errorf("the server got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// testSession drives a whole MCP session through the proxy and the same
// one against the server directly: the list of tools is byte for byte the
// server's, a bad call is answered by the proxy (its call log says so)
// naming what was sent, a valid call gets the server's own answer, and
// closing stdin ends the server and the proxy with status 0.
func testSession(t *testing.T, bin binaries) {
	direct := startDirect(t, bin.server)
	direct.send(initializeLine)
	direct.recv()
	direct.send(initializedLine)
	wantList := direct.call(listLine)
	direct.call(badCallLine)
	wantGood := direct.call(goodCallLine)
	direct.close()

	logPath := filepath.Join(t.TempDir(), "calls.log")
	p := startProxy(t, "--log", logPath, "--", bin.server)
	if got := p.call(initializeLine); !strings.Contains(got, `"id":1,"result"`) {
		t.Fatalf("initialize: %s", got)
	}
	p.send(initializedLine)
	if got := p.call(listLine); got != wantList {
		t.Errorf("tools/list through the proxy differs from the server's:\n got %s\nwant %s", got, wantList)
	}

	bad := p.call(badCallLine)
	var res struct {
		ID     int `json:"id"`
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(bad), &res); err != nil {
		t.Fatalf("bad call: %v: %s", err, bad)
	}
	if res.ID != 3 || !res.Result.IsError || len(res.Result.Content) == 0 {
		t.Fatalf("bad call: want an isError result with id 3, got %s", bad)
	}
	text := res.Result.Content[0].Text
	for _, want := range []string{`<validation_error action="users.create">`, "'emial'", "Missing. You sent: the unknown key 'emial'", "You sent: 'A'"} {
		if !strings.Contains(text, want) {
			t.Errorf("the validation_error does not say %q:\n%s", want, text)
		}
	}

	if got := p.call(goodCallLine); got != wantGood {
		t.Errorf("a valid call through the proxy:\n got %s\nwant %s", got, wantGood)
	}

	if code := p.close(); code != 0 {
		t.Errorf("exit %d after stdin closed, want 0\nstderr: %s", code, p.stderr.String())
	}
	if kids := children(t); len(kids) > 0 {
		t.Errorf("processes left running: %v", kids)
	}

	// The bad call, and only it, was answered by the proxy: one line, with
	// the tool and never the values sent; then its settlement by the good
	// call (repaired), and the tally of the calls at the session's end.
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 3 || !json.Valid([]byte(lines[0])) || !strings.Contains(lines[0], `"users.create"`) ||
		!strings.Contains(lines[1], `"outcome":"repaired"`) || !strings.HasSuffix(lines[2], `"calls":{"users.create":2}}`) {
		t.Errorf("call log: want a JSON line about users.create, its settlement and a tally, got:\n%s", data)
	}
	if strings.Contains(string(data), "ada@example.com") {
		t.Errorf("the call log holds a value sent: %s", data)
	}
}

// testMalformed: a line that is not JSON goes to the server, which (being
// go-sdk) ends its session and exits 1; the proxy does not answer it and
// exits with the server's status, with the server's complaint on stderr.
// The server dies while the client's stdin is still open.
func testMalformed(t *testing.T, bin binaries) {
	p := startProxy(t, "--", bin.server)
	p.call(initializeLine)
	p.send(initializedLine)
	p.send(`{not json`)
	code := p.wait()
	if code != 1 {
		t.Errorf("exit %d, want the server's 1\nstderr: %s", code, p.stderr.String())
	}
	if extra := p.rest(); extra != "" {
		t.Errorf("something answered the malformed line: %s", extra)
	}
	if !strings.Contains(p.stderr.String(), "invalid character 'n' looking for beginning of object key string") {
		t.Errorf("the server's stderr is not ours:\n%s", p.stderr.String())
	}
	p.closeStdin()
}

// testExitStatus: the proxy's exit status is the child's, including when
// the child exits before the client says anything, and with every flag set.
func testExitStatus(t *testing.T, bin binaries) {
	for _, n := range []int{0, 3, 42} {
		p := startProxy(t, "--", bin.child, "exit", strconv.Itoa(n))
		if code := p.wait(); code != n {
			t.Errorf("child exit %d: proxy exit %d", n, code)
		}
		p.closeStdin()
	}
	// Every flag, set: accepted (the child's 3, not a usage error's 2).
	p := startProxy(t, "--typos=off", "--examples=false", "--locale", "ja", "--redact=pin,iban",
		"--max-issues", "5", "--max-bytes", "-1", "--max-value-runes", "20", "--lockfile", lockV1,
		"--max-active", "1", "--max-queued", "-1", "--rate", "5", "--burst", "2", "--max-depth", "10",
		"--log", filepath.Join(t.TempDir(), "calls.log"), "--", bin.child, "exit", "3")
	if code := p.wait(); code != 3 {
		t.Errorf("with every flag: exit %d, want 3\nstderr: %s", code, p.stderr.String())
	}
	p.closeStdin()
}

// testNoLeaks: after run returns, every goroutine and descriptor it
// started is gone, whether the client ends the session or the server dies
// first.
func testNoLeaks(t *testing.T, bin binaries) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	session := func() {
		p := startProxy(t, "--", bin.server)
		p.call(initializeLine)
		p.send(initializedLine)
		p.call(listLine)
		p.call(badCallLine)
		if code := p.close(); code != 0 {
			t.Fatalf("exit %d: %s", code, p.stderr.String())
		}
	}
	serverDies := func() {
		p := startProxy(t, "--", bin.child, "exit", "3")
		if code := p.wait(); code != 3 {
			t.Fatalf("exit %d: %s", code, p.stderr.String())
		}
		p.closeStdin()
	}
	// Once before looking: signal.Notify starts the runtime's signal
	// goroutine, which stays for the life of the process.
	session()
	for _, f := range []struct {
		name string
		run  func()
	}{{"session", session}, {"server dies first", serverDies}} {
		// Goroutines are compared by identity (goleak), not counted: only
		// those this run started and left behind fail it.
		started, fds := goleak.IgnoreCurrent(), openFDs(t)
		f.run()
		err := goleak.Find(started)
		for deadline := time.Now().Add(10 * time.Second); err != nil && time.Now().Before(deadline); {
			err = goleak.Find(started)
		}
		if err != nil {
			t.Errorf("%s: %v", f.name, err)
		}
		if left := leftOpen(fds, openFDs(t)); len(left) > 0 {
			t.Errorf("%s: descriptors opened and left open: %v", f.name, left)
		}
		if kids := children(t); len(kids) > 0 {
			t.Errorf("%s: processes left running: %v", f.name, kids)
		}
	}
}

// testSignals runs the built selfheal binary, as a client would, and
// signals it: the child gets the signal, and the proxy ends with the
// child's status (7 when it traps the signal, 128+N when the signal kills
// it).
func testSignals(t *testing.T, bin binaries) {
	tests := []struct {
		mode   string
		sig    syscall.Signal
		code   int
		stderr string
	}{
		{"trap", syscall.SIGTERM, 7, "child: got terminated"},
		{"trap", syscall.SIGINT, 7, "child: got interrupt"},
		{"wait", syscall.SIGTERM, 128 + int(syscall.SIGTERM), ""},
		{"wait", syscall.SIGINT, 128 + int(syscall.SIGINT), ""},
	}
	for _, tt := range tests {
		t.Run(tt.mode+" "+tt.sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin.selfheal, "proxy", "--", bin.child, tt.mode)
			var stderr bytes.Buffer // read only after Wait
			cmd.Stderr = &stderr
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The child's "ready" comes through the proxy's relay, which
			// starts after the proxy listens for signals, and after the
			// child does.
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if line != "ready\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("first line %q, %v; stderr: %s", line, err, stderr.String())
			}
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("the proxy did not end after %v; stderr: %s", tt.sig, stderr.String())
			}
			if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() {
				t.Fatalf("the proxy was killed by %v instead of forwarding it", ws.Signal())
			}
			if code := cmd.ProcessState.ExitCode(); code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr %q does not say %q", stderr.String(), tt.stderr)
			}
		})
	}
}

// lineClient speaks raw JSON-RPC to a server (or a proxy), a message a
// line, as a stdio MCP client does.
type lineClient struct {
	t     *testing.T
	stdin io.WriteCloser // the client's end of the server's stdin
	lines chan string    // what the server writes on stdout, line by line
}

func (c *lineClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

func (c *lineClient) recv() string {
	c.t.Helper()
	return recvLine(c.t, c.lines)
}

// call sends a request and returns the next line the server writes: its
// answer, when the server sends nothing else meanwhile.
func (c *lineClient) call(line string) string {
	c.t.Helper()
	c.send(line)
	return c.recv()
}

// pipeClient gives cmd, not yet started, pipes for its stdin and stdout,
// and returns a client of them.
func pipeClient(t *testing.T, cmd *exec.Cmd) lineClient {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := lineClient{t: t, stdin: stdin, lines: make(chan string, 100)}
	go readLines(stdout, c.lines)
	return c
}

// proxyRun is `selfheal proxy` running in-process on pipes, as a client
// sees it.
type proxyRun struct {
	lineClient
	stderr *bytes.Buffer // read only once run has returned
	code   chan int
}

func startProxy(t *testing.T, args ...string) *proxyRun {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW := io.Pipe()
	p := &proxyRun{lineClient: lineClient{t: t, stdin: inW, lines: make(chan string, 100)}, stderr: new(bytes.Buffer), code: make(chan int, 1)}
	go func() {
		code := run(append([]string{"proxy"}, args...), inR, outW, p.stderr)
		inR.Close()
		outW.Close()
		p.code <- code
	}()
	go readLines(outR, p.lines)
	return p
}

// wait waits for run to return and gives its exit status.
func (p *proxyRun) wait() int {
	p.t.Helper()
	select {
	case code := <-p.code:
		return code
	case <-time.After(15 * time.Second):
		p.t.Fatal("the proxy did not return")
		return -1
	}
}

// rest is whatever the proxy wrote on stdout that was not read yet; call
// it after wait.
func (p *proxyRun) rest() string {
	var b strings.Builder
	for l := range p.lines {
		b.WriteString(l)
	}
	return b.String()
}

func (p *proxyRun) closeStdin() { p.stdin.Close() }

// close ends the session as a client does, by closing stdin, and returns
// the exit status.
func (p *proxyRun) close() int {
	p.t.Helper()
	p.closeStdin()
	code := p.wait()
	if extra := p.rest(); extra != "" {
		p.t.Errorf("unread output: %s", extra)
	}
	return code
}

// directRun is the server run without the proxy.
type directRun struct {
	lineClient
	cmd *exec.Cmd
}

func startDirect(t *testing.T, bin string) *directRun {
	t.Helper()
	cmd := exec.Command(bin)
	d := &directRun{lineClient: pipeClient(t, cmd), cmd: cmd}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return d
}

func (d *directRun) close() {
	d.stdin.Close()
	for range d.lines {
	}
	if err := d.cmd.Wait(); err != nil {
		d.t.Errorf("the server run directly: %v", err)
	}
}

// readLines sends each line read from r, without its newline, then closes
// lines when r ends.
func readLines(r io.Reader, lines chan<- string) {
	defer close(lines)
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			lines <- strings.TrimSuffix(line, "\n")
		}
		if err != nil {
			return
		}
	}
}

func recvLine(t *testing.T, lines <-chan string) string {
	t.Helper()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatal("the output ended")
		}
		return l
	case <-time.After(15 * time.Second):
		t.Fatal("no answer in 15s")
		return ""
	}
}

// goBuild builds the packages (paths relative to this one's) into a
// directory of t's, where each binary is named after its package's
// directory (selfheal for "."), and returns the directory.
func goBuild(t *testing.T, pkgs ...string) string {
	t.Helper()
	dir := t.TempDir()
	build := exec.Command("go", append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return dir
}

// openFDs returns this process's open descriptors and what each is
// ("pipe:[1234]", "anon_inode:[pidfd]", "/dev/null").
func openFDs(t *testing.T) map[string]string {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	fds := make(map[string]string, len(entries))
	for _, e := range entries {
		// One closed since ReadDir has no target: it is not open.
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil {
			fds[e.Name()] = target
		}
	}
	return fds
}

// leftOpen lists the descriptors of after that were not open in before
// and are of the kinds the proxy opens for a session: the pipes to and from
// the server, and the server process's handle (pidfd). Those are the
// proxy's leaks. An exact count of every descriptor would also count what
// the rest of the test process opens or closes meanwhile, which is not
// run's: it fails on an open that is not a leak, and misses a leak that
// a close elsewhere hides.
func leftOpen(before, after map[string]string) []string {
	var left []string
	for fd, target := range after {
		if before[fd] == target {
			continue
		}
		if strings.HasPrefix(target, "pipe:") || target == "anon_inode:[pidfd]" {
			left = append(left, fd+" "+target)
		}
	}
	slices.Sort(left)
	return left
}

// children lists the processes whose parent is this one: none should
// remain (not even unreaped) once run has returned.
func children(t *testing.T) []string {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	me := strconv.Itoa(os.Getpid())
	var kids []string
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // gone since the glob
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		s := string(data)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == me {
			kids = append(kids, strings.TrimSpace(s[:strings.LastIndexByte(s, ')')+1]))
		}
	}
	return kids
}
