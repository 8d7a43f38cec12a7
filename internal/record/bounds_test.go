package record

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// callsOf sends n calls whose results are size bytes each, a flush every
// batch calls, as the front does under load.
func callsOf(r *Recorder, n, size, batch int) {
	value, _ := json.Marshal(map[string]string{"text": strings.Repeat("x", size)})
	for i := range n {
		r.Call(Entry{Start: time.Now(), Tool: "hash_text", Args: json.RawMessage(`{"text":"hi"}`), Value: value})
		if (i+1)%batch == 0 {
			r.Flush(context.Background())
		}
	}
	r.Flush(context.Background())
}

// dashboard.maxCalls holds after every flush, whatever the rate: never
// more than the bound and its slack kept, and the newest are the ones.
func TestMaxCallsHoldsUnderLoad(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	b := Bounds{MaxCalls: 2000}
	r := NewRecorder(s, RecorderOptions{Bounds: b})
	callsOf(r, 20_000, 50, 1000)
	n, _, err := s.CallCount(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n < b.MaxCalls || n > b.MaxCalls+int(b.slack())+1000 {
		t.Errorf("%d calls kept, want %d to %d", n, b.MaxCalls, b.MaxCalls+int(b.slack())+1000)
	}
	calls, _, err := s.Calls(context.Background(), CallFilter{Limit: 1})
	if err != nil || len(calls) != 1 || calls[0].ID != 20_000 {
		t.Errorf("the newest call: %+v %v, want id 20000", calls, err)
	}
}

// dashboard.maxBytes holds too: large results fill the bound, the oldest
// go, and the file stays near it (freed pages reused or given back).
func TestMaxBytesHolds(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	const bound = 4 << 20
	r := NewRecorder(s, RecorderOptions{Bounds: Bounds{MaxBytes: bound}})
	callsOf(r, 3000, 8<<10, 100) // some 25 MB of results
	size, err := s.Size(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// A flush's batch (100 calls, some 800 KB) may be past the bound
	// until the next flush.
	if size > bound+2<<20 {
		t.Errorf("the record holds %d bytes, bound %d", size, bound)
	}
	fi, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 3*bound {
		t.Errorf("the file is %d bytes, bound %d", fi.Size(), bound)
	}
	if n, _, _ := s.CallCount(context.Background()); n == 0 || n >= 3000 {
		t.Errorf("%d calls kept: want the newest, not none nor all", n)
	}
}

// Prune drops what is past maxCalls a chunk at a time, and gives back the
// pages freed: the file shrinks to what it keeps.
func TestPruneGivesBackPages(t *testing.T) {
	t.Parallel()
	s := openTemp(t)
	r := NewRecorder(s, RecorderOptions{})
	callsOf(r, 2000, 4<<10, 500)
	before, _ := os.Stat(s.Path())
	if _, err := s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	if err := s.Prune(context.Background(), 0, 100); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(s.Path())
	if n, _, _ := s.CallCount(context.Background()); n != 100 {
		t.Errorf("%d calls after pruning to 100", n)
	}
	if after.Size() > before.Size()/4 {
		t.Errorf("the file went from %d to %d bytes keeping 100 of 2000 calls", before.Size(), after.Size())
	}
}

// A record that cannot be written (a full disk; here a file-size limit,
// in a child process, as it is the process's own) pauses recording with
// one notice, loses the calls meanwhile rather than holding them, and
// resumes when it can be written again.
func TestRecordingPausesWhenTheDiskIsFull(t *testing.T) {
	if dir := os.Getenv("RECORD_FULL_DISK_DIR"); dir != "" {
		fullDisk(t, dir)
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRecordingPausesWhenTheDiskIsFull$", "-test.v")
	cmd.Env = append(os.Environ(), "RECORD_FULL_DISK_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("the child: %v\n%s", err, out)
	}
}

func fullDisk(t *testing.T, dir string) {
	s, err := Open(filepath.Join(dir, "record.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	type notice struct {
		err  error
		lost int
	}
	var notices []notice
	r := NewRecorder(s, RecorderOptions{Paused: func(err error, lost int) { notices = append(notices, notice{err, lost}) }})
	callsOf(r, 100, 1<<10, 100)

	var was syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &was); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 64 << 10, Max: was.Max}); err != nil {
		t.Fatal(err)
	}
	callsOf(r, 3000, 4<<10, 500) // six flushes: the first pauses
	if len(notices) != 1 || notices[0].err == nil {
		t.Fatalf("notices while the disk is full: %+v, want one pause", notices)
	}
	if msg := notices[0].err.Error(); !strings.Contains(msg, "record.db") {
		t.Errorf("the pause says %q: it should name the file", msg)
	}
	t.Logf("paused: %v", notices[0].err)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &was); err != nil {
		t.Fatal(err)
	}
	if st := r.Status(); !st.Paused || st.Pending != 3000 || !strings.Contains(st.Error, "full") && st.Error == "" {
		t.Errorf("status while paused: %+v, want paused with the 3000 calls held", st)
	}
	r.mu.Lock()
	r.pausedAt = time.Time{} // the next flush tries again, without waiting RetryEvery
	r.mu.Unlock()
	callsOf(r, 10, 1<<10, 10)
	if len(notices) != 2 || notices[1].err != nil || notices[1].lost != 0 {
		t.Fatalf("notices after: %+v, want a resume that lost none", notices)
	}
	// The calls of the pause waited in the buffer (12 MB, within
	// MaxPendingBytes) and were written when the disk had room again.
	if n, _, err := s.CallCount(context.Background()); err != nil || n != 3110 {
		t.Errorf("%d calls recorded (%v), want the 100 before, the 3000 held during the pause and the 10 after", n, err)
	}
}
