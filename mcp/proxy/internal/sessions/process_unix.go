//go:build unix

package sessions

import (
	"os/exec"
	"syscall"
)

// ownSession has cmd start in a process session of its own (setsid),
// unless its start function chose a process group itself.
func ownSession(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if a := cmd.SysProcAttr; !a.Setsid && !a.Setpgid {
		a.Setsid = true
	}
}

// kill kills the process's group, what the server started included, when
// it leads one (ownSession); else only the process.
func (p *process) kill() {
	a := p.cmd.SysProcAttr
	if a != nil && (a.Setsid || (a.Setpgid && a.Pgid == 0)) {
		// ESRCH when the group has gone: nothing is left to kill.
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		return
	}
	_ = p.cmd.Process.Kill()
}
