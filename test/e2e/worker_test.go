package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/jobs"
	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/queue"
	"github.com/barrhawk/barrhawk/internal/testsupport/lockedbuf"
	"github.com/barrhawk/barrhawk/internal/testsupport/testsrv"
)

// workerHome is a user's home for the worker and task commands: its own
// state directory, config file and queue.
type workerHome struct {
	t    *testing.T
	home string
	db   string
	env  []string
}

func newWorkerHome(t *testing.T, db, config string) *workerHome {
	home := t.TempDir()
	if db == "" {
		db = filepath.Join(home, "queue.db")
	}
	w := &workerHome{t: t, home: home, db: db,
		env: append(os.Environ(), "HOME="+home, "BARRHAWK_HOME="+filepath.Join(home, ".barrhawk"), "BARRHAWK_LOG_LEVEL=info")}
	if config != "" {
		p := filepath.Join(home, "barrhawk.yaml")
		if err := os.WriteFile(p, []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		w.env = append(w.env, "BARRHAWK_CONFIG="+p)
	}
	return w
}

// run runs barrhawk and returns its stdout, stderr and exit code.
func (w *workerHome) run(args ...string) (string, string, int) {
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = w.env, w.home
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), errb.String(), ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	return out.String(), errb.String(), 0
}

// submit queues a command job through the CLI and returns its id.
func (w *workerHome) submit(args ...string) string {
	w.t.Helper()
	out, errs, code := w.run(append([]string{"task", "submit", "--db", w.db}, args...)...)
	if code != 0 {
		w.t.Fatalf("task submit %v: exit %d: %s", args, code, errs)
	}
	return strings.TrimSpace(out)
}

// status is a job's state through the CLI (waiting for its end).
func (w *workerHome) status(id string) queue.Info {
	w.t.Helper()
	out, errs, _ := w.run("task", "status", id, "--wait", "--db", w.db)
	var in queue.Info
	if err := json.Unmarshal([]byte(out), &in); err != nil {
		w.t.Fatalf("task status %s: %v: %s %s", id, err, out, errs)
	}
	return in
}

// pool is a running barrhawk worker start.
type pool struct {
	w   *workerHome
	cmd *exec.Cmd
	log *lockedbuf.Buffer
}

// startPool starts barrhawk worker start and waits until its count
// workers run.
func (w *workerHome) startPool(count int, args ...string) *pool {
	w.t.Helper()
	cmd := exec.Command(bin, append([]string{"worker", "start", "--count", strconv.Itoa(count), "--db", w.db}, args...)...)
	cmd.Env, cmd.Dir = w.env, w.home
	p := &pool{w: w, cmd: cmd, log: &lockedbuf.Buffer{}}
	cmd.Stderr = p.log
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			// A failed test: take the pool and everything under it.
			for _, d := range proc.Descendants(cmd.Process.Pid) {
				syscall.Kill(d.PID, syscall.SIGKILL)
			}
			cmd.Process.Kill()
			cmd.Wait()
			w.t.Logf("pool log:\n%s", p.log.String())
		}
	})
	waitFor(w.t, "the pool's workers", func() bool { return strings.Count(p.log.String(), "worker running") >= count })
	return p
}

// workers are the pool's workers as its status file shows them.
func (p *pool) workers() []jobs.WorkerState {
	data, err := os.ReadFile(filepath.Join(p.w.home, ".barrhawk", "workers", "pool-"+strconv.Itoa(p.cmd.Process.Pid)+".json"))
	var st jobs.Status
	if err != nil || json.Unmarshal(data, &st) != nil {
		return nil
	}
	return st.Workers
}

// stop sends SIGTERM and waits for the pool to exit; it returns the exit
// code.
func (p *pool) stop() int {
	p.w.t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		p.w.t.Fatalf("the pool did not stop\n%s", p.log.String())
	}
	return p.cmd.ProcessState.ExitCode()
}

// noZombies fails if pid has zombie children.
func noZombies(t *testing.T, pid int) {
	t.Helper()
	waitFor(t, "no zombie children", func() bool { return len(proc.ZombieChildren(pid)) == 0 })
}

// noJobWorktrees waits until repo has no job worktree or branch left: a
// job's end is recorded before its worktree is removed, so a job seen
// ended may still have it for a moment.
func noJobWorktrees(t *testing.T, repo string) {
	t.Helper()
	waitFor(t, "the jobs' worktrees and branches to be removed", func() bool { return len(jobWorktrees(t, repo)) == 0 })
}

