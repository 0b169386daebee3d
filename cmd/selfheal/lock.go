package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/contract"
)

// lock implements `selfheal lock`.
func lock(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lock", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "selfheal.lock", "the lockfile to write, or - for standard output")
	timeout := fs.Duration("timeout", 30*time.Second, "how long the server may take to start and list its tools")
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "selfheal lock: "+format+"\n", a...)
		return exitUsage
	}
	flags, command, dashed := splitCommand(args)
	if err := fs.Parse(flags); err != nil {
		return parseError(err, fs, "usage: selfheal lock [--out selfheal.lock] [--timeout 30s] -- COMMAND [ARG...]", stdout, fail)
	}
	if !dashed {
		command = fs.Args()
	} else if fs.NArg() > 0 {
		return fail("unexpected argument %q before --", fs.Arg(0))
	}
	if len(command) == 0 {
		return fail("no server command: selfheal lock [--out FILE] -- COMMAND [ARG...]")
	}
	l, err := snapshot(command, *timeout)
	if err != nil {
		return fail("%v", err)
	}
	data, err := l.Marshal()
	if err != nil {
		return fail("%v", err)
	}
	if *out == "-" {
		stdout.Write(data)
		return exitValid
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		return fail("%v", err)
	}
	fmt.Fprintf(stdout, "wrote %s: %d %s\n", *out, len(l.Tools), plural(len(l.Tools), "tool", "tools"))
	return exitValid
}

// diff implements `selfheal diff`.
func diff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	live := fs.Bool("live", false, "compare the lockfile with the tools a running server lists (the command after --)")
	asJSON := fs.Bool("json", false, "print the changes as a JSON array")
	failOn := fs.String("fail-on", "breaking", "exit 1 when a change is at least this severe: breaking, risky, safe, cosmetic or never")
	timeout := fs.Duration("timeout", 30*time.Second, "with --live: how long the server may take to start and list its tools")
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "selfheal diff: "+format+"\n", a...)
		return exitUsage
	}
	flags, command, dashed := splitCommand(args)
	files, err := parseInterleaved(fs, flags)
	if err != nil {
		return parseError(err, fs, "usage: selfheal diff [flags] OLD NEW\n       selfheal diff [flags] --live OLD -- COMMAND [ARG...]", stdout, fail)
	}
	var threshold contract.Severity
	if *failOn != "never" {
		if err := threshold.UnmarshalText([]byte(*failOn)); err != nil {
			return fail("--fail-on must be breaking, risky, safe, cosmetic or never, not %q", *failOn)
		}
	}
	var old, cur *contract.Lock
	switch {
	case *live:
		if len(files) != 1 {
			return fail("--live takes one lockfile: selfheal diff --live OLD -- COMMAND [ARG...]")
		}
		if len(command) == 0 {
			return fail("--live needs the server command after --")
		}
		if old, err = contract.ReadFile(files[0]); err != nil {
			return fail("%v", err)
		}
		if cur, err = snapshot(command, *timeout); err != nil {
			return fail("%v", err)
		}
	default:
		if dashed {
			return fail("a server command after -- needs --live")
		}
		if len(files) != 2 {
			return fail("want two lockfiles: selfheal diff OLD NEW (or --live OLD -- COMMAND)")
		}
		if old, err = contract.ReadFile(files[0]); err != nil {
			return fail("%v", err)
		}
		if cur, err = contract.ReadFile(files[1]); err != nil {
			return fail("%v", err)
		}
	}
	changes := contract.Diff(old, cur)
	if *asJSON {
		if changes == nil {
			changes = []contract.Change{}
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(changes); err != nil {
			return fail("%v", err)
		}
		stdout.Write(buf.Bytes())
	} else {
		for _, c := range changes {
			fmt.Fprintln(stdout, c)
		}
	}
	if threshold != 0 && contract.Worst(changes) >= threshold {
		return exitInvalid
	}
	return exitValid
}

// splitCommand splits args at the first "--": the flags (and positional
// arguments) before it, the command after it, and whether there was one.
func splitCommand(args []string) (flags, command []string, dashed bool) {
	i := slices.Index(args, "--")
	if i < 0 {
		return args, nil, false
	}
	return args[:i], args[i+1:], true
}

// parseInterleaved parses flags wherever they are among the positional
// arguments (selfheal diff OLD NEW --json) and returns the positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// snapshot starts an MCP server over stdio, lists all its tools (every
// page), stops it, and returns their contracts. What the server writes on
// standard error is kept and its last line quoted when something fails.
func snapshot(command []string, timeout time.Duration) (*contract.Lock, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.Command(command[0], command[1:]...)
	var serverErr tailBuffer
	cmd.Stderr = &serverErr
	client := mcp.NewClient(&mcp.Implementation{Name: "selfheal", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		return nil, serverFailure(fmt.Sprintf("starting %s", command[0]), err, ctx, &serverErr)
	}
	var tools []contract.Tool
	var listErr error
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			listErr = err
			break
		}
		tool, err := contract.NewTool(t.Name, t.Description, t.InputSchema, t.OutputSchema)
		if err != nil {
			listErr = err
			break
		}
		tools = append(tools, tool)
	}
	session.Close() // closes the server's stdin, then waits, then signals
	if listErr != nil {
		return nil, serverFailure("listing tools", listErr, ctx, &serverErr)
	}
	return contract.NewLock(tools)
}

func serverFailure(what string, err error, ctx context.Context, stderr *tailBuffer) error {
	msg := what + ": " + oneLine(err)
	if ctx.Err() != nil {
		msg = what + ": the server did not answer in time (--timeout)"
	}
	if last := stderr.lastLine(); last != "" {
		msg += " (server: " + last + ")"
	}
	return errors.New(msg)
}

// tailBuffer keeps the end of what a server writes on standard error.
type tailBuffer struct{ buf []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4096 {
		t.buf = t.buf[len(t.buf)-4096:]
	}
	return len(p), nil
}

func (t *tailBuffer) lastLine() string {
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if len(last) > 200 {
		last = last[:200] + "…"
	}
	return strings.ToValidUTF8(last, "?")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
