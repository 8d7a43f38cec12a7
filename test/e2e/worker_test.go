package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/proc"
)

// TestWorkerPoolCommands: barrhawk worker start runs jobs that barrhawk
// task submit queues; a worker killed with SIGKILL is replaced; SIGTERM
// drains and stops the pool; a missing required tool stops the start with
// exit code 3.
func TestWorkerPoolCommands(t *testing.T) {
	t.Parallel()
	repo := spawnRepo(t)
	home := t.TempDir()
	db := filepath.Join(home, "queue.db")
	run := func(args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(cmd.Environ(), "HOME="+home, "BARRHAWK_HOME="+filepath.Join(home, ".barrhawk"), "BARRHAWK_LOG_LEVEL=warn")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if err != nil {
			return out.String() + errb.String(), err
		}
		return out.String(), nil
	}
	out, err := run("worker", "start", "--count", "1", "--db", db, "--require", "no-such-tool-xyz")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || !strings.Contains(out, "no-such-tool-xyz") {
		t.Fatalf("a missing tool: %v %s", err, out)
	}

	pool := exec.Command(bin, "worker", "start", "--count", "2", "--db", db)
	pool.Env = append(pool.Environ(), "HOME="+home, "BARRHAWK_HOME="+filepath.Join(home, ".barrhawk"), "BARRHAWK_LOG_LEVEL=info")
	var poolLog bytes.Buffer
	pool.Stderr = &poolLog
	if err := pool.Start(); err != nil {
		t.Fatal(err)
	}
	defer pool.Process.Kill()
	id, err := run("task", "submit", "--db", db, "--repo", repo, "--build", "echo from-the-pool", "--test", "true")
	if err != nil {
		t.Fatalf("task submit: %v %s", err, id)
	}
	id = strings.TrimSpace(id)
	out, err = run("task", "status", id, "--wait", "--db", db)
	var st map[string]any
	if err != nil || json.Unmarshal([]byte(out), &st) != nil || st["state"] != "completed" {
		t.Fatalf("task status: %v %s", err, out)
	}
	if logs, err := run("task", "logs", id, "--db", db); err != nil || !strings.Contains(logs, "from-the-pool") {
		t.Errorf("task logs: %v %s", err, logs)
	}
	if list, err := run("task", "list", "--db", db); err != nil || !strings.Contains(list, id+"\tcompleted") {
		t.Errorf("task list: %v %s", err, list)
	}
	if out, err := run("task", "status", "abc", "--db", db); err == nil || !strings.Contains(out, "not a job id") {
		t.Errorf("a bad id: %v %s", err, out)
	}

	// SIGKILL one worker: the supervisor starts another.
	var workers []proc.Info
	waitFor(t, "two workers", func() bool { workers = proc.Children(pool.Process.Pid); return len(workers) == 2 })
	syscall.Kill(workers[0].PID, syscall.SIGKILL)
	waitFor(t, "a replacement worker", func() bool {
		now := proc.Children(pool.Process.Pid)
		return len(now) == 2 && now[0].PID != workers[0].PID && now[1].PID != workers[0].PID
	})
	// Jobs still run.
	id2, _ := run("task", "submit", "--db", db, "--repo", repo, "--test", "true")
	if out, err := run("task", "status", strings.TrimSpace(id2), "--wait", "--db", db); err != nil || !strings.Contains(out, `"completed"`) {
		t.Errorf("after the kill: %v %s", err, out)
	}

	// SIGTERM drains and stops the pool and its workers.
	pool.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- pool.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the pool exited with %v\n%s", err, poolLog.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the pool did not stop\n%s", poolLog.String())
	}
	for _, w := range proc.Children(pool.Process.Pid) {
		t.Errorf("worker %d outlived the pool", w.PID)
	}
	if log := poolLog.String(); !strings.Contains(log, "worker exited unexpectedly") || !strings.Contains(log, "stopping worker (SIGTERM)") {
		t.Errorf("pool log:\n%s", log)
	}
}
