package sessions

import (
	"cmp"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"
)

// process is one started process of the MCP server, with pipes of the
// Server's own, reaped on a goroutine of its own. It runs in a process
// session of its own (ownSession): Linux's autogroup scheduler then gives
// each server its share of the CPU (16 sessions opened at once took 20–29 s
// in the proxy's session, 6–8 s apart), and a stop reaches what it started.
type process struct {
	cmd       *exec.Cmd
	toChild   *os.File      // its stdin
	fromChild *os.File      // its stdout
	exited    chan struct{} // closed once it has been reaped
	// claimed is closed when a session takes it from the warm ones.
	claimed chan struct{}
}

func (c *Server) startProcess() (*process, error) {
	cmd := c.start()
	if cmd == nil {
		return nil, errors.New("the start function returned no command")
	}
	// Pipes of our own: Wait closes cmd.StdinPipe's, so it could not run
	// while Serve still reads the server's last messages.
	childIn, toChild, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromChild, childOut, err := os.Pipe()
	if err != nil {
		childIn.Close()
		toChild.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = childIn, childOut
	cmd.WaitDelay = cmp.Or(cmd.WaitDelay, c.grace)
	ownSession(cmd)
	err = cmd.Start()
	// Ours must go, or neither side would ever see EOF.
	childIn.Close()
	childOut.Close()
	if err != nil {
		toChild.Close()
		fromChild.Close()
		return nil, err
	}
	p := &process{cmd: cmd, toChild: toChild, fromChild: fromChild, exited: make(chan struct{}), claimed: make(chan struct{})}
	go func() {
		if err := cmd.Wait(); err != nil {
			c.r.Logger.Debug("selfheal proxy: a process of the MCP server ended", "status", err)
		}
		close(p.exited)
	}()
	return p, nil
}

// spawn returns the session of a warm process or a new one, entered once,
// not launched.
func (c *Server) spawn(id, limitBy string) (*session, error) {
	p := c.takeWarm()
	if p == nil {
		var err error
		if p, err = c.startProcess(); err != nil {
			return nil, err
		}
	}
	s := &session{
		c: c, id: id, proc: p, limitBy: limitBy,
		stopCh: make(chan struct{}), endedCh: make(chan struct{}),
		served: make(chan struct{}), routed: make(chan struct{}),
		done:      make(chan struct{}),
		waiters:   map[string]*stream{},
		progress:  map[string]*stream{},
		resumable: map[uint64]*stream{},
		busy:      1, // the request it starts for
	}
	s.room = sync.NewCond(&s.mu)
	s.inR, s.in = io.Pipe()
	s.outR, s.outW = io.Pipe()
	return s, nil
}

// retire stops a process no session relays: stdin closed, the grace, then
// its process group killed.
func (c *Server) retire(p *process) {
	p.toChild.Close()
	t := time.NewTimer(c.grace)
	select {
	case <-p.exited:
	case <-t.C:
	}
	t.Stop()
	p.kill()
	<-p.exited
	p.fromChild.Close()
}

// The warm processes: c.warm of them wait started, so that a session's
// first answer costs no process start. Each counts in c.running and
// against c.maxSessions.

// takeWarm returns a warm process that has not exited, or nil, and starts
// the warm ones again: a server that exits at its start is started once
// per session, never in a loop.
func (c *Server) takeWarm() *process {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.warm > 0 {
		go c.fill()
	}
	for i, p := range c.ready {
		select {
		case <-p.exited:
			continue
		default:
		}
		c.ready = slices.Delete(c.ready, i, i+1)
		close(p.claimed)
		c.running.Done() // the caller's reservation counts it now
		return p
	}
	return nil
}

// fill starts warm processes until c.warm wait. A failed start stops the
// filling until the next take.
func (c *Server) fill() {
	for {
		c.mu.Lock()
		if c.closed || len(c.ready)+c.warming >= c.warm || c.live+len(c.ready)+c.warming >= c.maxSessions {
			c.mu.Unlock()
			return
		}
		c.warming++
		c.running.Add(1)
		c.mu.Unlock()
		p, err := c.startProcess()
		c.mu.Lock()
		c.warming--
		closed := c.closed
		if err == nil && !closed {
			c.ready = append(c.ready, p)
		}
		c.mu.Unlock()
		switch {
		case err != nil:
			c.running.Done()
			c.r.Logger.Error("selfheal proxy: cannot start a warm process of the MCP server", "error", err)
			return
		case closed:
			c.retire(p)
			c.running.Done()
			return
		}
		go c.watch(p)
	}
}

// watch retires a warm process that exits untaken, or at Close.
func (c *Server) watch(p *process) {
	exited := false
	select {
	case <-p.claimed:
		return
	case <-p.exited:
		exited = true
	case <-c.closing:
	}
	c.mu.Lock()
	i := slices.Index(c.ready, p)
	if i >= 0 {
		c.ready = slices.Delete(c.ready, i, i+1)
	}
	c.mu.Unlock()
	if i < 0 {
		return // taken meanwhile
	}
	if exited { // started again at the next take, not in a loop
		c.r.Logger.Warn("selfheal proxy: a warm process of the MCP server exited before a session took it", "status", p.cmd.ProcessState.String())
	}
	c.retire(p)
	c.running.Done()
}
