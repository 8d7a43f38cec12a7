//go:build unix

package proc

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
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
	// No scan at start (a process just made has no orphans yet): each
	// SIGCHLD or tick, one.
	for {
		select {
		case <-ctx.Done():
			return
		case <-ch:
		case <-t.C:
		}
		if n := ReapOrphans(); n > 0 {
			log.Debug("reaped orphaned processes", "count", n)
		}
	}
}

// ReapOrphans reaps every zombie child not started through Start and
// returns how many it reaped.
func ReapOrphans() int {
	// /proc is read before the lock: Start waits on it, and a scan of a
	// busy machine's processes takes a while. A child Start adds meanwhile
	// is no zombie of this scan's.
	zombies := ZombieChildren(os.Getpid())
	if len(zombies) == 0 {
		return 0
	}
	track.Lock()
	defer track.Unlock()
	n := 0
	for _, pid := range zombies {
		if track.pids[pid] {
			continue
		}
		var ws syscall.WaitStatus
		if got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); err == nil && got == pid {
			n++
		}
	}
	return n
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
		if c.PGID > 0 && c.PGID != own {
			_ = syscall.Kill(-c.PGID, syscall.SIGKILL)
		}
		_ = syscall.Kill(c.PID, syscall.SIGKILL)
		out = append(out, c.PID)
	}
	return out
}
