package proc

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// A child started with StartTied dies with the process that started it
// (a job's command with its SIGKILLed worker), even though that process
// could not stop it; one started with Start lives on.
func TestStartTiedDiesWithItsParent(t *testing.T) {
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), "PROC_TIED_PARENT=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Fscan(out, &pid); err != nil {
		t.Fatal(err)
	}
	// The child lives as long as its parent does.
	time.Sleep(100 * time.Millisecond)
	if !alive(pid) {
		t.Fatalf("the tied child %d died with its parent alive", pid)
	}
	parent.Process.Kill()
	parent.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		ReapOrphans()
		time.Sleep(5 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the tied child %d outlived its parent", pid)
	}
}
