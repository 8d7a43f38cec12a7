package dynamic

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// fakeClock returns a fixed time until advanced.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// newSnapshots returns a Snapshots over a fresh tools dir (with
// barrhawk.d.ts) and a clock at 2026-01-23T14:00:00Z.
func newSnapshots(t *testing.T, keep int) (*Snapshots, *Store, *fakeClock) {
	t.Helper()
	root := t.TempDir()
	st := &Store{Dir: filepath.Join(root, "dynamic-tools")}
	if err := st.Init(); err != nil {
		t.Fatal(err)
	}
	clk := &fakeClock{t: time.Date(2026, 1, 23, 14, 0, 0, 0, time.UTC)}
	return &Snapshots{Dir: filepath.Join(root, "snapshots"), ToolsDir: st.Dir, Keep: keep, Now: clk.Now}, st, clk
}

// toolFiles returns base name → content of the tool files in dir.
func toolFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := listToolFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name+f.Ext] = string(b)
	}
	return out
}

func ids(snaps []Snapshot) []string {
	var out []string
	for _, s := range snaps {
		out = append(out, s.ID)
	}
	return out
}

func TestSnapshotCreateAndList(t *testing.T) {
	t.Parallel()
	sn, st, clk := newSnapshots(t, 0)
	writeFile(t, filepath.Join(st.Dir, "a.ts"), "export const tool = 'a';")
	writeFile(t, filepath.Join(st.Dir, "b.js"), "exports.tool = 'b';")
	writeFile(t, filepath.Join(st.Dir, "notes.md"), "not a tool")
	writeFile(t, filepath.Join(st.Dir, ".a.ts.1.tmp"), "temp")

	s1, err := sn.Create("before_refactor")
	if err != nil {
		t.Fatal(err)
	}
	wantID := "before_refactor_1769176800000"
	if s1.ID != wantID || s1.Name != "before_refactor" || s1.ToolCount != 2 || !s1.CreatedAt.Equal(clk.Now()) {
		t.Errorf("Create = %+v", s1)
	}
	if got, want := s1.String(), wantID+" (2 tools, 2026-01-23T14:00:00.000Z)"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	// Only the tool files are copied.
	entries, _ := os.ReadDir(filepath.Join(sn.Dir, wantID, "tools"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"a.ts", "b.js"}) {
		t.Errorf("snapshot tools/ = %v", names)
	}
	var meta struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		CreatedAt string `json:"createdAt"`
		ToolCount int    `json:"toolCount"`
		Files     []struct {
			Name   string `json:"name"`
			SHA256 string `json:"sha256"`
		} `json:"files"`
	}
	data, err := os.ReadFile(filepath.Join(sn.Dir, wantID, "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.ID != wantID || meta.Name != "before_refactor" || meta.CreatedAt != "2026-01-23T14:00:00Z" || meta.ToolCount != 2 || len(meta.Files) != 2 ||
		meta.Files[0].Name != "a.ts" || meta.Files[0].SHA256 != sha256Hex([]byte("export const tool = 'a';")) {
		t.Errorf("metadata.json = %s", data)
	}

	// Same millisecond: distinct IDs, in order of creation.
	s2, err := sn.Create("before_refactor")
	if err != nil {
		t.Fatal(err)
	}
	s3, err := sn.Create("other")
	if err != nil {
		t.Fatal(err)
	}
	if s2.ID != "before_refactor_1769176800001" || s3.ID != "other_1769176800002" {
		t.Errorf("same-ms IDs = %s, %s", s2.ID, s3.ID)
	}
	clk.Advance(time.Second)
	writeFile(t, filepath.Join(st.Dir, "c.ts"), "export const tool = 'c';")
	s4, err := sn.Create("one-more")
	if err != nil {
		t.Fatal(err)
	}
	if s4.ID != "one-more_1769176801000" || s4.ToolCount != 3 {
		t.Errorf("s4 = %+v", s4)
	}
	// A stray directory and a hidden work directory are not snapshots.
	os.MkdirAll(filepath.Join(sn.Dir, "stray"), 0o755)
	os.MkdirAll(filepath.Join(sn.Dir, ".creating-x"), 0o755)

	list, err := sn.List()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(list), []string{s4.ID, s3.ID, s2.ID, s1.ID}; !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
	if list[3].ToolCount != 2 || list[3].Name != "before_refactor" || !list[3].CreatedAt.Equal(s1.CreatedAt) {
		t.Errorf("listed %+v", list[3])
	}
	if got := (Snapshot{ID: "x_1", ToolCount: 1, CreatedAt: time.Date(2026, 1, 23, 12, 0, 0, 5e6, time.FixedZone("X", 3600))}).String(); got != "x_1 (1 tool, 2026-01-23T11:00:00.005Z)" {
		t.Errorf("String = %q", got)
	}
}

func TestSnapshotNameRules(t *testing.T) {
	t.Parallel()
	sn, _, _ := newSnapshots(t, 0)
	for _, name := range []string{"", "-x", "_x", "a b", "../x", "a/b", "a.b", "é", strings.Repeat("a", MaxSnapshotNameLen+1)} {
		_, err := sn.Create(name)
		var te *tool.Error
		if !errors.As(err, &te) || te.Code != tool.CodeInvalidArgs || !strings.Contains(err.Error(), "^[a-zA-Z0-9][a-zA-Z0-9_-]*$") {
			t.Errorf("Create(%q) = %v, want INVALID_ARGS stating the rule", name, err)
		}
	}
	for _, name := range []string{"a", "A-1_b", "9lives", "pre-rollback"} {
		if _, err := sn.Create(name); err != nil {
			t.Errorf("Create(%q) = %v", name, err)
		}
	}
}

func TestSnapshotLatestSkipsPreRollback(t *testing.T) {
	t.Parallel()
	sn, _, clk := newSnapshots(t, 0)
	var te *tool.Error
	if _, err := sn.Latest(); !errors.As(err, &te) || te.Code != tool.CodeNotFound {
		t.Errorf("Latest with none = %v, want NOT_FOUND", err)
	}
	a, _ := sn.Create("a")
	clk.Advance(time.Millisecond)
	if _, err := sn.Create(PreRollbackName); err != nil {
		t.Fatal(err)
	}
	got, err := sn.Latest()
	if err != nil || got.ID != a.ID {
		t.Errorf("Latest = %v, %v; want %s", got, err, a.ID)
	}
}

func TestSnapshotRestoreExact(t *testing.T) {
	t.Parallel()
	sn, st, clk := newSnapshots(t, 0)
	writeFile(t, filepath.Join(st.Dir, "keep.ts"), "export const tool = 'keep';")
	writeFile(t, filepath.Join(st.Dir, "change.ts"), "export const tool = 'original';\n")
	writeFile(t, filepath.Join(st.Dir, "old.js"), "exports.tool = 'old';")
	writeFile(t, filepath.Join(st.Dir, "gone.ts"), "export const tool = 'gone';")
	before := toolFiles(t, st.Dir)
	snap, err := sn.Create("good")
	if err != nil {
		t.Fatal(err)
	}

	clk.Advance(time.Second)
	writeFile(t, filepath.Join(st.Dir, "change.ts"), "export const tool = 'broken' ;;; \n")
	writeFile(t, filepath.Join(st.Dir, "added.ts"), "export const tool = 'added';")
	writeFile(t, filepath.Join(st.Dir, "added2.js"), "exports.tool = 1;")
	if err := os.Remove(filepath.Join(st.Dir, "gone.ts")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(st.Dir, "notes.md"), "left alone")
	writeFile(t, filepath.Join(st.Dir, "barrhawk.d.ts"), "// custom types")
	broken := toolFiles(t, st.Dir)

	restored, pre, err := sn.Restore(snap.ID)
	if err != nil {
		t.Fatal(err)
	}
	if restored.ID != snap.ID {
		t.Errorf("restored %s, want %s", restored.ID, snap.ID)
	}
	if pre.Name != PreRollbackName || pre.ToolCount != len(broken) {
		t.Errorf("pre-rollback snapshot = %+v", pre)
	}
	after := toolFiles(t, st.Dir)
	if len(after) != len(before) {
		t.Errorf("after restore: %d files, want %d: %v", len(after), len(before), after)
	}
	for name, want := range before {
		if after[name] != want {
			t.Errorf("%s = %q, want %q", name, after[name], want)
		}
	}
	for _, n := range []string{"notes.md", "barrhawk.d.ts"} {
		if _, err := os.Stat(filepath.Join(st.Dir, n)); err != nil {
			t.Errorf("%s was touched: %v", n, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(st.Dir, "barrhawk.d.ts")); string(b) != "// custom types" {
		t.Errorf("barrhawk.d.ts changed to %q", b)
	}
	entries, _ := os.ReadDir(st.Dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}

	// The pre-rollback snapshot holds the broken state: rolling back to it
	// brings that back, byte for byte.
	if _, _, err := sn.Restore(pre.ID); err != nil {
		t.Fatal(err)
	}
	again := toolFiles(t, st.Dir)
	if len(again) != len(broken) {
		t.Errorf("restore of pre-rollback: %v, want %v", again, broken)
	}
	for name, want := range broken {
		if again[name] != want {
			t.Errorf("%s = %q, want %q", name, again[name], want)
		}
	}

	// Restore("") is the latest snapshot that is not a pre-rollback one.
	restored, _, err = sn.Restore("")
	if err != nil || restored.ID != snap.ID {
		t.Errorf("Restore(\"\") = %v, %v; want %s", restored.ID, err, snap.ID)
	}
	// A bare name means the newest snapshot of that name.
	restored, _, err = sn.Restore("good")
	if err != nil || restored.ID != snap.ID {
		t.Errorf("Restore(good) = %v, %v; want %s", restored.ID, err, snap.ID)
	}
	if got := toolFiles(t, st.Dir); len(got) != len(before) || got["change.ts"] != before["change.ts"] {
		t.Errorf("after Restore(\"\"): %v", got)
	}
}

func TestSnapshotRestoreUnknownAndDamaged(t *testing.T) {
	t.Parallel()
	sn, st, clk := newSnapshots(t, 0)
	var te *tool.Error
	if _, _, err := sn.Restore(""); !errors.As(err, &te) || te.Code != tool.CodeNotFound {
		t.Errorf("Restore with no snapshot = %v, want NOT_FOUND", err)
	}
	writeFile(t, filepath.Join(st.Dir, "a.ts"), "export const tool = 1;")
	var made []string
	for i := range 7 {
		s, err := sn.Create("s" + string(rune('a'+i)))
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, s.ID)
		clk.Advance(time.Millisecond)
	}
	_, _, err := sn.Restore("nope_123")
	if !errors.As(err, &te) || te.Code != tool.CodeNotFound {
		t.Fatalf("Restore(nope_123) = %v, want NOT_FOUND", err)
	}
	msg := err.Error()
	for _, id := range made[2:] { // the five newest
		if !strings.Contains(msg, id) {
			t.Errorf("error %q does not list %s", msg, id)
		}
	}
	if strings.Contains(msg, made[0]) || !strings.Contains(msg, "2 more") {
		t.Errorf("error %q should list only five IDs and say 2 more", msg)
	}

	// A damaged snapshot changes nothing, not even a pre-rollback snapshot.
	writeFile(t, filepath.Join(sn.Dir, made[0], "tools", "a.ts"), "tampered")
	writeFile(t, filepath.Join(st.Dir, "a.ts"), "current")
	_, _, err = sn.Restore(made[0])
	if err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("Restore of damaged snapshot = %v", err)
	}
	if got := toolFiles(t, st.Dir); got["a.ts"] != "current" {
		t.Errorf("tools changed: %v", got)
	}
	list, _ := sn.List()
	if len(list) != len(made) {
		t.Errorf("%d snapshots after a refused restore, want %d", len(list), len(made))
	}
}

func TestSnapshotPruneKeepsNewest(t *testing.T) {
	t.Parallel()
	sn, st, clk := newSnapshots(t, 3)
	writeFile(t, filepath.Join(st.Dir, "a.ts"), "export const tool = 1;")
	var made []string
	for i := range 6 {
		s, err := sn.Create("n" + string(rune('0'+i)))
		if err != nil {
			t.Fatal(err)
		}
		made = append(made, s.ID)
		if i%2 == 0 {
			clk.Advance(time.Millisecond)
		}
	}
	list, err := sn.List()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(list), []string{made[5], made[4], made[3]}; !slices.Equal(got, want) {
		t.Errorf("after pruning: %v, want %v", got, want)
	}
	entries, _ := os.ReadDir(sn.Dir)
	if len(entries) != 3 {
		var n []string
		for _, e := range entries {
			n = append(n, e.Name())
		}
		t.Errorf("snapshot dir holds %v", n)
	}

	// Restoring the oldest kept snapshot: the pre-rollback snapshot pushes it
	// past Keep, yet it is not pruned before it is restored.
	writeFile(t, filepath.Join(st.Dir, "a.ts"), "changed")
	restored, pre, err := sn.Restore(made[3])
	if err != nil {
		t.Fatal(err)
	}
	if restored.ID != made[3] || toolFiles(t, st.Dir)["a.ts"] != "export const tool = 1;" {
		t.Errorf("restore of the oldest kept snapshot failed: %v", restored)
	}
	list, _ = sn.List()
	if got, want := ids(list), []string{pre.ID, made[5], made[4], made[3]}; !slices.Equal(got, want) {
		t.Errorf("after restore: %v, want %v", got, want)
	}
	// The next Create prunes back to Keep.
	s, err := sn.Create("last")
	if err != nil {
		t.Fatal(err)
	}
	list, _ = sn.List()
	if got, want := ids(list), []string{s.ID, pre.ID, made[5]}; !slices.Equal(got, want) {
		t.Errorf("after next create: %v, want %v", got, want)
	}
}

func TestSnapshotEnsureInitial(t *testing.T) {
	t.Parallel()
	sn, st, clk := newSnapshots(t, 0)
	writeFile(t, filepath.Join(st.Dir, "hello_world.ts"), "export const tool = 1;")
	created, err := sn.EnsureInitial()
	if err != nil || !created {
		t.Fatalf("EnsureInitial = %v, %v; want true", created, err)
	}
	clk.Advance(time.Second)
	for range 3 {
		created, err = sn.EnsureInitial()
		if err != nil || created {
			t.Fatalf("EnsureInitial again = %v, %v; want false", created, err)
		}
	}
	list, _ := sn.List()
	if len(list) != 1 || list[0].Name != InitialName || list[0].ToolCount != 1 || !strings.HasPrefix(list[0].ID, "initial_") {
		t.Errorf("snapshots = %+v", list)
	}
}

func TestSnapshotMissingToolsDirIsEmpty(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	sn := &Snapshots{Dir: filepath.Join(root, "snaps"), ToolsDir: filepath.Join(root, "nope")}
	s, err := sn.Create("empty")
	if err != nil || s.ToolCount != 0 {
		t.Fatalf("Create = %+v, %v", s, err)
	}
	if time.Since(s.CreatedAt) > time.Minute {
		t.Errorf("real clock not used: %v", s.CreatedAt)
	}
	if _, _, err := sn.Restore(s.ID); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(sn.ToolsDir); err != nil || !info.IsDir() {
		t.Errorf("Restore did not create the tools dir: %v", err)
	}
}
