package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The message kinds of the stdio comparison.
const (
	kindValid  = "valid"  // write_file with arguments of the size
	kindBad    = "bad"    // the same with a number for path: the server rejects it
	kindResult = "result" // read: a small call answered by a result object of the size
)

// The sides: what sits between the client and the server.
const (
	sideDirect = "direct" // nothing: the client talks to the server
	sideRelay  = "relay"  // relayfloor: io.Copy both ways, stdin through the poller
	sideNaive  = "naive"  // relayfloor -naive: io.Copy, stdin read with blocking system calls
	sideProxy  = "proxy"  // selfheal proxy
	sideStrict = "strict" // selfheal proxy --strict
	sideBefore = "before" // selfheal proxy, another build (-before)
)

// isProxy reports whether side is a selfheal proxy.
func isProxy(side string) bool {
	return side == sideProxy || side == sideStrict || side == sideBefore
}

// idPrefix starts every call the client sends; its id is a string of
// idDigits digits written in place, so that one buffer serves every call.
const (
	idPrefix = `{"jsonrpc":"2.0","id":"c`
	idDigits = 9
)

// resultPrefix is the head of a result line before its result object.
var resultPrefix = len(`{"jsonrpc":"2.0","id":"c000000000","result":`)

// call is a tools/call line of the kind whose payload is size bytes: the
// arguments object for calls, the result object asked for with read.
func call(kind string, size int) []byte {
	var args string
	tool := "write_file"
	switch kind {
	case kindResult:
		tool, args = "read", `{"size":`+strconv.Itoa(size)+`}`
	default:
		head := `{"path":"/tmp/out.txt","content":"`
		if kind == kindBad {
			head = `{"path":7,"content":"`
		}
		n := max(size-len(head)-len(`"}`), 0)
		args = head + strings.Repeat("x", n) + `"}`
	}
	return []byte(idPrefix + strings.Repeat("0", idDigits) + `","method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + "}}\n")
}

// setID writes id into a line built by call.
func setID(line []byte, id int) {
	for i := len(idPrefix) + idDigits - 1; i >= len(idPrefix); i-- {
		line[i] = byte('0' + id%10)
		id /= 10
	}
}

// chain is a client's connection to a server through one side: the
// processes started for it, and the client's ends of the pipes.
type chain struct {
	side   string
	cmd    *exec.Cmd
	w      io.WriteCloser
	r      *bufio.Reader
	stderr *tail
	id     int
	head   []byte // the start of the last line read
}

// headMax is how much of a response the client keeps to check it.
const headMax = 4 << 10

// bins are the programs the harness runs.
type bins struct {
	selfheal, relay, reverse, server string
	before                           string // another selfheal, or ""
}

// argv is the command line of side.
func (b bins) argv(side string) []string {
	switch side {
	case sideDirect:
		return []string{b.server}
	case sideRelay:
		return []string{b.relay, "--", b.server}
	case sideNaive:
		return []string{b.relay, "-naive", "--", b.server}
	case sideProxy:
		return []string{b.selfheal, "proxy", "--", b.server}
	case sideStrict:
		return []string{b.selfheal, "proxy", "--strict", "--", b.server}
	case sideBefore:
		return []string{b.before, "proxy", "--", b.server}
	}
	panic("unknown side " + side)
}

// start starts side and goes through MCP's handshake and a tools/list, so
// that the proxy knows the tools.
func start(b bins, side string) (*chain, error) {
	argv := b.argv(side)
	c := &chain{side: side, cmd: exec.Command(argv[0], argv[1:]...), stderr: &tail{}}
	c.cmd.Stderr = c.stderr
	w, err := c.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	r, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	c.w, c.r = w, bufio.NewReaderSize(r, 64<<10)
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench/relay","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`,
	} {
		if _, err := io.WriteString(c.w, m+"\n"); err != nil {
			return nil, c.fail(err)
		}
		if !strings.Contains(m, `"id"`) {
			continue
		}
		if _, err := c.readLine(); err != nil {
			return nil, c.fail(err)
		}
		if !bytes.Contains(c.head, []byte(`"result"`)) {
			return nil, c.fail(fmt.Errorf("answer to %s: %.200s", m, c.head))
		}
	}
	return c, nil
}

