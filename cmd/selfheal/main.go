package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// Exit statuses.
const (
	exitValid   = 0
	exitInvalid = 1
	exitUsage   = 2
)

const usage = `usage: selfheal <command> [flags]

commands:
  check   validate tool arguments against a JSON Schema and print the validation_error
  lock    write the tool contracts of an MCP server (over stdio) to selfheal.lock
  diff    compare two lockfiles, or a lockfile with a running server; exit 1 on BREAKING
  call    call one tool of a stdio MCP server and print the envelope a model reads, parsed
  proxy   put a proxy that answers bad tool calls in front of an MCP server (stdio or HTTP)
  report  read the proxy's call logs: per tool, calls, bad calls, repaired, abandoned, fields most often wrong
  wrap    put every stdio server of an MCP client's configuration behind selfheal proxy
  unwrap  take them out again
  version print the version, the commit and the Go it was built with

run 'selfheal <command> -h' for a command's flags`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: tests call it with their own streams.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "check":
		return check(args[1:], stdin, stdout, stderr)
	case "lock":
		return lock(args[1:], stdout, stderr)
	case "diff":
		return diff(args[1:], stdout, stderr)
	case "proxy":
		return proxyCommand(args[1:], stdin, stdout, stderr)
	case "call":
		return callCommand(args[1:], stdin, stdout, stderr)
	case "report":
		return report(args[1:], stdout, stderr)
	case "wrap", "unwrap":
		return wrapCommand(args[1:], args[0] == "unwrap", stdout, stderr)
	case "version", "--version", "-version":
		return versionCommand(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return exitValid
	}
	fmt.Fprintf(stderr, "selfheal: unknown command %q (want check, lock, diff, proxy, call, report, wrap, unwrap or version)\n", args[0])
	return exitUsage
}

// parseError answers an error from parsing a command's flags: for -h the
// usage and the flags on stdout (exit 0), else the error on stderr through
// fail (exit 2).
func parseError(err error, fs *flag.FlagSet, usage string, stdout io.Writer, fail func(string, ...any) int) int {
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stdout)
		fmt.Fprintln(stdout, usage)
		fs.PrintDefaults()
		return exitValid
	}
	return fail("%v", err)
}
