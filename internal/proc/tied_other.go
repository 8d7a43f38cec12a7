//go:build !linux

package proc

import "os/exec"

// tieToParent does nothing where there is no parent-death signal.
func tieToParent(*exec.Cmd) {}