// fail adds what the side wrote on stderr to err.
func (c *chain) fail(err error) error {
	if s := strings.TrimSpace(c.stderr.String()); s != "" {
		return fmt.Errorf("%s: %w; stderr: %s", c.side, err, s)
	}
	return fmt.Errorf("%s: %w", c.side, err)
}

// close ends the client's side and waits for the processes to end.
func (c *chain) close() error {
	c.w.Close()
	done := make(chan error, 1)
	go func() {
		io.Copy(io.Discard, c.r)
		done <- c.cmd.Wait()
	}()
	select {
	case err := <-done:
		if err != nil {
			return c.fail(err)
		}
		return nil
	case <-time.After(10 * time.Second):
		c.cmd.Process.Kill()
		<-done
		return c.fail(errors.New("did not end 10 s after its stdin closed; killed"))
	}
}

// readLine reads one line, keeping its head, and returns its length.
func (c *chain) readLine() (int, error) {
	c.head = c.head[:0]
	n := 0
	for {
		frag, err := c.r.ReadSlice('\n')
		n += len(frag)
		if k := min(len(frag), headMax-len(c.head)); k > 0 {
			c.head = append(c.head, frag[:k]...)
		}
		if err != bufio.ErrBufferFull {
			return n, err
		}
	}
}

// roundTrip sends line with the next id and reads the answer.
func (c *chain) roundTrip(line []byte) (int, error) {
	c.id++
	setID(line, c.id)
	if _, err := c.w.Write(line); err != nil {
		return 0, err
	}
	return c.readLine()
}

// check says whether an answer of n bytes starting with c.head is what
// side answers to a message of kind and size.
func (c *chain) check(kind string, size, n int) error {
	want := ""
	switch {
	case kind == kindValid:
		want = `"wrote `
	case kind == kindBad && isProxy(c.side):
		want = `validation_error`
	case kind == kindBad:
		want = `-32602`
	case kind == kindResult:
		if w := resultPrefix + size + len("}\n"); n != w {
			return fmt.Errorf("%s: a result of %d bytes, want %d: %.200s", c.side, n, w, c.head)
		}
		return nil
	}
	if !bytes.Contains(c.head, []byte(want)) {
		return fmt.Errorf("%s: the answer to a %s of %d bytes lacks %s: %.300s", c.side, kind, size, want, c.head)
	}
	return nil
}

// timed sends line (of kind and size) with the next id, reads and checks
// the answer, and returns the round trip's time.
func (c *chain) timed(line []byte, kind string, size int) (time.Duration, error) {
	t0 := time.Now()
	got, err := c.roundTrip(line)
	d := time.Since(t0)
	if err != nil {
		return 0, c.fail(err)
	}
	if err := c.check(kind, size, got); err != nil {
		return 0, c.fail(err)
	}
	return d, nil
}

// stream sends n copies of line (of kind and size) without waiting for
// their answers, reads the n answers as they come, and returns the time it
// took.
func (c *chain) stream(line []byte, kind string, size, n int) (time.Duration, error) {
	first := c.id + 1
	c.id += n
	written := make(chan error, 1)
	t0 := time.Now()
	go func() {
		for i := range n {
			setID(line, first+i)
			if _, err := c.w.Write(line); err != nil {
				written <- err
				return
			}
		}
		written <- nil
	}()
	var err error
	for range n {
		var got int
		if got, err = c.readLine(); err != nil {
			break
		}
		if err = c.check(kind, size, got); err != nil {
			break
		}
	}
	d := time.Since(t0)
	if werr := <-written; err == nil {
		err = werr
	}
	if err != nil {
		return 0, c.fail(err)
	}
	return d, nil
}

// vmHWM is the peak resident set of the side's own process (not its
// server's) in bytes, from /proc/PID/status.
func (c *chain) vmHWM() (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/PID/status")
}

// tail keeps the last 4 KiB written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4<<10 {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-4<<10:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
