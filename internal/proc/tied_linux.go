package proc

import (
	"os/exec"
	"syscall"
)

// tieToParent has cmd's process get SIGKILL when the thread starting it
// dies.
func tieToParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
