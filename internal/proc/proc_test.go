package proc

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/testsupport/lockedbuf"
)

func TestMain(m *testing.M) {
	if os.Getenv("PROC_TIED_PARENT") == "1" {
		// The parent of TestStartTiedDiesWithItsParent: a tied child,
		// its pid said, then waiting to be killed.
		p, err := StartTied(exec.Command("sleep", "300"))
		if err != nil {
			panic(err)
		}
		fmt.Println(p.PID())
		<-p.Done()
		os.Exit(0)
	}
	if err := BecomeSubreaper(); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	for _, p := range All() {
		if p.PID == pid {
			return p.State != 'Z'
		}
	}
	return false
}

func TestStopTakesTheWholeGroup(t *testing.T) {
	p, err := Start(exec.Command("sh", "-c", "sleep 300 & sleep 300 & wait"))
	if err != nil {
		t.Fatal(err)
	}
	var kids []Info
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if kids = Descendants(p.PID()); len(kids) == 2 {
			break
		}
	}
	if len(kids) != 2 {
		t.Fatalf("want 2 grandchildren, got %v", kids)
	}
	p.Stop(2 * time.Second)
	// SIGKILL is delivered asynchronously: a grandchild may take a moment
	// to die; one that never does fails.
	deadline := time.Now().Add(5 * time.Second)
	for _, k := range kids {
		for alive(k.PID) && time.Now().Before(deadline) {
			ReapOrphans()
			time.Sleep(5 * time.Millisecond)
		}
		if alive(k.PID) {
			t.Errorf("grandchild %d survived Stop", k.PID)
		}
	}
	if got := p.ExitStatus(); !strings.Contains(got, "SIGTERM") && !strings.Contains(got, "exit status") {
		t.Errorf("exit status %q", got)
	}
}

func TestStopEscalatesToSIGKILL(t *testing.T) {
	p, err := Start(exec.Command("sh", "-c", "trap '' TERM; while :; do sleep 0.05; done"))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // let the shell install its trap
	p.Stop(200 * time.Millisecond)
	if got := p.ExitStatus(); got != "killed by signal SIGKILL (exit code 137)" {
		t.Fatalf("exit status %q", got)
	}
}

func TestLeaderExitSweepsGroupAndOrphansAreReaped(t *testing.T) {
	p, err := Start(exec.Command("sh", "-c", "sleep 300 & echo $!"))
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	if got := p.ExitStatus(); got != "exit status 0" {
		t.Fatalf("exit status %q", got)
	}
	// The orphaned sleep was killed by the sweep and re-parented to us (the
	// subreaper); ReapOrphans must leave no zombie behind.
	deadline := time.Now().Add(5 * time.Second)
	for len(ZombieChildren(os.Getpid())) > 0 || len(Children(os.Getpid())) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("children left: %v", Children(os.Getpid()))
		}
		ReapOrphans()
		time.Sleep(10 * time.Millisecond)
	}
}

// A leader whose output goes to a writer (not a file) and that leaves a
// background process holding that pipe (a server started with &): the
// group is swept as the leader exits, so Done does not wait for the
// leftover to end on its own.
func TestLeaderExitSweepsGroupThatHoldsThePipes(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 300 & echo leader-done")
	var out lockedbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	p, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	case <-time.After(60 * time.Second):
		p.Kill()
		t.Fatal("Done waited on the background sleep that holds stdout")
	}
	if got := p.ExitStatus(); got != "exit status 0" || p.Err() != nil {
		t.Fatalf("exit status %q, err %v", got, p.Err())
	}
	if !strings.Contains(out.String(), "leader-done") {
		t.Fatalf("output %q", out.String())
	}
}

