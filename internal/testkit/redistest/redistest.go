package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/selfheal/selfheal/internal/testkit/syncbuf"
)

// startTimeout bounds how long a server may take to answer its first PING.
const startTimeout = 10 * time.Second

// Server is one redis-server process of a test. Its methods are for tests
// of failures: stopping Redis mid-run, bringing it back, freezing it.
type Server struct {
	// Addr is the server's host:port, the same across Restart.
	Addr string

	tb     testing.TB
	path   string // redis-server
	dir    string // its working directory, a temporary one
	port   int
	mu     sync.Mutex
	cmd    *exec.Cmd       // nil while stopped
	exited chan struct{}   // closed once cmd has been waited for
	out    *syncbuf.Buffer // the server's output, written by exec's copying goroutine
}

// Start starts a redis-server for tb and returns its address; it is
// stopped when tb ends.
func Start(tb testing.TB) (addr string) {
	tb.Helper()
	return StartServer(tb).Addr
}

// StartServer is Start returning the Server, for tests that stop, restart
// or freeze it.
func StartServer(tb testing.TB) *Server {
	tb.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatal("redistest: redis-server is not installed; CI must install it (apt-get install redis-server)")
		}
		tb.Skip("redis-server not installed")
	}
	s := &Server{tb: tb, path: path, dir: tb.TempDir()}
	tb.Cleanup(s.Stop)
	// A free port may be taken by someone else between our probe and
	// redis-server's listen: try a few.
	for attempt := 0; ; attempt++ {
		s.port = freePort(tb)
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
		err := s.start()
		if err == nil {
			return s
		}
		if attempt == 2 {
			tb.Fatal(err)
		}
	}
}

// Stop kills the server and waits for it to exit, as a crash would end it:
// clients see their connections refused. Stopping a stopped server does
// nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.exited
	s.cmd = nil
}

// Restart starts a stopped server again on the same address, empty.
func (s *Server) Restart() {
	s.tb.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		s.tb.Fatal(err)
	}
}

// Pause freezes the server (SIGSTOP): connections stay open and commands
// get no answer, as with a hung or overloaded Redis.
func (s *Server) Pause() { s.signal(syscall.SIGSTOP) }

// Resume lets a paused server run again (SIGCONT).
func (s *Server) Resume() { s.signal(syscall.SIGCONT) }

func (s *Server) signal(sig os.Signal) {
	s.tb.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		s.tb.Fatal("redistest: the server is stopped")
	}
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.tb.Fatal(err)
	}
}

// start runs redis-server on s.port and waits until it answers PING.
func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out = &syncbuf.Buffer{}
	cmd := exec.Command(s.path,
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--protected-mode", "no",
		"--dir", s.dir)
	cmd.Stdout, cmd.Stderr = s.out, s.out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("redistest: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }() // the one Wait: Stop and an early exit both see it
	deadline := time.Now().Add(startTimeout)
	for {
		if ping(s.Addr) == nil {
			s.cmd, s.exited = cmd, exited
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("redistest: redis-server exited at start:\n%s", s.out.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			return fmt.Errorf("redistest: redis-server did not answer PING within %v:\n%s", startTimeout, s.out.String())
		}
	}
}

// ping sends PING to addr and expects +PONG, in RESP, without a client
// library: this package needs nothing but the standard library.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("redistest: PING answered %q", line)
	}
	return nil
}

// freePort returns a loopback port that was free a moment ago.
func freePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
