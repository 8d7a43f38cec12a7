package jobs

import (
	"bytes"
	"context"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// A crashing worker is restarted with a growing delay and, over the limit,
// replaced by a new one.
func TestSupervisorRestartsAndReplaces(t *testing.T) {
	var log syncBuf
	s := &Supervisor{Count: 1, MaxRestarts: 2, BaseDelay: 10 * time.Millisecond, MaxDelay: 40 * time.Millisecond,
		Command: func(string) *exec.Cmd { return exec.Command("/bin/sh", "-c", "exit 1") }, Log: slog.New(slog.NewTextHandler(&log, nil))}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	s.Run(ctx)
	out := log.String()
	if strings.Count(out, "worker exited unexpectedly") < 4 || !strings.Contains(out, "over the restart limit; replacing it") {
		t.Errorf("log:\n%s", out)
	}
	st := s.Status()
	if len(st) != 1 || st[0].Replaced < 1 {
		t.Errorf("status: %+v", st)
	}
	if d := s.delay(10); d != 40*time.Millisecond {
		t.Errorf("delay capped at %v", d)
	}
	if d := s.delay(2); d != 20*time.Millisecond {
		t.Errorf("second delay %v", d)
	}
}

// Stopping: SIGTERM first; a worker that ignores it is killed after the
// grace, and both steps are logged.
func TestSupervisorStopsWithTermThenKill(t *testing.T) {
	var log syncBuf
	s := &Supervisor{Count: 2, StopGrace: 200 * time.Millisecond, Log: slog.New(slog.NewTextHandler(&log, nil)),
		Command: func(id string) *exec.Cmd {
			if strings.HasPrefix(id, "worker-1-") {
				return exec.Command("/bin/sh", "-c", "trap '' TERM; sleep 30 & wait; sleep 30")
			}
			return exec.Command("/bin/sh", "-c", "sleep 30")
		}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && strings.Count(log.String(), "worker started") < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // the shells install their traps
	t0 := time.Now()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the supervisor did not stop")
	}
	out := log.String()
	if strings.Count(out, "stopping worker (SIGTERM)") != 2 || !strings.Contains(out, "killing it (SIGKILL)") || strings.Contains(out, "exited unexpectedly") {
		t.Errorf("log:\n%s", out)
	}
	if time.Since(t0) > 5*time.Second {
		t.Errorf("stopping took %v", time.Since(t0))
	}
}