func TestDescribe(t *testing.T) {
	p, err := Start(exec.Command("sh", "-c", "exit 3"))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.ExitStatus(); got != "exit status 3" {
		t.Fatalf("got %q", got)
	}
	p, err = Start(exec.Command("sleep", "300"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if got := p.ExitStatus(); got != "killed by signal SIGKILL (exit code 137)" {
		t.Fatalf("got %q", got)
	}
}

func TestRSS(t *testing.T) {
	if RSS(os.Getpid()) <= 0 {
		t.Fatal("RSS of self is not positive")
	}
	if RSS(-1) != 0 {
		t.Fatal("RSS of no process is not 0")
	}
}

// A worker killed mid-command leaves its command's process group behind,
// adopted by us (the subreaper): KillOrphans kills that group, and nothing
// stays, not even a zombie.
func TestKillOrphansTakesAKilledWorkersCommands(t *testing.T) {
	cmd := exec.Command("sh", "-c", `setsid sh -c "sleep 300 & sleep 300; true" & echo $!; sleep 300`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	w, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	var orphan int
	if _, err := fmt.Fscan(out, &orphan); err != nil || orphan <= 0 {
		t.Fatalf("the command's pid: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	// The command has its own group (setsid ran) before its worker dies.
	for !ownGroup(orphan) {
		if time.Now().After(deadline) {
			t.Fatalf("the command %d never got its own process group", orphan)
		}
		time.Sleep(5 * time.Millisecond)
	}
	w.Kill()
	<-w.Done()
	for !adopted(orphan) {
		if time.Now().After(deadline) {
			t.Fatalf("the orphan %d was not adopted", orphan)
		}
		time.Sleep(10 * time.Millisecond)
	}
	group := Descendants(orphan)
	if killed := KillOrphans(); !slices.Contains(killed, orphan) {
		t.Fatalf("KillOrphans killed %v, not the orphan %d", killed, orphan)
	}
	for _, pid := range append([]int{orphan}, pids(group)...) {
		for alive(pid) || slices.Contains(ZombieChildren(os.Getpid()), pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d outlived KillOrphans", pid)
			}
			ReapOrphans()
			time.Sleep(10 * time.Millisecond)
		}
	}
}

func ownGroup(pid int) bool {
	for _, p := range All() {
		if p.PID == pid {
			return p.PGID == pid && p.State != 'Z'
		}
	}
	return false
}

func adopted(pid int) bool {
	for _, c := range Children(os.Getpid()) {
		if c.PID == pid {
			return true
		}
	}
	return false
}

func pids(list []Info) []int {
	out := make([]int, 0, len(list))
	for _, p := range list {
		out = append(out, p.PID)
	}
	return out
}

// A child of exec.Cmd is its own Wait's to reap: ReapOrphans scanning all
// the while (as the serve process's reaper does on every SIGCHLD) never
// takes one, so no Wait fails with "no child processes".
func TestReapOrphansLeavesExecChildrenToTheirWait(t *testing.T) {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				ReapOrphans()
			}
		}
	}()
	for i := range 200 {
		if err := exec.Command("true").Run(); err != nil {
			close(stop)
			<-done
			t.Fatalf("run %d: %v", i, err)
		}
	}
	close(stop)
	<-done
	// A real orphan is still reaped: a zombie nobody waits for.
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	deadline := time.Now().Add(10 * time.Second)
	for slices.Contains(ZombieChildren(os.Getpid()), pid) || alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the zombie %d was not reaped", pid)
		}
		ReapOrphans()
		time.Sleep(20 * time.Millisecond)
	}
}

// KillByEnv kills the processes (and their groups) whose environment holds
// every variable asked for, and leaves the others.
func TestKillByEnv(t *testing.T) {
	start := func(env ...string) *exec.Cmd {
		c := exec.Command("sh", "-c", "sleep 60 & wait")
		c.Env = append(os.Environ(), env...)
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL); c.Wait() })
		return c
	}
	target := start("BARRHAWK_TASK_ID=7", "BARRHAWK_WORKER_ID=host-1")
	other := start("BARRHAWK_TASK_ID=7", "BARRHAWK_WORKER_ID=host-2")
	time.Sleep(200 * time.Millisecond) // the shells have started their sleeps
	killed := KillByEnv(map[string]string{"BARRHAWK_TASK_ID": "7", "BARRHAWK_WORKER_ID": "host-1"})
	if !slices.Contains(killed, target.Process.Pid) || slices.Contains(killed, other.Process.Pid) {
		t.Fatalf("killed %v; target %d, other %d", killed, target.Process.Pid, other.Process.Pid)
	}
	if err := target.Wait(); err == nil {
		t.Error("the target lived on")
	}
	if !alive(other.Process.Pid) {
		t.Error("the other process was killed")
	}
}
