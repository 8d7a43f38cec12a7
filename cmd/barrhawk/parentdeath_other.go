//go:build !linux

package main

import (
	"os"
	"os/exec"
)

// parentDeathSignals is empty where the system has no parent-death signal:
// a worker sees its pool go by polling (watchPool).
var parentDeathSignals []os.Signal

// signalOnParentDeath does nothing here (see parentDeathSignals).
func signalOnParentDeath(*exec.Cmd) {}
