//go:build unix

package proc

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Reap waits for zombie children that this package did not start (orphans
// adopted as a subreaper) on every SIGCHLD and every interval, until ctx
// ends. Children started with Start are left to their own Wait.
func Reap(ctx context.Context, interval time.Duration, log *slog.Logger) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGCHLD)
	defer signal.Stop(ch)
	t := time.NewTicker(interval)
	defer t.Stop()
	// A zombie not yet old enough to take is looked at again when it is.
	again := time.NewTimer(time.Hour)
	again.Stop()
	defer again.Stop()
	// No scan at start (a process just made has no orphans yet): each
	// SIGCHLD or tick, one.
	for {
		select {
		case <-ctx.Done():
			return
		case <-ch:
		case <-t.C:
		case <-again.C:
		}
		n, pending := reapOrphans()
		if n > 0 {
			log.Debug("reaped orphaned processes", "count", n)
		}
		if pending > 0 {
			again.Reset(orphanAge)
		}
	}
}

// orphanAge is how long an untracked zombie child must have been one
// before ReapOrphans takes it (see there).
const orphanAge = 2 * time.Second

// ReapOrphans reaps every zombie child not started through Start that has
// been one for orphanAge, by earlier calls' sight, and returns how many it
// reaped. A child of exec.Cmd is a zombie only until its own Wait, which is
// waiting already; reaping it in that moment made that Wait fail ("waitid:
// no child processes", seen as a failed git command under load). A zombie
// that stays one that long has nobody waiting for it.
func ReapOrphans() int {
	n, _ := reapOrphans()
	return n
}

// reapOrphans is ReapOrphans, also counting the zombies left for later.
func reapOrphans() (reaped, pending int) {
	// /proc is read before the lock: Start waits on it, and a scan of a
	// busy machine's processes takes a while. A child Start adds meanwhile
	// is no zombie of this scan's.
	found := zombies(os.Getpid())
	now := time.Now()
	track.Lock()
	defer track.Unlock()
	seen := make(map[zombie]time.Time, len(found))
	for _, z := range found {
		key := zombie{z.PID, z.Start}
		if track.pids[z.PID] {
			continue
		}
		first, ok := track.zombies[key]
		if !ok || now.Sub(first) < orphanAge {
			if !ok {
				first = now
			}
			seen[key] = first // its Wait may be about to take it
			continue
		}
		var ws syscall.WaitStatus
		if got, err := syscall.Wait4(z.PID, &ws, syscall.WNOHANG, nil); err == nil && got == z.PID {
			reaped++
		}
	}
	track.zombies = seen
	return reaped, len(seen)
}

// KillOrphans kills the process group of every live child of this process
// that was not started through Start: orphans adopted as a subreaper, such
// as the commands of a worker process that was killed. It returns their
// pids; their zombies are left to Reap. Use it only in a process whose
// every child of its own is started through Start, or it kills those too.
func KillOrphans() []int {
	track.Lock()
	defer track.Unlock()
	own := syscall.Getpgrp()
	var out []int
	for _, c := range Children(os.Getpid()) {
		if track.pids[c.PID] || c.State == 'Z' {
			continue
		}
		killWithGroup(c, own)
		out = append(out, c.PID)
	}
	return out
}

// KillByEnv kills, with their process groups, the processes whose
// environment holds every one of vars (name → value): what a dead worker
// left running for a job carries that job's BARRHAWK_TASK_ID and its
// BARRHAWK_WORKER_ID, wherever it was reparented. Processes whose
// environment cannot be read (another user's) are left alone. It returns
// the pids it killed.
func KillByEnv(vars map[string]string) []int {
	if len(vars) == 0 {
		return nil
	}
	self, own := os.Getpid(), syscall.Getpgrp()
	var out []int
	for _, p := range All() {
		if p.PID == self || p.State == 'Z' {
			continue
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p.PID) + "/environ")
		if err != nil || !hasEnv(b, vars) {
			continue
		}
		killWithGroup(p, own)
		out = append(out, p.PID)
	}
	return out
}

// killWithGroup kills p with SIGKILL, and its process group unless that is
// own (this process's).
func killWithGroup(p Info, own int) {
	if p.PGID > 0 && p.PGID != own {
		_ = syscall.Kill(-p.PGID, syscall.SIGKILL)
	}
	_ = syscall.Kill(p.PID, syscall.SIGKILL)
}

// hasEnv reports whether a /proc environ (NUL-separated NAME=value) holds
// every one of vars.
func hasEnv(environ []byte, vars map[string]string) bool {
	found := 0
	for _, kv := range strings.Split(string(environ), "\x00") {
		name, value, ok := strings.Cut(kv, "=")
		if want, asked := vars[name]; ok && asked && want == value {
			found++
		}
	}
	return found == len(vars)
}