// jobWorktrees lists the job worktrees (task-*) of repo and its
// barrhawk/task-* branches.
func jobWorktrees(t *testing.T, repo string) []string {
	t.Helper()
	ents, _ := os.ReadDir(filepath.Join(repo, ".barrhawk", "worktrees"))
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "task-") {
			out = append(out, e.Name())
		}
	}
	b, err := exec.Command("git", "-C", repo, "branch", "--list", "barrhawk/task-*").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(b)) {
		if f != "*" && f != "+" {
			out = append(out, f)
		}
	}
	return out
}

// IT-001: the full cycle as a user meets it: barrhawk worker start runs
// what barrhawk task submit queues, each job in a fresh worktree whose
// output, exit code and artifacts are kept and which is removed after;
// worker status, logs and attach show the workers; SIGTERM stops the pool
// cleanly; a missing required tool stops the start with exit code 3.
func TestIT001FullExecutionCycle(t *testing.T) {
	t.Parallel()
	repo := spawnRepo(t)
	w := newWorkerHome(t, "", "")
	if _, errs, code := w.run("worker", "start", "--count", "1", "--db", w.db, "--require", "no-such-tool-xyz"); code != 3 || !strings.Contains(errs, `"no-such-tool-xyz" not found`) {
		t.Fatalf("a missing tool: exit %d: %s", code, errs)
	}
	p := w.startPool(2)
	ws := p.workers()
	if len(ws) != 2 {
		t.Fatalf("status file: %+v", ws)
	}
	for _, st := range ws {
		// FR-003/FR-004: the worker got its id and the config.
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", st.PID))
		args := strings.Split(string(cmdline), "\x00")
		if !slices.Contains(args, "--id") || !slices.Contains(args, st.ID) || !slices.Contains(args, "--db") || !strings.HasPrefix(st.ID, hostPrefix(p)) {
			t.Errorf("worker %s: %q", st.ID, args)
		}
	}
	// attach follows each worker's live log.
	var attached []*exec.Cmd
	var outs []*lockedbuf.Buffer
	for _, st := range ws {
		c := exec.Command(bin, "worker", "attach", st.ID)
		c.Env = w.env
		b := &lockedbuf.Buffer{}
		c.Stdout = b
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		attached, outs = append(attached, c), append(outs, b)
	}
	id := w.submit("--repo", repo, "--build", "echo built-$BARRHAWK_TASK_ID > out.txt; echo marker-from-the-job", "--test", "test -s out.txt", "--artifact", "*.txt")
	in := w.status(id)
	if in.State != "completed" || in.Outcome == nil || in.Outcome.Status != "succeeded" || in.Outcome.ExitCode != 0 || len(in.Outcome.Artifacts) != 1 {
		t.Fatalf("the job: %+v %+v", in, in.Outcome)
	}
	if b, _ := os.ReadFile(in.Outcome.Artifacts[0]); string(b) != "built-"+id+"\n" {
		t.Errorf("artifact: %q", b)
	}
	if out, _, code := w.run("task", "logs", id, "--db", w.db); code != 0 || !strings.Contains(out, "marker-from-the-job") {
		t.Errorf("task logs: %d %s", code, out)
	}
	ran := queue.LastWorker(&in)
	if out, _, code := w.run("worker", "logs", ran); code != 0 || !strings.Contains(out, "marker-from-the-job") || !strings.Contains(out, "worker running") {
		t.Errorf("worker logs %s: %d %s", ran, code, out)
	}
	waitFor(t, "attach to show the job's output", func() bool {
		return strings.Contains(outs[0].String()+outs[1].String(), "marker-from-the-job")
	})
	for _, c := range attached {
		c.Process.Signal(os.Interrupt)
		if err := c.Wait(); err != nil {
			t.Errorf("attach after Ctrl-C: %v", err)
		}
	}
	if out, _, code := w.run("worker", "status"); code != 0 || strings.Count(out, " running ") != 2 || !strings.Contains(out, ws[0].ID) {
		t.Errorf("worker status: %d\n%s", code, out)
	}
	// A failing job: its exit code is kept, task status exits 1.
	bad := w.submit("--repo", repo, "--test", "echo failing; exit 7")
	out, _, code := w.run("task", "status", bad, "--wait", "--db", w.db)
	var failed queue.Info
	json.Unmarshal([]byte(out), &failed)
	if code != 1 || failed.State != "discarded" || failed.Outcome == nil || failed.Outcome.ExitCode != 7 || failed.Outcome.Phase != "test" {
		t.Errorf("a failing job: exit %d: %s", code, out)
	}
	if list, _, code := w.run("task", "list", "--db", w.db); code != 0 || !strings.Contains(list, id+"\tcompleted") || !strings.Contains(list, bad+"\tdiscarded") {
		t.Errorf("task list: %d %s", code, list)
	}
	// A cancel that comes after the end says so, rather than exit 0.
	if _, errs, code := w.run("task", "cancel", id, "--db", w.db); code != 1 || !strings.Contains(errs, "already ended (completed)") {
		t.Errorf("task cancel of a completed job: exit %d: %s", code, errs)
	}
	noJobWorktrees(t, repo)
	if code := p.stop(); code != 0 {
		t.Errorf("the pool exited %d after SIGTERM\n%s", code, p.log.String())
	}
	for _, st := range ws {
		if pidAlive(st.PID) {
			t.Errorf("worker %d outlived the pool", st.PID)
		}
	}
	if out, _, _ := w.run("worker", "status"); !strings.Contains(out, "no worker pool is running") {
		t.Errorf("worker status after the stop: %s", out)
	}
	if log := p.log.String(); strings.Count(log, "stopping worker (SIGTERM)") != 2 || strings.Contains(log, "exited unexpectedly") {
		t.Errorf("pool log:\n%s", log)
	}
}

