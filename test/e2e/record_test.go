package e2e

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/barrhawk/barrhawk/internal/record"
)

// A record that cannot be written (a full disk; here the front's file-size
// limit, set from outside with prlimit) pauses recording with one event
// and one log line while every call is answered, and resumes when the
// file can be written again.
func TestRecordPausesWhenTheDiskIsFull(t *testing.T) {
	t.Parallel()
	s := start(t)
	big := strings.Repeat("x", 4<<10)
	for range 20 {
		s.mustCall("hash_text", map[string]any{"text": "before"})
	}
	pid := s.cmd.Process.Pid
	var was unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: 64 << 10, Max: unix.RLIM_INFINITY}, &was); err != nil {
		t.Fatalf("prlimit: %v", err)
	}
	for i := range 300 {
		if out, isErr := s.call("hash_text", map[string]any{"text": big}); isErr {
			t.Fatalf("call %d while the disk is full: %s", i, out)
		}
	}
	paused := func() string {
		t.Helper()
		var out string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if out, _ = s.call("events_recent", map[string]any{}); strings.Contains(out, "record:paused") {
				break
			}
		}
		return out
	}()
	if n := strings.Count(paused, "record:paused"); n != 1 {
		t.Fatalf("%d record:paused events, want 1:\n%s", n, paused)
	}
	if n := strings.Count(s.stderr.String(), "record:paused"); n != 1 {
		t.Errorf("%d log lines of record:paused, want 1:\n%s", n, s.stderr.String())
	}

	if err := unix.Prlimit(pid, unix.RLIMIT_FSIZE, &was, nil); err != nil {
		t.Fatalf("prlimit: %v", err)
	}
	// The recorder tries again every 5 s.
	deadline := time.Now().Add(20 * time.Second)
	for {
		s.mustCall("hash_text", map[string]any{"text": "after"})
		out, _ := s.call("events_recent", map[string]any{})
		if strings.Contains(out, "record:resumed") {
			if !strings.Contains(out, "calls were not recorded") {
				t.Errorf("record:resumed does not say how many calls were lost:\n%s", out)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("recording did not resume:\n%s", out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// dashboard.maxCalls holds while calls come in, not at the next hourly
// prune: at most the bound and its slack (a fiftieth, at least 100) are
// kept, and the newest.
func TestRecordKeepsToMaxCalls(t *testing.T) {
	t.Parallel()
	s := startConfigured(t, "dashboard:\n  maxCalls: 500\n")
	for i := range 3000 {
		s.mustCall("hash_text", map[string]any{"text": strconv.Itoa(i)})
	}
	st, err := record.Open(filepath.Join(s.home, ".barrhawk", "record.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var n int
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		calls, _, err := st.Calls(t.Context(), record.CallFilter{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if n, _, err = st.CallCount(t.Context()); err != nil {
			t.Fatal(err)
		}
		if len(calls) == 1 && calls[0].ID >= 3000 || time.Now().After(deadline) {
			break
		}
	}
	if n < 500 || n > 600 {
		t.Errorf("%d calls kept of 3000 with maxCalls 500, want 500 to 600", n)
	}
}
