package dynamic

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// watchHarness runs a Watcher on a temp dir and collects its calls.
type watchHarness struct {
	dir     string
	calls   chan []string
	readies chan struct{}
	errs    chan error
	cancel  context.CancelFunc
	done    chan error
}

func startWatch(t *testing.T, debounce time.Duration) *watchHarness {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tools")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return startWatchIn(t, dir, debounce)
}

func startWatchIn(t *testing.T, dir string, debounce time.Duration) *watchHarness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h := &watchHarness{
		dir:     dir,
		calls:   make(chan []string, 100),
		readies: make(chan struct{}, 10),
		errs:    make(chan error, 10),
		cancel:  cancel,
		done:    make(chan error, 1),
	}
	w := &Watcher{
		Dir:          dir,
		Debounce:     debounce,
		PollInterval: 20 * time.Millisecond,
		OnChange:     func(c []string) { h.calls <- c },
		OnReady:      func() { h.readies <- struct{}{} },
	}
	go func() { h.done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-h.done:
			if err != nil {
				t.Errorf("Run returned %v after cancel, want nil", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Run did not return after cancel")
		}
	})
	h.waitReady(t)
	return h
}

func (h *watchHarness) waitReady(t *testing.T) {
	t.Helper()
	select {
	case <-h.readies:
	case err := <-h.done:
		t.Fatalf("Run returned %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("watcher never ready")
	}
}

// next returns the next call, failing after a generous wait.
func (h *watchHarness) next(t *testing.T) []string {
	t.Helper()
	select {
	case c := <-h.calls:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no change reported")
		return nil
	}
}

// quiet asserts that no call comes within d.
func (h *watchHarness) quiet(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case c := <-h.calls:
		t.Errorf("unexpected extra call %v", c)
	case <-time.After(d):
	}
}

// until collects calls until every name in want has been reported.
func (h *watchHarness) until(t *testing.T, want ...string) []string {
	t.Helper()
	seen := map[string]bool{}
	var all []string
	deadline := time.After(10 * time.Second)
	for {
		missing := false
		for _, w := range want {
			if !seen[w] {
				missing = true
			}
		}
		if !missing {
			return all
		}
		select {
		case c := <-h.calls:
			for _, n := range c {
				seen[n] = true
			}
			all = append(all, c...)
		case <-deadline:
			t.Fatalf("never reported %v; got %v", want, all)
		}
	}
}

func TestWatchReportsToolChanges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) // before the watcher starts
		act   func(t *testing.T, dir string)
		want  []string
	}{
		{
			name: "create",
			act: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, "new_tool.ts"), "export const tool = 1;")
			},
			want: []string{"new_tool"},
		},
		{
			name:  "write to an existing file",
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "edited.js"), "1") },
			act: func(t *testing.T, dir string) {
				f, err := os.OpenFile(filepath.Join(dir, "edited.js"), os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString("\n2")
				f.Close()
			},
			want: []string{"edited"},
		},
		{
			name:  "atomic save: temp file renamed over",
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "saved.ts"), "old") },
			act: func(t *testing.T, dir string) {
				tmp := filepath.Join(dir, ".saved.ts.swx1")
				writeFile(t, tmp, "new")
				if err := os.Rename(tmp, filepath.Join(dir, "saved.ts")); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"saved"},
		},
		{
			name: "Store.Write",
			act: func(t *testing.T, dir string) {
				if _, err := (&Store{Dir: dir}).Write("stored", "export const tool = 1;"); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"stored"},
		},
		{
			name:  "delete",
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "doomed.ts"), "1") },
			act: func(t *testing.T, dir string) {
				if err := os.Remove(filepath.Join(dir, "doomed.ts")); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"doomed"},
		},
		{
			name:  "rename one tool to another",
			setup: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, "before.ts"), "1") },
			act: func(t *testing.T, dir string) {
				if err := os.Rename(filepath.Join(dir, "before.ts"), filepath.Join(dir, "after.ts")); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"after", "before"},
		},
		{
			name: "both extensions of one name, several files",
			act: func(t *testing.T, dir string) {
				for _, n := range []string{"zeta.ts", "alpha.ts", "alpha.js", "mid.js"} {
					writeFile(t, filepath.Join(dir, n), "1")
				}
			},
			want: []string{"alpha", "mid", "zeta"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "tools")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			// A long debounce makes one call per action certain.
			h := startWatchIn(t, dir, 300*time.Millisecond)
			tt.act(t, dir)
			if got := h.next(t); !slices.Equal(got, tt.want) {
				t.Errorf("OnChange(%v), want %v", got, tt.want)
			}
			h.quiet(t, 600*time.Millisecond)
		})
	}
}

