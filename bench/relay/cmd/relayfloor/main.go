// Command relayfloor is the floor the proxy is measured against in the
// relay benchmark (bench/relay): what a user has without selfheal.
//
//	relayfloor [-naive] [--] COMMAND [ARG...]
//
// starts COMMAND as selfheal proxy does (pipes of its own for its stdin
// and stdout, our stderr) and copies bytes both ways with io.Copy, reading
// nothing: stdin to the server, the server's stdout to stdout. Stdin is
// read through the runtime's poller when it is a pipe or a socket (set
// non-blocking, then os.NewFile): read with blocking system calls, as
// os.Stdin is, a 70 KB message stalls on the runtime's 10 ms fallback poll
// in a quarter to a half of the calls, and the floor would flatter the
// proxy. -naive reads os.Stdin as it is, to show that stall.
//
// Its HTTP counterpart is cmd/reverseproxy.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	naive := flag.Bool("naive", false, "read stdin with blocking system calls (os.Stdin), as a naive relay does")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: relayfloor [-naive] [--] COMMAND [ARG...]")
		os.Exit(2)
	}
	stdin := io.Reader(os.Stdin)
	if !*naive {
		stdin = polledStdin()
	}
	os.Exit(relay(flag.Args(), stdin, os.Stdout))
}

// relay runs command and copies until the server's stdout ends, then
// returns its exit status.
func relay(command []string, stdin io.Reader, stdout io.Writer) int {
	childIn, toServer, err := os.Pipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "relayfloor:", err)
		return 2
	}
	fromServer, childOut, err := os.Pipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "relayfloor:", err)
		return 2
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = childIn, childOut, os.Stderr
	err = cmd.Start()
	childIn.Close()
	childOut.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "relayfloor:", err)
		return 2
	}
	go func() {
		io.Copy(toServer, stdin)
		toServer.Close()
	}()
	io.Copy(stdout, fromServer)
	fromServer.Close()
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return max(ee.ExitCode(), 1)
	}
	if err != nil {
		return 1
	}
	return 0
}
