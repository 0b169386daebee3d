// Command child is a stand-in MCP server for the proxy's process tests:
// what it does with its exit status, signals and stdin is the point, not
// JSON-RPC.
//
//	child exit N   exit with status N at once
//	child trap     print "ready", then on SIGINT or SIGTERM say so on
//	               stderr and exit 7
//	child wait     print "ready", then read stdin until it ends (exit 0);
//	               a signal kills it
//	child echo ARG...
//	               print each ARG quoted (%q) on a line of stderr, exit 0
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: child exit N | trap | wait | echo ARG...")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "exit":
		n, _ := strconv.Atoi(os.Args[2])
		os.Exit(n)
	case "trap":
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		// "ready" only once the handler is in place: the test signals
		// after reading it.
		fmt.Println("ready")
		sig := <-sigs
		fmt.Fprintf(os.Stderr, "child: got %v\n", sig)
		os.Exit(7)
	case "wait":
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	case "echo":
		for _, a := range os.Args[2:] {
			fmt.Fprintf(os.Stderr, "%q\n", a)
		}
		os.Exit(0)
	}
	fmt.Fprintf(os.Stderr, "child: unknown mode %q\n", os.Args[1])
	os.Exit(2)
}