// hostPrefix is the start of the ids of p's workers.
func hostPrefix(p *pool) string {
	h, _ := os.Hostname()
	return h + "-" + strconv.Itoa(p.cmd.Process.Pid) + "-"
}

func pidAlive(pid int) bool {
	for _, p := range proc.All() {
		if p.PID == pid {
			return p.State != 'Z'
		}
	}
	return false
}

// stuckOnceScript is a job's build command that records each attempt's
// worker in out/attempts; its first attempt writes its shell's pid to
// out/shell and a background sleep's to out/child and waits on that sleep
// (to be killed), and every later attempt finishes at once.
func stuckOnceScript(out string) string {
	return fmt.Sprintf(`echo "$BARRHAWK_WORKER_ID" >> %[1]s/attempts
if [ ! -e %[1]s/first ]; then
  touch %[1]s/first; echo $$ > %[1]s/shell.tmp; mv %[1]s/shell.tmp %[1]s/shell
  sleep 300 & echo $! > %[1]s/child.tmp; mv %[1]s/child.tmp %[1]s/child; wait
fi
echo finished`, out)
}

// pidIn is the pid a stuckOnceScript wrote to out/name. The script writes
// each pid file under another name and renames it, so a file that exists
// holds its whole pid.
func pidIn(t *testing.T, out, name string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, name))
	pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || perr != nil {
		t.Fatalf("the pid in %s: %v %v", name, err, perr)
	}
	return pid
}

// IT-002: a worker killed with SIGKILL in the middle of a job is replaced;
// the processes its job started are killed, the job goes back to the queue
// and runs again to completion, and no zombie or worktree is left.
func TestIT002CrashRecovery(t *testing.T) {
	t.Parallel()
	repo := spawnRepo(t)
	w := newWorkerHome(t, "", "")
	p := w.startPool(2)
	out := t.TempDir()
	script := stuckOnceScript(out)
	id := w.submit("--repo", repo, "--build", script)
	waitFor(t, "the first attempt to run", func() bool { _, err := os.Stat(filepath.Join(out, "child")); return err == nil })
	var victim jobs.WorkerState
	for _, st := range p.workers() {
		b, _ := os.ReadFile(filepath.Join(out, "attempts"))
		if strings.TrimSpace(string(b)) == st.ID {
			victim = st
		}
	}
	if victim.PID == 0 {
		b, _ := os.ReadFile(filepath.Join(out, "attempts"))
		t.Fatalf("no worker runs the job (attempts %q): %+v", b, p.workers())
	}
	syscall.Kill(victim.PID, syscall.SIGKILL)
	in := w.status(id)
	if in.State != "completed" || in.Outcome == nil || in.Outcome.Status != "succeeded" {
		t.Fatalf("the job after the kill: %+v %+v", in, in.Outcome)
	}
	if len(in.AttemptedBy) != 2 || in.AttemptedBy[0] != victim.ID || len(in.Errors) != 1 || !strings.Contains(in.Errors[0], "is gone; handed back") {
		t.Errorf("attempts: %v, errors %v", in.AttemptedBy, in.Errors)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "attempts")); strings.Count(string(b), "\n") != 2 {
		t.Errorf("attempts: %q", b)
	}
	// The killed attempt's processes are gone.
	for _, f := range []string{"shell", "child"} {
		pid := pidIn(t, out, f)
		waitFor(t, "the killed attempt's "+f+" to go", func() bool { return !pidAlive(pid) })
	}
	// The slot has a live worker again.
	waitFor(t, "the killed worker's replacement", func() bool {
		for _, st := range p.workers() {
			if st.Slot == victim.Slot {
				return st.State == "running" && st.PID != victim.PID && pidAlive(st.PID) && st.Restarts == 1
			}
		}
		return false
	})
	noZombies(t, p.cmd.Process.Pid)
	noJobWorktrees(t, repo)
	if log := p.log.String(); !strings.Contains(log, "worker exited unexpectedly") || !strings.Contains(log, "handed a dead worker's jobs back") {
		t.Errorf("pool log:\n%s", log)
	}
	if code := p.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// IT-004: cleanup: at start the pool removes job worktrees of no pending
