//go:build linux

package sessions

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// stat returns the fields of /proc/PID/stat after the command's name:
// state, ppid, pgrp, session…; nil when the process is not there.
func stat(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	return strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
}

// getsid returns the process session of pid (0 for the caller), or -1.
func getsid(pid int) int {
	if pid == 0 {
		pid = os.Getpid()
	}
	f := stat(pid)
	if len(f) < 4 {
		return -1
	}
	n, _ := strconv.Atoi(f[3])
	return n
}

// gone reports whether the process pid has ended: it is not there, or it
// is a zombie that its new parent has not reaped yet.
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	f := stat(pid)
	return f == nil || f[0] == "Z"
}

// A session's process leads a process session of its own (setsid, not the
// proxy's: the scheduler shares the CPU among the servers), and a stop
// kills what it started in its group, here a sleep it left running.
func TestProcessOwnSession(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "sleep.pid")
	start := func() *exec.Cmd {
		cmd := fakeCmd()
		// The shell leaves a sleep in its group, then becomes the server.
		cmd.Args = append([]string{"sh", "-c", `sleep 300 & echo $! > "$0"; exec "$@"`, pidFile}, cmd.Args...)
		cmd.Path = "/bin/sh"
		return cmd
	}
	c, url := commands(t, start, nil)
	sid := initialize(t, url)
	s := c.lookup(sid)
	pid := s.proc.cmd.Process.Pid
	if sess := getsid(pid); sess != pid {
		t.Fatalf("the server's process session %d, want its own, %d; the proxy's is %d", sess, pid, getsid(0))
	}
	var sleep int
	waitFor(t, "the sleep's pid", func() bool {
		b, _ := os.ReadFile(pidFile)
		sleep, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return sleep > 0
	})
	if sess := getsid(sleep); sess != pid {
		t.Fatalf("the sleep's session %d, want the server's %d", sess, pid)
	}
	if resp := do(t, url, "DELETE", sid, "", ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	reaped(t, s)
	waitFor(t, "the sleep killed with its group", func() bool { return gone(sleep) })
}

// DELETE is answered at once, while the process is still stopping: here a
// server that ignores the end of its input, which the grace then kills.
func TestProcessDeleteAtOnce(t *testing.T) {
	c, url := commands(t, fakeCmd, func(c *Server) { c.grace = hang })
	sid := initialize(t, url)
	s := c.lookup(sid)
	rpcErrorOf(t, do(t, url, "POST", sid, jsonOnly, call("0", "stubborn")))
	if resp := do(t, url, "DELETE", sid, "", ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	select {
	case <-s.proc.exited:
		t.Fatal("DELETE was answered after the process had exited")
	default:
	}
	if resp := do(t, url, "POST", sid, jsonOnly, call("1", "echo")); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a request after DELETE: %d, want 404", resp.StatusCode)
	}
	s.proc.kill() // rather than wait for the grace
	reaped(t, s)
}

// warmCounts returns the warm processes waiting and those being started.
func warmCounts(c *Server) (ready, warming int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.ready), c.warming
}

// A warm process waits for the next session, which takes it (its first
// answer costs no process start), and another is started in its place;
// Close stops the one left waiting.
func TestProcessWarm(t *testing.T) {
	starts := make(chan int, 10)
	start := func() *exec.Cmd {
		starts <- 1
		return fakeCmd()
	}
	c := New(ProxyRelay(false, 0), start, 1)
	srv := httptest.NewServer(c)
	defer srv.Close()
	<-starts // at New, before any request
	waitFor(t, "a warm process", func() bool { r, _ := warmCounts(c); return r == 1 })
	c.mu.Lock()
	warm := c.ready[0]
	c.mu.Unlock()

	sid := initialize(t, srv.URL)
	if s := c.lookup(sid); s.proc != warm {
		t.Fatalf("the session's process %d, want the warm one %d", s.proc.cmd.Process.Pid, warm.cmd.Process.Pid)
	}
	<-starts // its replacement
	waitFor(t, "a warm process again", func() bool { r, _ := warmCounts(c); return r == 1 })
	c.mu.Lock()
	next := c.ready[0]
	c.mu.Unlock()
	if next == warm {
		t.Fatal("the warm process was not replaced")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-next.exited:
	default:
		t.Fatal("Close returned before the warm process was reaped")
	}
	if len(starts) != 0 {
		t.Fatalf("%d more processes started", len(starts))
	}
}

// A command that cannot start fails the session's initialize, as without
// warm processes, and leaves no warm process waiting or starting.
func TestProcessWarmFails(t *testing.T) {
	var log syncBuffer
	r := ProxyRelay(false, 0)
	r.Logger = slog.New(slog.NewTextHandler(&log, nil))
	c := New(r, func() *exec.Cmd { return exec.Command("/nonexistent/mcp-server") }, 2)
	srv := httptest.NewServer(c)
	defer srv.Close()
	defer c.Close()
	resp := do(t, srv.URL, "POST", "", jsonOnly, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("initialize: %d, want 500", resp.StatusCode)
	}
	waitFor(t, "the log of the warm process that could not start", func() bool {
		return strings.Contains(log.String(), "cannot start a warm process")
	})
	// The take of the initialize starts the warm ones again, and fails
	// again: nothing is left waiting or starting.
	waitFor(t, "no warm process waiting or starting", func() bool {
		r, w := warmCounts(c)
		return r == 0 && w == 0
	})
}

// syncBuffer is a bytes.Buffer safe for concurrent use: a log's.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// A warm process that exits while it waits is retired, and the next
// session starts the warm ones again (once: a server that exits at its
// start is not restarted in a loop).
func TestProcessWarmExits(t *testing.T) {
	var n atomic.Int64
	start := func() *exec.Cmd {
		if n.Add(1) == 1 {
			return exec.Command("true") // exits at once
		}
		return fakeCmd()
	}
	c, url := commandsOf(t, ProxyRelay(false, 0), start, nil)
	c.mu.Lock()
	c.warm = 1
	c.mu.Unlock()
	c.fill()
	waitFor(t, "the exited warm process retired", func() bool {
		r, w := warmCounts(c)
		return r == 0 && w == 0
	})
	if got := n.Load(); got != 1 {
		t.Fatalf("%d processes started, want the one that exited", got)
	}
	initialize(t, url) // a process of its own, and a warm one again
	waitFor(t, "a warm process again", func() bool { r, _ := warmCounts(c); return r == 1 })
	if got := n.Load(); got != 3 {
		t.Fatalf("%d processes started, want 3", got)
	}
}
