//go:build unix

package supervise

import (
	"bufio"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// start starts a child for a test and has it stopped and waited for at
// the end, whatever the test did.
func start(t *testing.T, opts ChildOptions, name string, args ...string) *Child {
	t.Helper()
	c, err := Start(exec.Command(name, args...), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Proc.Kill() })
	return c
}

// readAll reads the child's stdout to its end, as an owner's reader does:
// lines go to the returned channel, and done is closed when it ends.
func readAll(c *Child) (lines <-chan string, done <-chan struct{}) {
	out, end := make(chan string, 16), make(chan struct{})
	go func() {
		defer close(end)
		defer close(out)
		sc := bufio.NewScanner(c.Stdout)
		for sc.Scan() {
			out <- sc.Text()
		}
	}()
	return out, end
}

// waitWithin runs c.Wait and fails the test if it has not returned within
// limit (a hang, not a measure of speed).
func waitWithin(t *testing.T, c *Child, readerDone <-chan struct{}, limit time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { c.Wait(readerDone); close(done) }()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("Wait did not return within %s", limit)
	}
}

func TestStdinAndStdoutThroughCat(t *testing.T) {
	t.Parallel()
	c := start(t, ChildOptions{}, "cat")
	out, done := readAll(c)
	if _, err := io.WriteString(c.Stdin, "hello\n"); err != nil {
		t.Fatal(err)
	}
	if got := <-out; got != "hello" {
		t.Fatalf("cat echoed %q", got)
	}
	c.Stdin.Close() // cat ends at EOF
	waitWithin(t, c, done, 10*time.Second)
	if st := c.Proc.ExitStatus(); st != "exit status 0" {
		t.Fatalf("cat ended with %s", st)
	}
}

func TestStartRefusesOutputAlreadySet(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("cat")
	cmd.Stdout = io.Discard
	if _, err := Start(cmd, ChildOptions{}); err == nil {
		t.Fatal("Start took a command whose Stdout was set")
	}
}

func TestStderrLinesInOrderAndCut(t *testing.T) {
	t.Parallel()
	const big = 200 << 10
	var mu sync.Mutex
	var got []string
	script := `echo one >&2; echo >&2; echo two >&2; head -c ` + strconv.Itoa(big) + ` /dev/zero | tr '\0' x >&2; echo >&2; echo three >&2; printf last >&2`
	c := start(t, ChildOptions{OnStderr: func(line string) {
		mu.Lock()
		got = append(got, line)
		mu.Unlock()
	}}, "sh", "-c", script)
	waitWithin(t, c, nil, 10*time.Second)
	cut := strings.Repeat("x", MaxStderrLine) + "… (a line of " + strconv.Itoa(big+1) + " bytes, cut)"
	want := []string{"one", "two", cut, "three", "last"}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(got, want) {
		short := func(l []string) []string {
			var s []string
			for _, x := range l {
				if len(x) > 80 {
					x = x[:40] + "…" + x[len(x)-40:]
				}
				s = append(s, x)
			}
			return s
		}
		t.Fatalf("stderr lines %q, want %q", short(got), short(want))
	}
}

func TestWaitIsNotHeldByABackgroundProcess(t *testing.T) {
	t.Parallel()
	// The sleep holds stdout and stderr: the group is swept as sh exits.
	c := start(t, ChildOptions{}, "sh", "-c", "sleep 30 & echo hi")
	out, done := readAll(c)
	waitWithin(t, c, done, 10*time.Second)
	if got := <-out; got != "hi" {
		t.Fatalf("stdout %q", got)
	}
}

