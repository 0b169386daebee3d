// Command selfheal checks tool arguments against a JSON Schema and prints
// what a model would be told, and keeps a lockfile of an MCP server's tool
// contracts.
//
//	selfheal check --schema FILE --args FILE [--action NAME] [--locale TAG]
//	               [--examples=false] [--draft 2020|2019|7|6|4] [--engine v6|v5] [--json]
//
// Exit status: 0 when the arguments are valid (nothing is printed), 1 when
// they are not (the validation_error, or with --json the issues as Zod-style
// JSON, on standard output), 2 for a usage error, an unreadable file,
// malformed JSON or a schema that does not compile (one line on standard
// error).
//
//	selfheal lock [--out selfheal.lock] [--timeout 30s] -- COMMAND [ARG...]
//
// starts the MCP server COMMAND over stdio, lists all its tools, writes
// their contracts to the lockfile (--out - writes standard output) and stops
// the server. Exit 0, or 2 with one line on standard error.
//
//	selfheal diff [--json] [--fail-on breaking|risky|safe|cosmetic|never] OLD NEW
//	selfheal diff [--json] [--fail-on ...] --live OLD -- COMMAND [ARG...]
//
// compares two lockfiles, or a lockfile with the tools the server COMMAND
// lists now, and prints one line per change, most severe first
// ("BREAKING billing.pay amount: Minimum raised from 0 to 1"), or with --json
// the changes as a JSON array. Exit 1 when a change is BREAKING (or as
// severe as --fail-on), 0 otherwise, 2 for a usage error, an unreadable or
// invalid lockfile, or a server that fails (one line on standard error).
package main

import (
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
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return exitValid
	}
	fmt.Fprintf(stderr, "selfheal: unknown command %q (want check, lock or diff)\n", args[0])
	return exitUsage
}