// or running job (and leaves other worktrees alone); every job's worktree
// and branch go whether it succeeds, fails, times out or is cancelled;
// SIGTERM drains (a running job finishes; one longer than the kill timeout
// is handed back); the workers' temporary directories and processes go
// with the pool.
func TestIT004CleanupVerification(t *testing.T) {
	t.Parallel()
	repo := spawnRepo(t)
	w := newWorkerHome(t, "", "workers:\n  process:\n    killTimeoutSeconds: 2\n")
	out := t.TempDir()
	// A job of this repository in the queue, and worktrees left by an
	// earlier pool: one of a job long gone, one of a sub-agent.
	first := w.submit("--repo", repo, "--build", "echo $TMPDIR > "+out+"/tmpdir")
	for _, name := range []string{"task-999", "spawn-keep"} {
		if b, err := exec.Command("git", "-C", repo, "worktree", "add", "-q", "-b", "barrhawk/"+name, filepath.Join(repo, ".barrhawk", "worktrees", name)).CombinedOutput(); err != nil {
			t.Fatalf("%v %s", err, b)
		}
	}
	p := w.startPool(2)
	if in := w.status(first); in.State != "completed" {
		t.Fatalf("the first job: %+v", in)
	}
	ids := []string{
		w.submit("--repo", repo, "--build", "echo ok"),
		w.submit("--repo", repo, "--test", "exit 3"),
		w.submit("--repo", repo, "--build", "sleep 30", "--timeout", "1s"),
	}
	slow := w.submit("--repo", repo, "--build", "sleep 60")
	waitFor(t, "the slow job to run", func() bool {
		o, _, _ := w.run("task", "status", slow, "--db", w.db)
		return strings.Contains(o, `"state": "running"`)
	})
	if _, errs, code := w.run("task", "cancel", slow, "--db", w.db); code != 0 {
		t.Fatalf("cancel: %s", errs)
	}
	for i, want := range []string{"completed", "discarded", "discarded"} {
		if in := w.status(ids[i]); in.State != want {
			t.Errorf("job %s: %s, want %s", ids[i], in.State, want)
		}
	}
	if in := w.status(slow); in.State != "cancelled" {
		t.Errorf("the cancelled job: %s", in.State)
	}
	noJobWorktrees(t, repo)
	if _, err := os.Stat(filepath.Join(repo, ".barrhawk", "worktrees", "spawn-keep")); err != nil {
		t.Errorf("a sub-agent's worktree was removed: %v", err)
	}
	// Drain: a short job finishes; a long one is handed back.
	marker := filepath.Join(out, "drained")
	short := w.submit("--repo", repo, "--build", "touch "+out+"/started-short; sleep 1; touch "+marker)
	long := w.submit("--repo", repo, "--build", "touch "+out+"/started-long; sleep 60")
	waitFor(t, "both to run", func() bool {
		_, e1 := os.Stat(filepath.Join(out, "started-short"))
		_, e2 := os.Stat(filepath.Join(out, "started-long"))
		return e1 == nil && e2 == nil
	})
	workers := p.workers()
	if code := p.stop(); code != 0 {
		t.Errorf("the pool exited %d\n%s", code, p.log.String())
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the running job did not finish before the pool stopped: %v", err)
	}
	q, err := queue.Open(context.Background(), w.db, queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for id, want := range map[string]string{short: "completed", long: "available"} {
		n, _ := strconv.ParseInt(id, 10, 64)
		if in, err := q.Get(context.Background(), n); err != nil || in.State != want {
			t.Errorf("job %s after the drain: %v %+v", id, err, in)
		}
	}
	log := p.log.String()
	if !strings.Contains(log, "killing it (SIGKILL)") || !strings.Contains(log, "handed a dead worker's jobs back") {
		t.Errorf("pool log:\n%s", log)
	}
	if d := proc.Descendants(p.cmd.Process.Pid); len(d) != 0 {
		t.Errorf("processes left: %+v", d)
	}
	tmp, _ := os.ReadFile(filepath.Join(out, "tmpdir"))
	if dir := strings.TrimSpace(string(tmp)); dir == "" || !strings.Contains(dir, "barrhawk-workers") {
		t.Errorf("the job's TMPDIR: %q", dir)
	} else if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a worker's temporary directory outlived it: %s %v", dir, err)
	}
	for _, st := range workers {
		if _, err := os.Stat(filepath.Join(filepath.Dir(strings.TrimSpace(string(tmp))), st.ID)); !os.IsNotExist(err) {
			t.Errorf("worker %s's temporary directory is still there", st.ID)
		}
	}
	if left := jobWorktrees(t, repo); len(left) != 0 && !slices.Equal(left, []string{"task-" + long, "barrhawk/task-" + long}) {
		t.Errorf("worktrees left: %v", left)
	}
	// The next start removes the handed-back job's leftovers only once it
	// is no longer pending: here it is, so they stay for its next attempt.
}

