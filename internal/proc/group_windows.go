package proc

import (
	"os"
	"os/exec"
	"syscall"
)

// newGroup starts cmd in a process group of its own.
func newGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP
}

// signalGroup ends the process: Windows has no signals to send, so any
// signal kills it (its children are not reached without a job object).
func signalGroup(pid int, _ syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
