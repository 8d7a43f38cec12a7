package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/barrhawk/barrhawk/internal/proc"
)

// Supervisor keeps Count worker processes running (barrhawk worker
// start): a worker that exits is restarted after a delay that doubles from
// BaseDelay up to MaxDelay; one restarted more than MaxRestarts times in a
// row is failed and replaced by a new one (a worker that ran at least
// MaxDelay before exiting starts a new row). When ctx ends, every worker
// gets SIGTERM (it drains: its running job finishes or is handed back),
// then SIGKILL after StopGrace; both are logged. After any worker exits,
// the orphans it left are killed (KillOrphans) and AfterExit runs, to hand
// its jobs back to the queue and clean up after it.
type Supervisor struct {
	Count int
	// Prefix starts every worker id (default "worker"): ids are
	// <Prefix>-<slot>-<serial>; a replaced worker gets a new serial.
	Prefix string
	// Command makes the command of worker id (barrhawk worker run --id).
	Command     func(id string) *exec.Cmd
	Log         *slog.Logger
	MaxRestarts int           // default 10
	BaseDelay   time.Duration // default 1 s
	MaxDelay    time.Duration // default 60 s
	StopGrace   time.Duration // default 10 s
	// StableAfter: a worker that ran this long before it exited ran well,
	// and its restarts start a new row (default MaxDelay).
	StableAfter time.Duration
	// KillOrphans kills, after a worker exits, the processes it left
	// behind (its commands' process groups, adopted by this process as a
	// subreaper: see proc.KillOrphans). Only for a process whose own
	// children all go through proc.Start.
	KillOrphans bool
	// AfterExit runs after worker id exited, before any restart (the
	// worker start command hands its running jobs back to the queue and
	// removes its temporary directory).
	AfterExit func(id string)
	// StatusFile, if set, receives the workers' states as JSON (a Status
	// value) whenever they change; barrhawk worker status reads it.
	StatusFile string

	mu      sync.Mutex
	fileMu  sync.Mutex // one status file write at a time
	workers map[int]*WorkerState
	started time.Time
	serial  atomic.Int64
}

// WorkerState is what the supervisor knows of a worker slot.
type WorkerState struct {
	Slot int    `json:"slot"`
	ID   string `json:"id"`
	PID  int    `json:"pid"`
	// State is starting, running, restarting (waiting out the delay) or
	// stopped.
	State string `json:"state"`
	// Restarts counts the restarts in a row of this worker; Replaced the
	// workers of this slot failed over the restart limit.
	Restarts int       `json:"restarts"`
	Replaced int       `json:"replaced"`
	Started  time.Time `json:"started"`
	LastExit string    `json:"lastExit,omitempty"`
}

// Status is a supervisor's state as its StatusFile holds it.
type Status struct {
	PID     int           `json:"pid"`
	Started time.Time     `json:"started"`
	Workers []WorkerState `json:"workers"`
}

// Status lists the workers, by slot.
func (s *Supervisor) Status() []WorkerState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.list()
}

func (s *Supervisor) list() []WorkerState {
	out := make([]WorkerState, 0, len(s.workers))
	for _, w := range s.workers {
		out = append(out, *w)
	}
	slices.SortFunc(out, func(a, b WorkerState) int { return a.Slot - b.Slot })
	return out
}

// update changes a worker's state under the lock and writes the status
// file.
func (s *Supervisor) update(f func()) {
	s.mu.Lock()
	f()
	s.mu.Unlock()
	if s.StatusFile == "" {
		return
	}
	// One writer at a time, each writing the state as it is then: the
	// last write holds the latest state.
	s.fileMu.Lock()
	defer s.fileMu.Unlock()
	s.mu.Lock()
	data, _ := json.MarshalIndent(Status{PID: os.Getpid(), Started: s.started, Workers: s.list()}, "", "  ")
	s.mu.Unlock()
	// Written whole, then renamed: a reader never sees half of it.
	tmp := s.StatusFile + ".tmp"
	if err := os.MkdirAll(filepath.Dir(s.StatusFile), 0o755); err == nil {
		if err = os.WriteFile(tmp, data, 0o644); err == nil {
			err = os.Rename(tmp, s.StatusFile)
		}
		if err != nil {
			s.Log.Warn("could not write the status file", "file", s.StatusFile, "err", err)
		}
	}
}

