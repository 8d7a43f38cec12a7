package queue

import (
	"context"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

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

// RecoveryInterval is how often a pool looks for the jobs of dead workers.
const RecoveryInterval = 30 * time.Second

// HandBackGrace is how long past its own timeout a running job is taken
// for one whose worker is gone: its commands' kill timeout and a minute.
func HandBackGrace(killTimeout time.Duration) time.Duration { return killTimeout + time.Minute }

// RecoverJobs hands back to the queue the jobs of this machine's dead
// workers and those running grace past their own timeout anywhere (see
// HandBack), logging what it did.
func RecoverJobs(ctx context.Context, log *slog.Logger, q Queue, grace time.Duration) {
	ids, err := HandBack(ctx, q, DeadWorker(HostName()), grace)
	if err != nil {
		log.Error("could not look for jobs of dead workers", "err", err)
	} else if len(ids) > 0 {
		log.Warn("handed jobs of dead workers back to the queue", "jobs", ids)
	}
}

// KeepRecoveringJobs runs RecoverJobs every RecoveryInterval until ctx
// ends: jobs of workers that died with their machine, or their pool.
func KeepRecoveringJobs(ctx context.Context, log *slog.Logger, q Queue, grace time.Duration) {
	t := time.NewTicker(RecoveryInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			RecoverJobs(ctx, log, q, grace)
		}
	}
}
