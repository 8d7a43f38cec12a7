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

// RecoverJobs deals with the jobs of this machine's dead workers and those
// running r.Grace past their own timeout anywhere (see HandBack; r.Gone is
// DeadWorker of this host), logging what it did.
func RecoverJobs(ctx context.Context, log *slog.Logger, q Queue, r Recovery) {
	r.Gone = DeadWorker(HostName())
	done, err := HandBack(ctx, q, r)
	LogRecovered(log, done, err)
}

// LogRecovered logs what HandBack did.
func LogRecovered(log *slog.Logger, done Recovered, err error) {
	if err != nil {
		log.Error("could not hand back the jobs of dead workers", "err", err)
	}
	if len(done.HandedBack) > 0 {
		log.Warn("handed a dead worker's jobs back to the queue", "jobs", done.HandedBack)
	}
	if len(done.Ended) > 0 {
		log.Info("recorded a dead worker's jobs as its journal says they ended, not run again", "jobs", done.Ended)
	}
	if len(done.Agents) > 0 {
		log.Warn("ended a dead worker's agent jobs as failed (a sub-agent's run is not repeated)", "jobs", done.Agents)
	}
}

// KeepRecoveringJobs runs RecoverJobs every RecoveryInterval until ctx
// ends: jobs of workers that died with their machine, or their pool.
func KeepRecoveringJobs(ctx context.Context, log *slog.Logger, q Queue, r Recovery) {
	t := time.NewTicker(RecoveryInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			RecoverJobs(ctx, log, q, r)
		}
	}
}
