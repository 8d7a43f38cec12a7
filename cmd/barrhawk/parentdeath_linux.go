package main

import (
	"os"
	"os/exec"
	"syscall"
)

// parentDeathSignals are what a worker gets when its pool dies: the pool
// starts it with this parent-death signal (PR_SET_PDEATHSIG).
var parentDeathSignals = []os.Signal{syscall.SIGUSR1}

// signalOnParentDeath has c get SIGUSR1 when the process starting it dies.
func signalOnParentDeath(c *exec.Cmd) {
	if c.SysProcAttr == nil {
		c.SysProcAttr = &syscall.SysProcAttr{}
	}
	c.SysProcAttr.Pdeathsig = syscall.SIGUSR1
}
