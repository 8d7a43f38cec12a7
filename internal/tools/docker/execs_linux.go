package docker

import (
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/barrhawk/barrhawk/internal/proc"
)

// processStart is pid's start time in clock ticks since boot (field 22 of
// /proc/pid/stat), which tells a process from a later one given its pid.
func processStart(pid int) (string, bool) {
	info, ok := proc.Stat(pid)
	if !ok {
		return "", false
	}
	return strconv.FormatUint(info.Start, 10), true
}

// inContainer reports whether pid runs in the container whose full id is
// given: its cgroup path names the container.
func inContainer(pid int, id string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	return err == nil && len(id) >= 12 && strings.Contains(string(b), id)
}

// killPID sends SIGKILL.
func killPID(pid int) bool { return syscall.Kill(pid, syscall.SIGKILL) == nil }

// processAlive reports whether a process with this pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