func TestWatchDebouncesRapidWrites(t *testing.T) {
	t.Parallel()
	h := startWatch(t, 300*time.Millisecond)
	for i := range 20 {
		writeFile(t, filepath.Join(h.dir, "busy.ts"), "export const n = "+string(rune('a'+i))+";")
	}
	writeFile(t, filepath.Join(h.dir, "other.ts"), "1")
	if got := h.next(t); !slices.Equal(got, []string{"busy", "other"}) {
		t.Errorf("OnChange(%v), want [busy other] once", got)
	}
	h.quiet(t, 700*time.Millisecond)
}

func TestWatchIgnoresNonToolFiles(t *testing.T) {
	t.Parallel()
	h := startWatch(t, 100*time.Millisecond)
	if err := WriteTypes(h.dir); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"notes.md", ".x.ts.123.tmp", "x.ts~", ".#x.ts", "x.ts.swp", "x.d.ts", "4913"} {
		writeFile(t, filepath.Join(h.dir, n), "junk")
	}
	if err := os.Mkdir(filepath.Join(h.dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(h.dir, "sub", "nested.ts"), "not watched: not recursive")
	// The sentinel comes last: had any of the above counted, it would show
	// up in this call or an earlier one.
	writeFile(t, filepath.Join(h.dir, "sentinel.ts"), "1")
	if got := h.next(t); !slices.Equal(got, []string{"sentinel"}) {
		t.Errorf("OnChange(%v), want [sentinel]", got)
	}
}

func TestWatchSurvivesDirRecreated(t *testing.T) {
	t.Parallel()
	h := startWatch(t, 50*time.Millisecond)
	writeFile(t, filepath.Join(h.dir, "a.ts"), "1")
	h.until(t, "a")

	// Removed: its files are reported.
	if err := os.RemoveAll(h.dir); err != nil {
		t.Fatal(err)
	}
	h.until(t, "a")

	// Recreated with a file already in it: watched again, file reported.
	if err := os.Mkdir(h.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(h.dir, "b.ts"), "1")
	h.waitReady(t)
	h.until(t, "b")
	// And new events are seen.
	writeFile(t, filepath.Join(h.dir, "c.ts"), "1")
	h.until(t, "c")

	// Renamed away: the files it held are reported, and a new directory at
	// the path is watched.
	writeFile(t, filepath.Join(h.dir, "d.ts"), "1")
	h.until(t, "d")
	if err := os.Rename(h.dir, h.dir+".old"); err != nil {
		t.Fatal(err)
	}
	h.until(t, "b", "c", "d")
	if err := os.Mkdir(h.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h.waitReady(t)
	writeFile(t, filepath.Join(h.dir, "e.ts"), "1")
	h.until(t, "e")
	// The old directory is no longer watched.
	writeFile(t, filepath.Join(h.dir+".old", "zombie.ts"), "1")
	writeFile(t, filepath.Join(h.dir, "f.ts"), "1")
	for _, n := range h.until(t, "f") {
		if n == "zombie" {
			t.Error("a file in the renamed-away directory was reported")
		}
	}
}

func TestWatchMissingDir(t *testing.T) {
	t.Parallel()
	err := Watch(context.Background(), filepath.Join(t.TempDir(), "nope"), 0, func([]string) {})
	if err == nil {
		t.Fatal("Watch of a missing dir succeeded")
	}
}

func TestWatchStopsWithContext(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var got [][]string
	done := make(chan error, 1)
	go func() {
		done <- Watch(ctx, dir, 0, func(c []string) { mu.Lock(); got = append(got, c); mu.Unlock() })
	}()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Watch = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not return")
	}
}
