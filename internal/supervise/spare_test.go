//go:build unix

package supervise

import (
	"bufio"
	"errors"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// waitFor polls cond for up to 10 s (a hang, not a measure of speed).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// A spare is started by Fill and waits; Take hands it over with its pipes
// and its stderr going to the taker; the next Fill starts another; Close
// ends the one waiting.
func TestSpareTakeAndFill(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var waitingLines []string
	// The child says on stderr that it waits, then echoes stdin to stdout
	// and to stderr.
	script := `echo waiting >&2; while read l; do echo "$l"; echo "err:$l" >&2; done`
	s := &Spare{New: func() *exec.Cmd { return exec.Command("sh", "-c", script) }, Grace: time.Second,
		OnStderr: func(l string) { mu.Lock(); waitingLines = append(waitingLines, l); mu.Unlock() }}
	if c := s.Take(nil); c != nil {
		t.Fatal("Take before any Fill returned a child")
	}
	s.Fill()
	s.Fill() // one at a time
	waitFor(t, "a spare", func() bool { return s.Waiting() > 0 })
	first := s.Waiting()
	waitFor(t, "the waiting spare's stderr", func() bool { mu.Lock(); defer mu.Unlock(); return slices.Contains(waitingLines, "waiting") })

	got := make(chan string, 4)
	c := s.Take(func(l string) { got <- l })
	if c == nil || c.Proc.PID() != first {
		t.Fatalf("Take: %v, want the spare %d", c, first)
	}
	if s.Waiting() != 0 || s.Take(nil) != nil {
		t.Fatal("a spare still waits after Take")
	}
	if _, err := c.Stdin.Write([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(c.Stdout).ReadString('\n'); line != "hello\n" {
		t.Fatalf("the taken child's stdout: %q", line)
	}
	if l := <-got; l != "err:hello" {
		t.Fatalf("the taken child's stderr went to %q", l)
	}
	s.Fill()
	waitFor(t, "a second spare", func() bool { return s.Waiting() > 0 })
	second := s.Waiting()
	if second == first {
		t.Fatal("the second spare is the first")
	}
	s.Close()
	if s.Waiting() != 0 {
		t.Fatal("a spare waits after Close")
	}
	if err := syscall.Kill(second, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the spare waiting at Close is still there: %v", err)
	}
	s.Fill()
	if s.Waiting() != 0 {
		t.Fatal("Fill after Close started a spare")
	}
	// The taken child is the taker's: Close left it alone.
	if err := syscall.Kill(first, 0); err != nil {
		t.Fatalf("Close ended the taken child: %v", err)
	}
	c.Stdin.Close()
	waitWithin(t, c, nil, 10*time.Second)
}

// A spare that dies while it waits is dropped, not restarted by itself;
// Take then returns nil, and Drop ends a waiting one.
func TestSpareThatDiesIsDropped(t *testing.T) {
	t.Parallel()
	starts := 0
	s := &Spare{New: func() *exec.Cmd { starts++; return exec.Command("cat") }, Grace: time.Second}
	defer s.Close()
	s.Fill()
	waitFor(t, "a spare", func() bool { return s.Waiting() > 0 })
	if err := syscall.Kill(s.Waiting(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the dead spare dropped", func() bool { return s.Waiting() == 0 })
	time.Sleep(50 * time.Millisecond)
	if c := s.Take(nil); c != nil || starts != 1 {
		t.Fatalf("after its death: Take %v, %d starts", c, starts)
	}
	s.Fill()
	waitFor(t, "a new spare", func() bool { return s.Waiting() > 0 })
	pid := s.Waiting()
	s.Drop()
	if s.Waiting() != 0 {
		t.Fatal("a spare waits after Drop")
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the dropped spare is still there: %v", err)
	}
}

// A spare that cannot start is reported, and none waits.
func TestSpareThatCannotStart(t *testing.T) {
	t.Parallel()
	errs := make(chan error, 1)
	s := &Spare{New: func() *exec.Cmd { return exec.Command("/nonexistent/igor") }, OnError: func(err error) { errs <- err }}
	defer s.Close()
	s.Fill()
	select {
	case err := <-errs:
		if err == nil {
			t.Fatal("a nil error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no error reported")
	}
	if s.Waiting() != 0 {
		t.Fatal("a spare waits")
	}
}

// With Free set, the first failures in a row cost no delay; the ones after
// grow from Base as without it.
func TestBackoffFree(t *testing.T) {
	t.Parallel()
	b := Backoff{Base: 10 * time.Millisecond, Max: 50 * time.Millisecond, Free: 1}
	var got []time.Duration
	for range 4 {
		got = append(got, b.Fail())
		if got[len(got)-1] == 0 && !b.Ready(time.Now()) {
			t.Fatal("a free failure holds the next start back")
		}
	}
	if want := []time.Duration{0, 10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond}; !slices.Equal(got, want) {
		t.Fatalf("delays %v, want %v", got, want)
	}
}
