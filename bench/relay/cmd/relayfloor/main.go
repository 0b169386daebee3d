// Command relayfloor is the floor the proxy is measured against in the
// relay benchmark (bench/relay): what a user has without selfheal.
//
//	relayfloor [-naive] [--] COMMAND [ARG...]
//
// starts COMMAND as selfheal proxy does (pipes of its own for its stdin
// and stdout, our stderr) and copies bytes both ways with io.Copy, reading
// nothing: stdin to the server, the server's stdout to stdout. Its
// writes to the server are blocking system calls, as selfheal proxy's
// are: with os.Pipe's non-blocking ones (-naive), the goroutine reading
// stdin (blocking calls, as os.Stdin makes them) parks on the runtime's
// poller when a message fills the 64 KiB pipe, is woken on the thread
// that was polling and takes it back into a blocking read of stdin, and
// the server's answer waits for the runtime's 10 ms fallback poll: most
// calls over 64 KiB stall, and the floor would flatter the proxy. Reading
// stdin through the poller removes the stall too, but costs each small
// message 15 to 30 µs, and the floor would flatter the proxy there.
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
	naive := flag.Bool("naive", false, "write to the server as os.Pipe's file does (non-blocking, through the runtime's poller), as a naive relay does")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: relayfloor [-naive] [--] COMMAND [ARG...]")
		os.Exit(2)
	}
	os.Exit(relay(flag.Args(), os.Stdin, os.Stdout, *naive))
}

// relay runs command and copies until the server's stdout ends, then
// returns its exit status.
func relay(command []string, stdin io.Reader, stdout io.Writer, naive bool) int {
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
	if !naive {
		toServer.Fd() // blocking mode
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
