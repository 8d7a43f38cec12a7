package queue

import (
	"os"
	"strconv"
	"strings"

	"github.com/barrhawk/barrhawk/internal/proc"
)

// HostName is this machine's name as worker ids carry it: letters, digits,
// '.', '-' and '_', anything else as '_'.
func HostName() string {
	h, _ := os.Hostname()
	h = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, h)
	if h == "" {
		h = "host"
	}
	return h
}

// DeadWorker says whether a worker id (as River records it) names a worker
// of host whose process (a pool's, or serve's) is gone: ids are
// <host>-<pid>[-<slot>-<serial>].
func DeadWorker(host string) func(string) bool {
	return func(w string) bool {
		rest, ok := strings.CutPrefix(w, host+"-")
		if !ok {
			return false
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || pid == os.Getpid() {
			return false
		}
		return !proc.Exists(pid)
	}
}
