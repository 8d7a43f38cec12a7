// Package proc starts and stops child processes the one way BarrHawk does:
// each in its own process group, stopped with SIGTERM to the group and then
// SIGKILL after a grace period, always waited for, with the group swept when
// the leader exits so no grandchild is left behind. Long-lived parents also
// become child subreapers and reap the orphans adopted that way (see Reaper).
package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// track is the set of children started through this package. The reaper
// holds mu while it scans for zombies, and Start holds it across
// exec.Cmd.Start, so the reaper never reaps a child that its exec.Cmd will
// wait for.
var track = struct {
	sync.Mutex
	pids map[int]bool
	// zombies are the untracked zombie children ReapOrphans saw, with
	// when it first saw each (see there).
	zombies map[zombie]time.Time
}{pids: map[int]bool{}}

// zombie names a zombie child by PID and start time.
type zombie struct {
	pid   int
	start uint64
}

// Process is a started child.
type Process struct {
	Cmd  *exec.Cmd
	pid  int
	done chan struct{}
	err  error // from Wait; read after done is closed
}

// Start starts cmd in a new process group.
func Start(cmd *exec.Cmd) (*Process, error) {
	newGroup(cmd)
	if cmd.WaitDelay == 0 && !leaderWaitable {
		// Where the leader's exit cannot be seen before Wait (see
		// awaitLeader), bound Wait's wait for pipes a leftover holds.
		cmd.WaitDelay = pipeWaitDelay
	}
	track.Lock()
	err := cmd.Start()
	if err == nil {
		track.pids[cmd.Process.Pid] = true
	}
	track.Unlock()
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	p := &Process{Cmd: cmd, pid: cmd.Process.Pid, done: make(chan struct{})}
	go p.wait()
	return p, nil
}

func (p *Process) wait() {
	// The leader is gone; take anything it left in its group with it, and
	// before Wait: Wait also waits until the output pipes close, which a
	// background process left in the group (a server started with &) would
	// otherwise hold open for as long as it runs.
	if awaitLeader(p.pid) {
		_ = signalGroup(p.pid, syscall.SIGKILL)
	}
	p.err = p.Cmd.Wait()
	_ = signalGroup(p.pid, syscall.SIGKILL)
	track.Lock()
	delete(track.pids, p.pid)
	track.Unlock()
	close(p.done)
}

// PID is the child's process id (and its process group id).
func (p *Process) PID() int { return p.pid }

// Done is closed once the child has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err is Wait's error; valid after Done is closed.
func (p *Process) Err() error {
	<-p.done
	return p.err
}

// ExitStatus describes how the child ended, such as "exit status 3" or
// "killed by signal SIGKILL (exit code 137)"; valid after Done is closed.
func (p *Process) ExitStatus() string {
	<-p.done
	return Describe(p.Cmd.ProcessState)
}

// ExitCode is the child's exit code, 128+N for a signal as a shell says
// it, -1 when it was never started; valid after Done is closed.
func (p *Process) ExitCode() int {
	<-p.done
	st := p.Cmd.ProcessState
	if st == nil {
		return -1
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// Describe says how a process ended, decoding a signal into the shell's
// 128+N exit code.
func Describe(st interface{ Sys() any }) string {
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok {
		return "unknown exit status"
	}
	switch {
	case ws.Signaled():
		return fmt.Sprintf("killed by signal %s (exit code %d)", signalName(ws.Signal()), 128+int(ws.Signal()))
	case ws.Exited():
		return fmt.Sprintf("exit status %d", ws.ExitStatus())
	}
	return "unknown exit status"
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGINT:
		return "SIGINT"
	}
	return s.String()
}

// Signal sends sig to the child's whole process group.
func (p *Process) Signal(sig syscall.Signal) error {
	select {
	case <-p.done:
		return nil
	default:
	}
	if err := signalGroup(p.pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal %v to process group %d: %w", sig, p.pid, err)
	}
	return nil
}

// Stop ends the child: SIGTERM to its group, then SIGKILL if it has not
// exited after grace. It returns once the child is reaped.
func (p *Process) Stop(grace time.Duration) {
	_ = p.Signal(syscall.SIGTERM) // ESRCH and friends: it is already gone
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
		return
	case <-t.C:
	}
	p.Kill()
}

// Kill sends SIGKILL to the group and waits for the child to be reaped.
func (p *Process) Kill() {
	_ = p.Signal(syscall.SIGKILL)
	<-p.done
}

// KillAllAndExit kills the process group of every child started through
// Start and exits this process with code, at once. The children's waits
// are held (track stays locked), so nothing that waits on a child sees it
// end and acts on that before the exit: a worker whose supervisor died
// records no outcome for a job it abandons, which another worker then runs.
func KillAllAndExit(code int) {
	track.Lock()
	for pid := range track.pids {
		_ = signalGroup(pid, syscall.SIGKILL)
	}
	os.Exit(code)
}

// Exists reports whether a process pid exists (on Windows, whether it can
// be opened).
func Exists(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	if runtime.GOOS == "windows" {
		return true // FindProcess opened it
	}
	return p.Signal(syscall.Signal(0)) == nil
}
