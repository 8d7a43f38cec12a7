package jobs

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/testsupport/lockedbuf"
)

// waitFor polls cond until it holds; the deadline only bounds a failure.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// runSupervisor runs s until the returned stop is called, which waits for
// Run to return.
func runSupervisor(s *Supervisor) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

// UT-001: the supervisor spawns Count worker processes, each told its id,
// tracks their pids, and publishes them in its status file.
func TestUT001ProcessSpawn(t *testing.T) {
	dir := t.TempDir()
	statusFile := filepath.Join(dir, "pool.json")
	s := &Supervisor{Count: 3, Prefix: "host-1", StatusFile: statusFile,
		Command: func(id string) *exec.Cmd {
			return exec.Command("/bin/sh", "-c", `echo "$1 $$" > "$2/$1"; exec sleep 30`, "sh", id, dir)
		}}
	stop := runSupervisor(s)
	defer stop()
	waitFor(t, "three workers to report", func() bool {
		n := 0
		for _, w := range s.Status() {
			// A worker may write before the supervisor marks it running.
			if b, err := os.ReadFile(filepath.Join(dir, w.ID)); err == nil && strings.HasSuffix(string(b), "\n") && w.State == "running" && w.PID != 0 {
				n++
			}
		}
		return n == 3
	})
	st := s.Status()
	var ids []string
	for i, w := range st {
		ids = append(ids, w.ID)
		if w.Slot != i+1 || w.State != "running" || !strings.HasPrefix(w.ID, "host-1-") {
			t.Errorf("worker %d: %+v", i, w)
		}
		b, _ := os.ReadFile(filepath.Join(dir, w.ID))
		if got := strings.Fields(string(b)); len(got) != 2 || got[0] != w.ID || got[1] != itoa(w.PID) {
			t.Errorf("worker %s wrote %q, want its id and pid %d", w.ID, b, w.PID)
		}
		if syscall.Kill(w.PID, 0) != nil {
			t.Errorf("worker %s (pid %d) is not running", w.ID, w.PID)
		}
	}
	if sorted := slices.Compact(slices.Sorted(slices.Values(ids))); len(sorted) != 3 {
		t.Errorf("ids not distinct: %v", ids)
	}
	var file Status
	waitFor(t, "the status file", func() bool {
		data, err := os.ReadFile(statusFile)
		return err == nil && json.Unmarshal(data, &file) == nil && len(file.Workers) == 3 && file.Workers[2].State == "running"
	})
	if file.PID != os.Getpid() {
		t.Errorf("status file: %+v", file)
	}
	stop()
	for _, w := range st {
		if syscall.Kill(w.PID, 0) == nil {
			t.Errorf("worker %d outlived the supervisor", w.PID)
		}
	}
	if _, err := os.Stat(statusFile); !os.IsNotExist(err) {
		t.Errorf("the status file outlived the supervisor: %v", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// UT-002: stopping sends SIGTERM first; a worker that ignores it is killed
// after the grace; both steps are logged, and AfterExit runs for each.
func TestUT002ProcessKill(t *testing.T) {
	var log lockedbuf.Buffer
	var mu sync.Mutex
	var after []string
	s := &Supervisor{Count: 2, StopGrace: 200 * time.Millisecond, Log: slog.New(slog.NewTextHandler(&log, nil)),
		AfterExit: func(id string) { mu.Lock(); after = append(after, id); mu.Unlock() },
		Command: func(id string) *exec.Cmd {
			if strings.HasPrefix(id, "worker-1-") {
				// Ignores SIGTERM; says when its trap is set.
				return exec.Command("/bin/sh", "-c", "trap '' TERM; echo ready; sleep 30 & wait; sleep 30")
			}
			return exec.Command("/bin/sh", "-c", "echo ready; exec sleep 30")
		}}
	var ready lockedbuf.Buffer
	cmd := s.Command
	s.Command = func(id string) *exec.Cmd { c := cmd(id); c.Stdout = &ready; return c }
	stop := runSupervisor(s)
	waitFor(t, "two workers ready", func() bool { return strings.Count(ready.String(), "ready") == 2 })
	pids := []int{s.Status()[0].PID, s.Status()[1].PID}
	stop()
	out := log.String()
	if strings.Count(out, "stopping worker (SIGTERM)") != 2 || !strings.Contains(out, "killing it (SIGKILL)") || strings.Contains(out, "exited unexpectedly") {
		t.Errorf("log:\n%s", out)
	}
	st := s.Status()
	if st[0].LastExit != "killed by signal SIGKILL (exit code 137)" || st[1].LastExit != "killed by signal SIGTERM (exit code 143)" || st[0].State != "stopped" {
		t.Errorf("exits: %+v", st)
	}
	for _, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("worker %d is still there", pid)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(after) != 2 {
		t.Errorf("AfterExit ran for %v", after)
	}
}

// UT-003: a worker that exits is restarted after a delay doubling from
// BaseDelay up to MaxDelay; over MaxRestarts in a row it is failed and
// replaced by a worker of a new id; AfterExit runs after each exit.
func TestUT003RestartLogic(t *testing.T) {
	var log lockedbuf.Buffer
	var mu sync.Mutex
	var exits []string
	// No run is long enough to start a new row, however slow a loaded
	// machine starts sh (a run of MaxDelay did, and failed the test).
	s := &Supervisor{Count: 1, MaxRestarts: 2, BaseDelay: 10 * time.Millisecond, MaxDelay: 40 * time.Millisecond, StableAfter: time.Minute,
		AfterExit: func(id string) { mu.Lock(); exits = append(exits, id); mu.Unlock() },
		Command:   func(string) *exec.Cmd { return exec.Command("/bin/sh", "-c", "exit 1") }, Log: slog.New(slog.NewTextHandler(&log, nil))}
	stop := runSupervisor(s)
	waitFor(t, "the replacement's first restart", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(exits) >= 4
	})
	stop()
	out := log.String()
	if !strings.Contains(out, "over the restart limit; replacing it") || !strings.Contains(out, "status=\"exit status 1\"") {
		t.Errorf("log:\n%s", out)
	}
	mu.Lock()
	// worker-1-1 exits three times (start, two restarts), then worker-1-2.
	if exits[0] != "worker-1-1" || exits[2] != "worker-1-1" || exits[3] != "worker-1-2" {
		t.Errorf("exits: %v", exits)
	}
	mu.Unlock()
	st := s.Status()
	if len(st) != 1 || st[0].Replaced < 1 || st[0].State != "stopped" {
		t.Errorf("status: %+v", st)
	}
	for n, want := range map[int]time.Duration{1: 10 * time.Millisecond, 2: 20 * time.Millisecond, 3: 40 * time.Millisecond, 10: 40 * time.Millisecond} {
		if d := s.delay(n); d != want {
			t.Errorf("delay before restart %d: %v, want %v", n, d, want)
		}
	}
	// The defaults are the seed's: 1 s doubling to 60 s, 10 restarts, 10 s grace.
	d := &Supervisor{Count: 1, Command: func(string) *exec.Cmd { return exec.Command("true") }}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d.Run(ctx)
	if d.BaseDelay != time.Second || d.MaxDelay != time.Minute || d.MaxRestarts != 10 || d.StopGrace != 10*time.Second || d.delay(7) != time.Minute || d.delay(6) != 32*time.Second {
		t.Errorf("defaults: %+v", d)
	}
	if err := (&Supervisor{}).Run(context.Background()); err == nil || !strings.Contains(err.Error(), "at least one") {
		t.Errorf("no workers: %v", err)
	}
}