func TestWaitUnblocksTheReaderOfAnEscapedProcess(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Fatalf("setsid (Debian's util-linux, which scripts/test installs) is needed to start a process outside the group: %v", err)
	}
	// The sleep leaves the group (setsid), so it outlives the sweep and
	// holds stdout open: the reader would block for as long as it runs.
	// It says its pid once out; then sh is told to exit.
	c := start(t, ChildOptions{}, "sh", "-c", `setsid sh -c 'echo $$; exec sleep 60' 2>/dev/null & read x`)
	out, done := readAll(c)
	pid, err := strconv.Atoi(<-out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if _, err := io.WriteString(c.Stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
	waitWithin(t, c, done, 10*time.Second)
	select {
	case <-done:
	default:
		t.Fatal("Wait returned before the reader ended")
	}
}

func TestStop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, script string
		grace        time.Duration
		want         string
	}{
		// Its own exit, not a signal: the goodbye ended it.
		{"the goodbye obeyed", "echo ready; read x; exit 3", time.Minute, "exit status 3"},
		// Deaf to the goodbye and to SIGTERM: an ignored signal stays
		// ignored across exec, so sleep ignores it too.
		{"SIGTERM ignored", `trap "" TERM; echo ready; sleep 30`, 100 * time.Millisecond, "killed by signal SIGKILL (exit code 137)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := start(t, ChildOptions{}, "sh", "-c", tc.script)
			out, done := readAll(c)
			if got := <-out; got != "ready" {
				t.Fatalf("stdout %q", got)
			}
			c.Stop(tc.grace, func() { io.WriteString(c.Stdin, "bye\n") })
			select {
			case <-c.Proc.Done():
			default:
				t.Fatal("Stop returned before the child exited")
			}
			if st := c.Proc.ExitStatus(); st != tc.want {
				t.Fatalf("the child ended with %s, want %s", st, tc.want)
			}
			waitWithin(t, c, done, 10*time.Second)
		})
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	b := Backoff{Base: 10 * time.Millisecond, Max: 50 * time.Millisecond}
	if !b.Ready(time.Now()) || !b.Next().IsZero() || b.Fails() != 0 {
		t.Fatalf("a fresh Backoff delays: next %v, fails %d", b.Next(), b.Fails())
	}
	var got []time.Duration
	for range 5 {
		before := time.Now()
		d := b.Fail()
		got = append(got, d)
		if b.Next().Before(before.Add(d)) {
			t.Fatalf("Next %v is before now+%s", b.Next(), d)
		}
	}
	want := []time.Duration{10, 20, 40, 50, 50}
	for i := range want {
		want[i] *= time.Millisecond
	}
	if !slices.Equal(got, want) {
		t.Fatalf("delays %v, want %v", got, want)
	}
	if b.Fails() != 5 {
		t.Fatalf("Fails %d", b.Fails())
	}
	if b.Ready(b.Next().Add(-time.Nanosecond)) || !b.Ready(b.Next()) {
		t.Fatal("Ready is not true exactly from Next on")
	}
	b.Reset()
	if !b.Ready(time.Now()) || !b.Next().IsZero() || b.Fails() != 0 {
		t.Fatalf("after Reset: next %v, fails %d", b.Next(), b.Fails())
	}
	if d := b.Fail(); d != 10*time.Millisecond {
		t.Fatalf("the first delay after Reset is %s", d)
	}
}

func TestHeartbeat(t *testing.T) {
	t.Parallel()
	const long = time.Hour // a beat just now is within it
	var h Heartbeat
	if !h.Last().IsZero() || h.Misses() != 0 {
		t.Fatalf("a fresh Heartbeat: last %v, misses %d", h.Last(), h.Misses())
	}
	// Never a beat: every tick is a miss.
	if n := h.Tick(long); n != 1 {
		t.Fatalf("first tick: %d misses", n)
	}
	if n := h.Tick(long); n != 2 {
		t.Fatalf("second tick: %d misses", n)
	}
	// Start: no miss within the interval, and the count stands.
	h.Start()
	if h.Last().IsZero() {
		t.Fatal("Start set no Last")
	}
	if n := h.Tick(long); n != 2 {
		t.Fatalf("a tick after Start: %d misses, want 2 (neither counted nor reset)", n)
	}
	h.Beat()
	if h.Misses() != 0 {
		t.Fatalf("a beat left %d misses", h.Misses())
	}
	if n := h.Tick(long); n != 0 {
		t.Fatalf("a tick right after a beat: %d misses", n)
	}
	// An interval so short that the beat is older than half of it.
	if n := h.Tick(time.Nanosecond); n != 1 {
		t.Fatalf("a tick long after the beat: %d misses", n)
	}
}
