package worktree

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// repo makes a real repository with one commit.
func repo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", ".")
	run("commit", "-q", "-m", "first")
	run("tag", "v1")
	return dir
}

// UT-004: a worktree is made from a ref on a branch of its own, listed,
// refused twice under one name or from a bad ref or name, removed with its
// changes and its branch, and its name is free again.
func TestUT004WorktreeManagement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := repo(t)
	m, err := New(ctx, filepath.Join(r), "")
	if err != nil {
		t.Fatal(err)
	}
	if m.Dir() != filepath.Join(r, DefaultDir) {
		t.Errorf("dir %s", m.Dir())
	}
	w, err := m.Create(ctx, "job-1", "v1")
	if err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(w.Path, "README.md")); err != nil || string(data) != "hello\n" || w.Branch != "barrhawk/job-1" || len(w.Head) != 40 {
		t.Errorf("worktree %+v: %q %v", w, data, err)
	}
	if _, err := m.Create(ctx, "job-1", ""); err == nil || !strings.Contains(err.Error(), "exists already") {
		t.Errorf("same name twice: %v", err)
	}
	if _, err := m.Create(ctx, "job-2", "nope"); err == nil || !strings.Contains(err.Error(), `ref "nope"`) {
		t.Errorf("bad ref: %v", err)
	}
	if _, err := m.Create(ctx, "../escape", ""); err == nil || !strings.Contains(err.Error(), "name") {
		t.Errorf("bad name: %v", err)
	}
	list, err := m.List(ctx)
	if err != nil || len(list) != 1 || list[0].Name != "job-1" || list[0].Branch != "barrhawk/job-1" {
		t.Errorf("list: %+v %v", list, err)
	}
	// Changes in the worktree do not stop its removal.
	os.WriteFile(filepath.Join(w.Path, "new.txt"), []byte("x"), 0o644)
	if err := m.Remove(ctx, "job-1", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Path); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	if out, _ := git(ctx, r, "branch", "--list", "barrhawk/*"); strings.TrimSpace(out) != "" {
		t.Errorf("branches left: %q", out)
	}
	// The name is free again.
	if _, err := m.Create(ctx, "job-1", ""); err != nil {
		t.Fatal(err)
	}
}

// Orphans: worktrees no running job claims, directories git forgot, and
// worktrees whose directory someone deleted all go.
func TestRemoveOrphans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, err := New(ctx, repo(t), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"running", "dead", "deleted"} {
		if _, err := m.Create(ctx, n, ""); err != nil {
			t.Fatal(err)
		}
	}
	os.RemoveAll(filepath.Join(m.Dir(), "deleted"))
	os.MkdirAll(filepath.Join(m.Dir(), "stray"), 0o755)
	// A cleanup killed between the worktree's removal and its branch's.
	if _, err := m.Create(ctx, "halfway", ""); err != nil {
		t.Fatal(err)
	}
	if err := m.Remove(ctx, "halfway", true); err != nil {
		t.Fatal(err)
	}
	removed, err := m.RemoveOrphans(ctx, func(name string) bool { return name == "running" })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(removed, ",") != "dead,deleted,halfway,stray" {
		t.Errorf("removed %v", removed)
	}
	if out, _ := git(ctx, m.Repo(), "branch", "--list", BranchPrefix+"*"); strings.TrimSpace(strings.TrimLeft(out, "+* ")) != BranchPrefix+"running" {
		t.Errorf("branches left: %q", out)
	}
	list, _ := m.List(ctx)
	if len(list) != 1 || list[0].Name != "running" {
		t.Errorf("left %+v", list)
	}
	if out, _ := git(ctx, m.Repo(), "worktree", "list", "--porcelain"); strings.Contains(out, "deleted") {
		t.Errorf("git still lists the deleted worktree:\n%s", out)
	}
}

// Concurrent creations (jobs starting together) all succeed.
func TestConcurrentCreate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, err := New(ctx, repo(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			if _, err := m.Create(ctx, "w"+string(rune('a'+i)), ""); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if list, _ := m.List(ctx); len(list) != 8 {
		t.Errorf("%d worktrees", len(list))
	}
}

func TestNotARepository(t *testing.T) {
	if _, err := New(context.Background(), t.TempDir(), ""); err == nil || !strings.Contains(err.Error(), "not inside a git repository") {
		t.Errorf("%v", err)
	}
}

// BenchmarkCreate: a worktree created (and removed) on a small repository.
func BenchmarkCreate(b *testing.B) {
	ctx := context.Background()
	m, err := New(ctx, repo(b), "")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := m.Create(ctx, "bench", ""); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := m.Remove(ctx, "bench", false); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
