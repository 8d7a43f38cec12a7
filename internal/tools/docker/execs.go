package docker

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/docker/docker/api/types/container"
)

// An exec has no kill in the Engine API: ended by its caller or not, it
// runs until its command ends. So that none outlives the call that started
// it, each exec of a local daemon is known by its host pid while its call
// runs: the call kills it when its time runs out, the Igor's shutdown kills
// those still running, and a record in execDir lets the next Igor kill
// those of an Igor that was killed before it could.

// execDir holds a record per running exec: <igor pid>.<exec id>.
func execDir() string { return filepath.Join(os.TempDir(), "barrhawk-docker-execs") }

// execRecord is what the next Igor needs to kill an orphan, and only it.
type execRecord struct {
	PID       int    `json:"pid"`
	Start     string `json:"start"` // the process's start time, against pid reuse
	Container string `json:"container"`
}

// trackedExec is one exec a call is running.
type trackedExec struct {
	e    *engine
	file string
	rec  execRecord
	once sync.Once
}

// track finds the exec's host pid and records it; an exec of a remote
// daemon (or one whose pid is not ours to see) is tracked as nothing.
func (e *engine) track(ctx context.Context, containerID, execID string) *trackedExec {
	t := &trackedExec{e: e}
	if !strings.HasPrefix(e.at.Host, "unix://") {
		return t
	}
	// The attach starts the exec; its process follows shortly after. It
	// is looked for even when the call was cancelled meanwhile: then most
	// of all, as the caller kills it next.
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	var ins container.ExecInspect
	for range 100 {
		var err error
		if ins, err = e.cli.ContainerExecInspect(ictx, execID); err != nil || ins.Pid > 0 || !ins.Running && ins.ExitCode != 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ins.Pid <= 0 {
		return t
	}
	start, ok := processStart(ins.Pid)
	if !ok || !inContainer(ins.Pid, containerID) {
		return t
	}
	t.rec = execRecord{PID: ins.Pid, Start: start, Container: containerID}
	if err := os.MkdirAll(execDir(), 0o700); err == nil {
		if b, err := json.Marshal(t.rec); err == nil {
			file := filepath.Join(execDir(), strconv.Itoa(os.Getpid())+"."+shortID(execID))
			if os.WriteFile(file, b, 0o600) == nil {
				t.file = file
			}
		}
	}
	e.mu.Lock()
	e.active[t] = struct{}{}
	e.mu.Unlock()
	return t
}

// done forgets an exec whose call ended.
func (t *trackedExec) done() {
	t.once.Do(func() {
		if t.file != "" {
			_ = os.Remove(t.file) // gone already is fine
		}
		t.e.mu.Lock()
		delete(t.e.active, t)
		t.e.mu.Unlock()
	})
}

// kill kills the exec's process if it is still the one started; it
// reports whether it could.
func (t *trackedExec) kill() bool {
	defer t.done()
	return t.rec.PID > 0 && killExec(t.rec)
}

// killActive kills the execs still running (the Igor is closing).
func (e *engine) killActive() {
	e.mu.Lock()
	var ts []*trackedExec
	for t := range e.active {
		ts = append(ts, t)
	}
	e.mu.Unlock()
	for _, t := range ts {
		t.kill()
	}
}

// killExec kills rec's process when it is still that process (same start
// time) in that container.
func killExec(rec execRecord) bool {
	start, ok := processStart(rec.PID)
	if !ok || start != rec.Start || !inContainer(rec.PID, rec.Container) {
		return false
	}
	return killPID(rec.PID)
}

// SweepOrphanExecs kills the execs of Igors that ended without killing
// them (killed themselves), from their records. The Igor runs it when it
// starts.
func SweepOrphanExecs() {
	entries, err := os.ReadDir(execDir())
	if err != nil {
		return
	}
	for _, ent := range entries {
		owner, _, ok := strings.Cut(ent.Name(), ".")
		pid, err := strconv.Atoi(owner)
		if !ok || err != nil || processAlive(pid) {
			continue
		}
		file := filepath.Join(execDir(), ent.Name())
		var rec execRecord
		if b, err := os.ReadFile(file); err == nil && json.Unmarshal(b, &rec) == nil && rec.PID > 0 {
			killExec(rec)
		}
		_ = os.Remove(file) // its owner is gone; so is the record
	}
}