// Run supervises until ctx ends, then stops every worker.
func (s *Supervisor) Run(ctx context.Context) error {
	if s.Count <= 0 {
		return fmt.Errorf("worker count %d: start at least one", s.Count)
	}
	if s.MaxRestarts <= 0 {
		s.MaxRestarts = 10
	}
	if s.BaseDelay <= 0 {
		s.BaseDelay = time.Second
	}
	if s.MaxDelay <= 0 {
		s.MaxDelay = 60 * time.Second
	}
	if s.StableAfter <= 0 {
		s.StableAfter = s.MaxDelay
	}
	if s.StopGrace <= 0 {
		s.StopGrace = 10 * time.Second
	}
	if s.Log == nil {
		s.Log = slog.New(slog.DiscardHandler)
	}
	if s.Prefix == "" {
		s.Prefix = "worker"
	}
	s.workers = map[int]*WorkerState{}
	s.started = time.Now()
	var wg sync.WaitGroup
	for i := range s.Count {
		wg.Go(func() { s.slot(ctx, i+1) })
	}
	wg.Wait()
	if s.StatusFile != "" {
		_ = os.Remove(s.StatusFile)
	}
	return nil
}

// delay is the wait before restart n (1-based): BaseDelay doubling, at
// most MaxDelay.
func (s *Supervisor) delay(n int) time.Duration {
	d := s.BaseDelay
	for i := 1; i < n && d < s.MaxDelay; i++ {
		d *= 2
	}
	return min(d, s.MaxDelay)
}

// slot keeps one worker running.
func (s *Supervisor) slot(ctx context.Context, n int) {
	id := fmt.Sprintf("%s-%d-%d", s.Prefix, n, s.serial.Add(1))
	st := &WorkerState{Slot: n, ID: id, State: "starting"}
	s.update(func() { s.workers[n] = st })
	defer s.update(func() { st.State, st.PID = "stopped", 0 })
	for ctx.Err() == nil {
		cmd := s.Command(id)
		p, err := proc.Start(cmd)
		ran := time.Duration(0)
		if err != nil {
			s.Log.Error("worker did not start", "worker", id, "err", err)
		} else {
			t0 := time.Now()
			s.update(func() { st.PID, st.Started, st.State = p.PID(), t0, "running" })
			s.Log.Info("worker started", "worker", id, "pid", p.PID())
			select {
			case <-p.Done():
			case <-ctx.Done():
				s.stop(id, p)
				s.afterExit(id)
				s.update(func() { st.LastExit = p.ExitStatus() })
				return
			}
			ran = time.Since(t0)
			s.Log.Warn("worker exited unexpectedly", "worker", id, "pid", p.PID(), "status", p.ExitStatus(), "ran", ran.Round(time.Millisecond))
			s.afterExit(id)
		}
		var restarts int
		s.update(func() {
			if p != nil {
				st.LastExit = p.ExitStatus()
			}
			if ran >= s.StableAfter {
				st.Restarts = 0 // it ran well: a new row
			}
			st.Restarts++
			if st.Restarts > s.MaxRestarts {
				old := id
				id = fmt.Sprintf("%s-%d-%d", s.Prefix, n, s.serial.Add(1))
				st.ID, st.Restarts, st.Replaced = id, 0, st.Replaced+1
				s.Log.Error("worker failed: over the restart limit; replacing it", "worker", old, "limit", s.MaxRestarts, "replacement", id)
			}
			restarts = st.Restarts
			st.State, st.PID = "restarting", 0
		})
		d := s.delay(max(restarts, 1))
		s.Log.Info("restarting worker", "worker", id, "in", d, "restarts", restarts)
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return
		}
	}
}

// afterExit cleans up after worker id exited: the processes it left, then
// AfterExit.
func (s *Supervisor) afterExit(id string) {
	if s.KillOrphans {
		if killed := proc.KillOrphans(); len(killed) > 0 {
			s.Log.Warn("killed the processes a worker left behind", "worker", id, "pids", killed)
		}
	}
	if s.AfterExit != nil {
		s.AfterExit(id)
	}
}

// stop ends a worker: SIGTERM, then SIGKILL after the grace.
func (s *Supervisor) stop(id string, p *proc.Process) {
	s.Log.Info("stopping worker (SIGTERM)", "worker", id, "pid", p.PID())
	t0 := time.Now()
	_ = p.Signal(15)
	select {
	case <-p.Done():
		s.Log.Info("worker stopped", "worker", id, "status", p.ExitStatus(), "after", time.Since(t0).Round(time.Millisecond))
	case <-time.After(s.StopGrace):
		s.Log.Warn("worker did not stop in time; killing it (SIGKILL)", "worker", id, "pid", p.PID(), "grace", s.StopGrace)
		p.Kill()
		<-p.Done()
		s.Log.Warn("worker killed", "worker", id, "status", p.ExitStatus())
	}
}