// Many jobs, many workers: 200 jobs over 4 workers on SQLite all complete,
// each run once, none lost.
func TestWorkerPool200JobsOnSQLite(t *testing.T) {
	t.Parallel()
	w := newWorkerHome(t, "", "")
	p := w.startPool(4)
	ids, ranFile := submitMany(t, w.db, spawnRepo(t), 200)
	by := waitAllOnce(t, w.db, ids, ranFile)
	if len(by) != 4 {
		t.Errorf("jobs by worker: %v, want all 4 workers", by)
	}
	if code := p.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// Two pools (two barrhawk worker start, as on two machines) sharing one
// PostgreSQL queue split 200 jobs, none done twice.
func TestWorkerPoolsShareOnePostgresQueue(t *testing.T) {
	t.Parallel()
	pg, err := testsrv.StartPostgres()
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	a := newWorkerHome(t, pg.URL, "").startPool(2)
	b := newWorkerHome(t, pg.URL, "").startPool(2)
	ids, ranFile := submitMany(t, pg.URL, spawnRepo(t), 200)
	by := waitAllOnce(t, pg.URL, ids, ranFile)
	perPool := map[string]int{}
	for worker, n := range by {
		for _, p := range []*pool{a, b} {
			if strings.HasPrefix(worker, hostPrefix(p)) {
				perPool[hostPrefix(p)] += n
			}
		}
	}
	if len(perPool) != 2 || perPool[hostPrefix(a)]+perPool[hostPrefix(b)] != 200 {
		t.Errorf("jobs per pool: %v (by worker %v)", perPool, by)
	}
	for _, p := range []*pool{a, b} {
		if code := p.stop(); code != 0 {
			t.Errorf("exit %d", code)
		}
	}
}

// submitMany queues n jobs that each append their task id to a file.
func submitMany(t *testing.T, db, repo string, n int) ([]int64, string) {
	t.Helper()
	ranFile := filepath.Join(t.TempDir(), "ran")
	q, err := queue.Open(context.Background(), db, queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	ids := make([]int64, 0, n)
	for range n {
		id, err := q.Submit(context.Background(), jobs.CommandJob{Repo: repo, Build: []string{`echo "$BARRHAWK_TASK_ID" >> ` + ranFile}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids, ranFile
}

// waitAllOnce waits until every job completed and checks each ran exactly
// once (one attempt, one line in ranFile); it returns the jobs per worker.
func waitAllOnce(t *testing.T, db string, ids []int64, ranFile string) map[string]int {
	t.Helper()
	q, err := queue.Open(context.Background(), db, queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	deadline := time.Now().Add(120 * time.Second)
	var list []queue.Info
	for {
		list, err = q.List(context.Background(), len(ids)+10)
		if err != nil {
			t.Fatal(err)
		}
		done := 0
		for _, in := range list {
			if in.State == "completed" || in.State == "discarded" || in.State == "cancelled" {
				done++
			}
		}
		if done == len(ids) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d jobs ended", done, len(ids))
		}
		time.Sleep(200 * time.Millisecond)
	}
	by := map[string]int{}
	for _, in := range list {
		if in.State != "completed" || in.Attempt != 1 || len(in.AttemptedBy) != 1 {
			t.Errorf("job %d: %s, attempt %d by %v, errors %v", in.ID, in.State, in.Attempt, in.AttemptedBy, in.Errors)
		}
		by[queue.LastWorker(&in)]++
	}
	b, err := os.ReadFile(ranFile)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, l := range strings.Fields(string(b)) {
		count[l]++
	}
	for _, id := range ids {
		if n := count[strconv.FormatInt(id, 10)]; n != 1 {
			t.Errorf("job %d ran %d times", id, n)
		}
	}
	if len(count) != len(ids) {
		t.Errorf("%d distinct jobs ran, want %d", len(count), len(ids))
	}
	t.Logf("jobs by worker: %v", by)
	return by
}

// BenchmarkWorkerSpawn: barrhawk worker run from exec to working (its
// queue open, River started, "worker running" logged), on SQLite.
func BenchmarkWorkerSpawn(b *testing.B) {
	home := b.TempDir()
	env := append(os.Environ(), "HOME="+home, "BARRHAWK_HOME="+filepath.Join(home, ".barrhawk"), "BARRHAWK_LOG_LEVEL=info")
	db := filepath.Join(home, "queue.db")
	var total time.Duration
	n := 0
	for b.Loop() {
		n++
		cmd := exec.Command(bin, "worker", "run", "--id", "bench-"+strconv.Itoa(n), "--db", db)
		cmd.Env = env
		r, err := cmd.StderrPipe()
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		var seen bytes.Buffer
		buf := make([]byte, 4096)
		for !strings.Contains(seen.String(), "worker running") {
			k, err := r.Read(buf)
			seen.Write(buf[:k])
			if err != nil {
				b.Fatalf("%v: %s", err, seen.String())
			}
		}
		total += time.Since(t0)
		b.StopTimer()
		cmd.Process.Signal(syscall.SIGTERM)
		io.Copy(io.Discard, r)
		cmd.Wait()
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/float64(n)/1000, "ms/spawn-to-working")
}

// task logs without --follow prints the whole log, however long (it
// printed the first MiB and exited 0), and task submit refuses an artifact
// glob that leaves the worktree with exit code 2, naming it.
func TestTaskLogsWholeAndArtifactGlobRefused(t *testing.T) {
	t.Parallel()
	repo := spawnRepo(t)
	w := newWorkerHome(t, "", "")
	id := w.submit("--repo", repo, "--test", "true")
	var log strings.Builder
	for i := 0; log.Len() < 3<<20; i++ {
		fmt.Fprintf(&log, "line %d\n", i)
	}
	dir := filepath.Join(w.home, ".barrhawk", "jobs", "logs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".log"), []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs, code := w.run("task", "logs", id, "--db", w.db)
	if code != 0 || out != log.String() {
		t.Errorf("task logs: exit %d, %d of %d bytes, ends %q: %s", code, len(out), log.Len(), out[max(0, len(out)-20):], errs)
	}
	for _, g := range []string{"../../etc/passwd", "/etc/passwd"} {
		if _, errs, code := w.run("task", "submit", "--db", w.db, "--repo", repo, "--test", "true", "--artifact", g); code != 2 || !strings.Contains(errs, strconv.Quote(g)) || !strings.Contains(errs, "relative to the worktree") {
			t.Errorf("--artifact %s: exit %d: %s", g, code, errs)
		}
	}
	// Counts that mean nothing, or more than is listed, are refused (with
	// the range), not taken as "all" or silently cut to 100.
	for _, args := range [][]string{{"task", "list", "--db", w.db, "--limit", "0"}, {"task", "list", "--db", w.db, "--limit", "100000"}, {"worker", "attach", "x", "-n", "-1"}} {
		if _, errs, code := w.run(args...); code != 2 || !strings.Contains(errs, "give ") || args[1] == "list" && !strings.Contains(errs, "give 1 to 10000") {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
	}
	if out, errs, code := w.run("task", "list", "--db", w.db, "--limit", "10000"); code != 0 || !strings.HasPrefix(out, id+"\t") {
		t.Errorf("task list --limit 10000: exit %d: %s %s", code, out, errs)
	}
	// A --db whose directory is not there is a typo, not a new queue.
	missing := filepath.Join(t.TempDir(), "typo", "queue.db")
	for _, args := range [][]string{{"task", "list", "--db", missing}, {"task", "submit", "--db", missing, "--repo", repo, "--test", "true"}, {"worker", "start", "--db", missing}} {
		if _, errs, code := w.run(args...); code != 2 || !strings.Contains(errs, "does not exist") || !strings.Contains(errs, filepath.Dir(missing)) {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
	}
	if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Errorf("a --db in a missing directory made it")
	}
	// The timeout reads as a duration.
	if out, errs, code := w.run("task", "status", id, "--db", w.db); code != 0 || !strings.Contains(out, `"timeout": "30m0s"`) {
		t.Errorf("task status: exit %d: %s %s", code, out, errs)
	}
}

// A pool killed with SIGKILL takes its workers with it: a worker that
// lived on (in no worker status) went on with its job while the next pool
// handed that job back and ran it again, at the same time, in the same
// worktree. The worker kills its job's processes and exits without an
// outcome; the next pool hands the job back and it completes once.
func TestPoolKilledTakesItsWorkers(t *testing.T) {
	t.Parallel()
	repo := spawnRepo(t)
	w := newWorkerHome(t, "", "")
	p := w.startPool(1)
	out := t.TempDir()
	script := stuckOnceScript(out)
	id := w.submit("--repo", repo, "--build", script)
	waitFor(t, "the first attempt to run", func() bool { _, err := os.Stat(filepath.Join(out, "child")); return err == nil })
	ws := p.workers()
	if len(ws) != 1 {
		t.Fatalf("workers: %+v", ws)
	}
	child := pidIn(t, out, "child")
	p.cmd.Process.Kill()
	p.cmd.Wait()
	waitFor(t, "the dead pool's worker to exit", func() bool { return !pidAlive(ws[0].PID) })
	waitFor(t, "the abandoned attempt's sleep to go", func() bool { return !pidAlive(child) })
	// Abandoned, not failed: no outcome, still running until handed back.
	if out, _, _ := w.run("task", "status", id, "--db", w.db); !strings.Contains(out, `"state": "running"`) {
		t.Fatalf("the abandoned job: %s", out)
	}
	p2 := w.startPool(1)
	in := w.status(id)
	if in.State != "completed" || in.Outcome == nil || in.Outcome.Status != "succeeded" || len(in.AttemptedBy) != 2 || in.AttemptedBy[0] != ws[0].ID {
		t.Fatalf("the job after its pool was killed: %+v %+v", in, in.Outcome)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "attempts")); strings.Count(string(b), "\n") != 2 {
		t.Errorf("attempts: %q", b)
	}
	noJobWorktrees(t, repo)
	if code := p2.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// A worker SIGKILLed after its job's command ended, before it returned
// (here: while it waits to remove the job's worktree), does not make the
// job run again: the job's end was recorded before the cleanup began. River
// alone completes jobs in batches after the worker returns; the hand-back
// of the dead worker then ran such a finished job a second time. The pool
// removes the worktree the killed cleanup left.
func TestWorkerKilledAfterItsJobEndedDoesNotRunItAgain(t *testing.T) {
	t.Parallel()
	repo := spawnRepo(t)
	w := newWorkerHome(t, "", "")
	p := w.startPool(1)
	out := t.TempDir()
	// The command says it ran, then ends once the test holds the
	// worktrees' lock, which the worker's cleanup takes.
	id := w.submit("--repo", repo, "--build", fmt.Sprintf(`echo "$BARRHAWK_WORKER_ID" >> %[1]s/ran; while [ ! -e %[1]s/go ]; do sleep 0.02; done; echo built`, out))
	waitFor(t, "the job's command to run", func() bool { _, err := os.Stat(filepath.Join(out, "ran")); return err == nil })
	lock, err := os.OpenFile(filepath.Join(repo, ".barrhawk", "worktrees", ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	q, err := queue.Open(context.Background(), w.db, queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	n, _ := strconv.ParseInt(id, 10, 64)
	waitFor(t, "the job's end to be recorded while its worker waits to clean up", func() bool {
		in, err := q.Get(context.Background(), n)
		return err == nil && in.State == "completed"
	})
	ws := p.workers()
	if len(ws) != 1 {
		t.Fatalf("workers: %+v", ws)
	}
	syscall.Kill(ws[0].PID, syscall.SIGKILL)
	waitFor(t, "the killed worker to exit", func() bool { return !pidAlive(ws[0].PID) })
	syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	// The replacement works the next job: by then the dead worker's jobs
	// were dealt with.
	next := w.submit("--repo", repo, "--build", "true")
	if in := w.status(next); in.State != "completed" {
		t.Fatalf("the next job: %+v", in)
	}
	in := w.status(id)
	if in.State != "completed" || in.Outcome == nil || in.Outcome.Status != "succeeded" || in.Attempt != 1 || len(in.AttemptedBy) != 1 || len(in.Errors) != 0 {
		t.Errorf("the job: %s attempt %d by %v, errors %v, outcome %+v", in.State, in.Attempt, in.AttemptedBy, in.Errors, in.Outcome)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "ran")); strings.Count(string(b), "\n") != 1 {
		t.Errorf("the job ran %d times: %q", strings.Count(string(b), "\n"), b)
	}
	noJobWorktrees(t, repo)
	if log := p.log.String(); strings.Contains(log, "handed a dead worker's jobs back") || !strings.Contains(log, "worker exited unexpectedly") {
		t.Errorf("pool log:\n%s", log)
	}
	if code := p.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// worker start checks the tools the config lists (workers.require) as it
// does --require's, and a missing git is named as what jobs need.
func TestWorkerStartChecksConfiguredTools(t *testing.T) {
	t.Parallel()
	w := newWorkerHome(t, "", "workers:\n  require: [no-such-tool-in-config]\n")
	if _, errs, code := w.run("worker", "start", "--count", "1", "--db", w.db); code != 3 || !strings.Contains(errs, `tool "no-such-tool-in-config" not found on PATH`) || !strings.Contains(errs, "workers.require") {
		t.Errorf("a tool missing from workers.require: exit %d: %s", code, errs)
	}
	w.env = append(w.env, "PATH="+t.TempDir())
	if _, errs, code := w.run("worker", "start", "--count", "1", "--db", w.db); code != 3 || !strings.Contains(errs, `tool "git" not found on PATH`) || !strings.Contains(errs, "install git") {
		t.Errorf("no git: exit %d: %s", code, errs)
	}
}

// SIGKILL to barrhawk serve, whose embedded pool runs a job: the job's
// commands, reparented, are killed when the next serve hands the job back,
// and the job runs again there and completes once, never twice at once.
func TestServeKilledMidJob(t *testing.T) {
	t.Parallel()
	repo := spawnRepo(t)
	w := newWorkerHome(t, "", "")
	w.env = append(w.env, "BARRHAWK_CONFIG="+filepath.Join(w.home, "serve.yaml"))
	if err := os.WriteFile(filepath.Join(w.home, "serve.yaml"), []byte("workers:\n  count: 1\n  db: "+w.db+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	serve := func() *exec.Cmd {
		cmd := exec.Command(bin, "serve")
		cmd.Env, cmd.Dir = w.env, w.home
		stdin, err := cmd.StdinPipe() // held open: serve runs until killed
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	out := t.TempDir()
	script := stuckOnceScript(out)
	id := w.submit("--repo", repo, "--build", script)
	first := serve()
	waitFor(t, "the first attempt to run", func() bool { _, err := os.Stat(filepath.Join(out, "child")); return err == nil })
	child := pidIn(t, out, "child")
	first.Process.Kill()
	first.Wait()
	if !pidAlive(child) {
		t.Fatal("the job's sleep died with serve: this test no longer shows anything")
	}
	serve()
	in := w.status(id)
	if in.State != "completed" || in.Outcome == nil || in.Outcome.Status != "succeeded" || len(in.AttemptedBy) != 2 {
		t.Fatalf("the job after serve was killed: %+v %+v", in, in.Outcome)
	}
	waitFor(t, "the first attempt's sleep to be killed", func() bool { return !pidAlive(child) })
	if b, _ := os.ReadFile(filepath.Join(out, "attempts")); strings.Count(string(b), "\n") != 2 {
		t.Errorf("attempts: %q", b)
	}
}
