//go:build !unix

package sessions

import "os/exec"

// ownSession leaves cmd as it is: process sessions are Unix's.
func ownSession(*exec.Cmd) {}

func (p *process) kill() { _ = p.cmd.Process.Kill() }
