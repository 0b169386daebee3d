//go:build unix

package main

import (
	"io"
	"os"
	"syscall"
)

// polledStdin is stdin read through the runtime's poller when it is a
// pipe or a socket, else os.Stdin. A terminal is never made non-blocking:
// the flag belongs to the file description the shell shares.
func polledStdin() io.Reader {
	var st syscall.Stat_t
	if err := syscall.Fstat(0, &st); err != nil {
		return os.Stdin
	}
	if t := st.Mode & syscall.S_IFMT; t != syscall.S_IFIFO && t != syscall.S_IFSOCK {
		return os.Stdin
	}
	if err := syscall.SetNonblock(0, true); err != nil {
		return os.Stdin
	}
	return os.NewFile(0, "/dev/stdin") // non-blocking: os registers it with the poller
}
