package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/barrhawk/barrhawk/internal/proc"
)

// Supervisor keeps Count worker processes running (barrhawk worker
// start): a worker that exits is restarted after a delay that doubles from
// BaseDelay up to MaxDelay; one restarted more than MaxRestarts times in a
// row is failed and replaced by a new one. When ctx ends, every worker gets
// SIGTERM (it drains: its running job finishes or is handed back), then
// SIGKILL after StopGrace; both are logged.
type Supervisor struct {
	Count int
	// Command makes the command of worker id (barrhawk worker run --id).
	Command     func(id string) *exec.Cmd
	Log         *slog.Logger
	MaxRestarts int           // default 10
	BaseDelay   time.Duration // default 1 s
	MaxDelay    time.Duration // default 60 s
	StopGrace   time.Duration // default 10 s

	mu      sync.Mutex
	workers map[string]*WorkerState
	serial  atomic.Int64
}

// WorkerState is what the supervisor knows of a worker slot.
type WorkerState struct {
	ID       string    `json:"id"`
	PID      int       `json:"pid"`
	Restarts int       `json:"restarts"`
	Replaced int       `json:"replaced"`
	Started  time.Time `json:"started"`
	LastExit string    `json:"lastExit,omitempty"`
}

// Status lists the workers.
func (s *Supervisor) Status() []WorkerState {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]WorkerState, 0, len(s.workers))
	for _, w := range s.workers {
		out = append(out, *w)
	}
	return out
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
	if s.StopGrace <= 0 {
		s.StopGrace = 10 * time.Second
	}
	if s.Log == nil {
		s.Log = slog.New(slog.DiscardHandler)
	}
	s.workers = map[string]*WorkerState{}
	var wg sync.WaitGroup
	for i := range s.Count {
		wg.Go(func() { s.slot(ctx, i+1) })
	}
	wg.Wait()
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
	id := fmt.Sprintf("worker-%d-%d", n, s.serial.Add(1))
	st := &WorkerState{ID: id}
	s.mu.Lock()
	s.workers[fmt.Sprint(n)] = st
	s.mu.Unlock()
	for ctx.Err() == nil {
		cmd := s.Command(id)
		p, err := proc.Start(cmd)
		if err != nil {
			s.Log.Error("worker did not start", "worker", id, "err", err)
		} else {
			s.mu.Lock()
			st.PID, st.Started = p.PID(), time.Now()
			s.mu.Unlock()
			s.Log.Info("worker started", "worker", id, "pid", p.PID())
			select {
			case <-p.Done():
			case <-ctx.Done():
				s.stop(id, p)
				return
			}
			s.mu.Lock()
			st.LastExit = p.ExitStatus()
			s.mu.Unlock()
			s.Log.Warn("worker exited unexpectedly", "worker", id, "pid", p.PID(), "status", p.ExitStatus())
		}
		s.mu.Lock()
		st.Restarts++
		restarts := st.Restarts
		if restarts > s.MaxRestarts {
			old := id
			id = fmt.Sprintf("worker-%d-%d", n, s.serial.Add(1))
			st.ID, st.Restarts, st.Replaced = id, 0, st.Replaced+1
			restarts = 0
			s.mu.Unlock()
			s.Log.Error("worker failed: over the restart limit; replacing it", "worker", old, "limit", s.MaxRestarts, "replacement", id)
		} else {
			s.mu.Unlock()
		}
		d := s.delay(max(restarts, 1))
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return
		}
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
	}
}
