//go:build !linux

package docker

// Elsewhere the daemon runs in a virtual machine (Docker Desktop) whose
// processes are not ours to see: execs are not tracked.

func processStart(int) (string, bool) { return "", false }

func inContainer(int, string) bool { return false }

func killPID(int) bool { return false }

func processAlive(int) bool { return true }
