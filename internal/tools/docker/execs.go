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
	"github.com/docker/docker/client"
)

// An exec has no kill in the Engine API: ended by its caller or not, it
// runs until its command ends. So that none outlives the call that started
// it, each exec of a local daemon is known by its host pid while its call
// runs: the call kills it when its time runs out, the Igor's shutdown kills
// those still running, and a record in execDir lets the next Igor kill
// those of an Igor that was killed before it could.

// execDir holds a record per running exec: <igor pid>.<exec id>.
func execDir() string { return filepath.Join(os.TempDir(), "barrhawk-docker-execs") }

// execRecord is what the next Igor needs to kill an orphan, and only it:
// the exec's process once known, and before that (the Igor may be killed
// between starting the exec and finding its process) the exec's id on its
// daemon, which the next Igor asks for the process.
type execRecord struct {
	PID       int    `json:"pid,omitempty"`
	Start     string `json:"start,omitempty"` // the process's start time, against pid reuse
	Container string `json:"container"`
	ExecID    string `json:"execId,omitempty"`
	Host      string `json:"host,omitempty"` // the daemon
}

// trackedExec is one exec a call is running.
type trackedExec struct {
	e    *engine
	file string
	rec  execRecord
	once sync.Once
}

// recordExec records an exec before it starts, by its id: should the Igor
// be killed before locate finds its process, the next Igor asks the daemon
// for it. An exec of a remote daemon (whose processes are not ours to
// kill) is tracked as nothing.
func (e *engine) recordExec(containerID, execID string) *trackedExec {
	t := &trackedExec{e: e}
	if !strings.HasPrefix(e.at.Host, "unix://") {
		return t
	}
	t.file = filepath.Join(execDir(), strconv.Itoa(os.Getpid())+"."+shortID(execID))
	t.write(execRecord{Container: containerID, ExecID: execID, Host: e.at.Host})
	return t
}

// write stores rec as the exec's record.
func (t *trackedExec) write(rec execRecord) {
	t.rec = rec
	if err := os.MkdirAll(execDir(), 0o700); err != nil {
		return
	}
	if b, err := json.Marshal(rec); err == nil {
		_ = os.WriteFile(t.file, b, 0o600)
	}
}

// locate finds a recorded exec's host pid (the exec has been started) and
// records it; from then on the call, the Igor's shutdown or the next Igor
// kill the process itself.
func (e *engine) locate(ctx context.Context, t *trackedExec) *trackedExec {
	if t.file == "" {
		return t
	}
	// The attach starts the exec; its process follows shortly after. It
	// is looked for even when the call was cancelled meanwhile: then most
	// of all, as the caller kills it next.
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	pid, ok := execPID(ictx, e.cli, t.rec.ExecID, t.rec.Container)
	if !ok {
		return t
	}
	start, _ := processStart(pid)
	t.write(execRecord{PID: pid, Start: start, Container: t.rec.Container})
	e.mu.Lock()
	e.active[t] = struct{}{}
	e.mu.Unlock()
	return t
}

// track is recordExec then locate, for an exec already started.
func (e *engine) track(ctx context.Context, containerID, execID string) *trackedExec {
	return e.locate(ctx, e.recordExec(containerID, execID))
}

// execPID is the host pid of a running exec, once it has one, checked to
// be in the container.
func execPID(ctx context.Context, cli *client.Client, execID, containerID string) (int, bool) {
	var ins container.ExecInspect
	for range 100 {
		var err error
		if ins, err = cli.ContainerExecInspect(ctx, execID); err != nil || ins.Pid > 0 || !ins.Running && ins.ExitCode != 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ins.Pid <= 0 || !ins.Running {
		return 0, false
	}
	if _, ok := processStart(ins.Pid); !ok || !inContainer(ins.Pid, containerID) {
		return 0, false
	}
	return ins.Pid, true
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
		if b, err := os.ReadFile(file); err == nil && json.Unmarshal(b, &rec) == nil {
			switch {
			case rec.PID > 0:
				killExec(rec)
			case rec.ExecID != "" && rec.Host != "":
				killStarted(rec)
			}
		}
		_ = os.Remove(file) // its owner is gone; so is the record
	}
}

// killStarted kills the process of an exec its Igor started but died before
// it found: the daemon knows it, by the exec's id.
func killStarted(rec execRecord) {
	cli, err := client.NewClientWithOpts(client.WithHost(rec.Host), client.WithAPIVersionNegotiation())
	if err != nil {
		return
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if pid, ok := execPID(ctx, cli, rec.ExecID, rec.Container); ok {
		killPID(pid)
	}
}
