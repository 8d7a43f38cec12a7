//go:build !unix

package main

import "os/exec"

func newGroup(*exec.Cmd) {}

func terminate(cmd *exec.Cmd) { cmd.Process.Kill() } //nolint:errcheck // stopping

func kill(cmd *exec.Cmd) { cmd.Process.Kill() } //nolint:errcheck // stopping
