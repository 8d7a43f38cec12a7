//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// newGroup starts the server in a process group of its own, so that
// stopping it stops its browser too.
func newGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func terminate(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) } //nolint:errcheck // stopping

func kill(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) } //nolint:errcheck // stopping
