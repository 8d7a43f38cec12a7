package docker

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// processStart is pid's start time in clock ticks since boot (field 22 of
// /proc/pid/stat), which tells a process from a later one given its pid.
func processStart(pid int) (string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false
	}
	// The command name (field 2) may hold spaces; fields count from after it.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return "", false
	}
	return f[19], true
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
