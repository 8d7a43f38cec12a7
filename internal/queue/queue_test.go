package queue

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/jobs"
	"github.com/barrhawk/barrhawk/internal/testsupport/testsrv"
)

func gitRepo(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", "git init -q -b main && git commit -q --allow-empty -m start")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	return dir
}

func runner(t testing.TB, ran *atomic.Int64) Runner {
	dir := t.TempDir()
	return func(ctx context.Context, id int64, job jobs.CommandJob, ended func(*jobs.Outcome)) (*jobs.Outcome, error) {
		if ran != nil {
			ran.Add(1)
		}
		return jobs.RunCommand(ctx, job, jobs.RunEnv{TaskID: strconv.FormatInt(id, 10), WorkerID: "w1", LogDir: filepath.Join(dir, "logs"),
			ArtifactDir: filepath.Join(dir, "artifacts"), TempDir: filepath.Join(dir, "tmp"), KillGrace: 200 * time.Millisecond, Ended: ended})
	}
}

// wait polls a job until it is in a final state.
func wait(t testing.TB, q Queue, id int64) *Info {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		in, err := q.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		switch in.State {
		case "completed", "discarded", "cancelled":
			return in
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("job %d did not end", id)
	return nil
}

func TestSQLiteQueue(t *testing.T) {
	ctx := context.Background()
	q, err := Open(ctx, filepath.Join(t.TempDir(), "queue.db"), Options{Workers: 2, Run: runner(t, nil), ID: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer q.Stop(ctx)
	repo := gitRepo(t)
	ok, err := q.Submit(ctx, jobs.CommandJob{Repo: repo, Build: []string{"echo hi > out.txt"}, Test: []string{"test -s out.txt"}, Artifacts: []string{"out.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	bad, err := q.Submit(ctx, jobs.CommandJob{Repo: repo, Test: []string{"exit 2"}})
	if err != nil {
		t.Fatal(err)
	}
	slow, err := q.Submit(ctx, jobs.CommandJob{Repo: repo, Build: []string{"sleep 30"}})
	if err != nil {
		t.Fatal(err)
	}
	if in := wait(t, q, ok); in.State != "completed" || in.Outcome == nil || in.Outcome.Status != "succeeded" || len(in.Outcome.Artifacts) != 1 {
		t.Errorf("the good job: %+v %+v", in, in.Outcome)
	}
	if in := wait(t, q, bad); in.State != "discarded" || in.Outcome == nil || in.Outcome.ExitCode != 2 || len(in.Errors) != 1 || !strings.Contains(in.Errors[0], "exit 2") {
		t.Errorf("the failing job: %+v %+v", in, in.Outcome)
	}
	// The slow one is cancelled while it runs.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if in, _ := q.Get(ctx, slow); in.State == "running" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := q.Cancel(ctx, slow); err != nil {
		t.Fatal(err)
	}
	if in := wait(t, q, slow); in.State != "cancelled" {
		t.Errorf("the cancelled job: %+v", in)
	}
	list, err := q.List(ctx, 10)
	if err != nil || len(list) != 3 || list[0].ID != slow {
		t.Errorf("list: %+v %v", list, err)
	}
	if _, err := q.Get(ctx, 999); err == nil || !strings.Contains(err.Error(), "no job 999") {
		t.Errorf("an unknown job: %v", err)
	}
	if _, err := q.Submit(ctx, jobs.CommandJob{Repo: repo}); err == nil {
		t.Error("a job with nothing to run was accepted")
	}
}

// An artifact glob that reaches out of the worktree is refused at submit,
// naming it, not accepted and then found to match nothing after the job ran.
func TestSubmitRefusesArtifactGlobsOutsideTheWorktree(t *testing.T) {
	ctx := context.Background()
	q, err := Open(ctx, filepath.Join(t.TempDir(), "queue.db"), Options{ID: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	repo := gitRepo(t)
	for _, g := range []string{"../../etc/passwd", "/etc/passwd", "out/../../x", "[", ""} {
		if _, err := q.Submit(ctx, jobs.CommandJob{Repo: repo, Test: []string{"true"}, Artifacts: []string{g}}); err == nil || !strings.Contains(err.Error(), "artifact glob") || !strings.Contains(err.Error(), strconv.Quote(g)) {
			t.Errorf("artifact glob %q: %v", g, err)
		}
	}
	if _, err := q.Submit(ctx, jobs.CommandJob{Repo: repo, Test: []string{"true"}, Artifacts: []string{"*.out", "build/a..b.txt", "sub/*.xml"}}); err != nil {
		t.Errorf("globs inside the worktree: %v", err)
	}
}

// A queue opened by another process (here, another Open on the same file)
// sees the jobs and can insert; jobs run once.
func TestSQLiteSharedFileRunsEachJobOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "queue.db")
	var ran atomic.Int64
	worker, err := Open(ctx, path, Options{Workers: 4, Run: runner(t, &ran), ID: "w"})
	if err != nil {
		t.Fatal(err)
	}
	defer worker.Close()
	if err := worker.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer worker.Stop(ctx)
	client, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	repo := gitRepo(t)
	var ids []int64
	for range 20 {
		id, err := client.Submit(ctx, jobs.CommandJob{Repo: repo, Build: []string{"true"}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for _, id := range ids {
		if in := wait(t, client, id); in.State != "completed" {
			t.Errorf("job %d: %s", id, in.State)
		}
	}
	if ran.Load() != 20 {
		t.Errorf("ran %d times for 20 jobs", ran.Load())
	}
}

// The same queue on PostgreSQL: two workers sharing it run each job once.
func TestPostgresQueueSharedByTwoWorkers(t *testing.T) {
	pg, err := testsrv.StartPostgres()
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	ctx := context.Background()
	var ran atomic.Int64
	for i := range 2 {
		w, err := Open(ctx, pg.URL, Options{Workers: 2, Run: runner(t, &ran), ID: "pg-" + strconv.Itoa(i)})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if err := w.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer w.Stop(ctx)
	}
	client, err := Open(ctx, pg.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	repo := gitRepo(t)
	var ids []int64
	for range 20 {
		id, err := client.Submit(ctx, jobs.CommandJob{Repo: repo, Build: []string{"true"}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	by := map[string]int{}
	for _, id := range ids {
		in := wait(t, client, id)
		if in.State != "completed" {
			t.Errorf("job %d: %s", id, in.State)
		}
		by[in.AttemptedBy[0]]++
	}
	if ran.Load() != 20 {
		t.Errorf("ran %d times for 20 jobs", ran.Load())
	}
	t.Logf("jobs by worker: %v", by)
	if _, err := Open(ctx, "postgres://u:hunter2pass@127.0.0.1:1/x", Options{}); err == nil || strings.Contains(err.Error(), "hunter2pass") {
		t.Errorf("an unreachable database: %v", err)
	}
}
