// Command selfheal checks tool arguments against a JSON Schema and prints
// what a model would be told.
//
//	selfheal check --schema FILE --args FILE [--action NAME] [--locale TAG]
//	               [--examples=false] [--draft 2020|2019|7|6|4] [--engine v6|v5] [--json]
//
// Exit status: 0 when the arguments are valid (nothing is printed), 1 when
// they are not (the validation_error, or with --json the issues as Zod-style
// JSON, on standard output), 2 for a usage error, an unreadable file,
// malformed JSON or a schema that does not compile (one line on standard
// error).
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
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return exitValid
	}
	fmt.Fprintf(stderr, "selfheal: unknown command %q (want check)\n", args[0])
	return exitUsage
}
