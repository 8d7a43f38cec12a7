package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func repo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(dir, "input.txt"), []byte("data\n"), 0o644)
	cmd := exec.Command("git", "-C", dir, "add", ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	cmd = exec.Command("git", "-C", dir, "commit", "-q", "-m", "start")
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	return dir
}

func env(t *testing.T, id string) RunEnv {
	d := t.TempDir()
	return RunEnv{TaskID: id, WorkerID: "w1", ConfigPath: "/etc/barrhawk.yaml", TempDir: filepath.Join(d, "tmp"), LogDir: filepath.Join(d, "logs"),
		ArtifactDir: filepath.Join(d, "artifacts"), KillGrace: 200 * time.Millisecond}
}

func TestCommandJobSucceeds(t *testing.T) {
	t.Setenv("API_TOKEN", "tok-secret-1")
	t.Setenv("ALLOWED_KEY", "fine")
	r := repo(t)
	e := env(t, "42")
	e.EnvAllow = []string{"ALLOWED_KEY"}
	out, err := RunCommand(context.Background(), CommandJob{Repo: r,
		Build: []string{`echo building; cat input.txt; echo "token=${API_TOKEN:-none} allowed=$ALLOWED_KEY task=$BARRHAWK_TASK_ID acode=$ACODE_WORKER_ID wt=$BARRHAWK_WORKTREE_PATH" > report.txt`},
		Test:  []string{`test -f report.txt && echo err >&2`}, Artifacts: []string{"*.txt"}}, e)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != "succeeded" || out.ExitCode != 0 || len(out.Artifacts) != 2 {
		t.Fatalf("outcome: %+v", out)
	}
	report, _ := os.ReadFile(filepath.Join(e.ArtifactDir, "42", "report.txt"))
	if want := "token=none allowed=fine task=42 acode=w1 wt=" + out.Worktree; !strings.HasPrefix(string(report), want) {
		t.Errorf("the job's environment: %q, want %q", report, want)
	}
	log, _ := os.ReadFile(out.Log)
	for _, want := range []string{"$ echo building", "building\ndata\n", "err\n"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if _, err := os.Stat(out.Worktree); !os.IsNotExist(err) || out.CleanupError != "" {
		t.Errorf("the worktree was not removed: %v %s", err, out.CleanupError)
	}
}

func TestCommandJobFails(t *testing.T) {
	t.Parallel()
	e := env(t, "43")
	e.KeepWorktree = true
	out, err := RunCommand(context.Background(), CommandJob{Repo: repo(t), Build: []string{"true"}, Test: []string{"exit 3", "echo never"}}, e)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != "failed" || out.Phase != "test" || out.Command != "exit 3" || out.ExitCode != 3 {
		t.Errorf("outcome: %+v", out)
	}
	if log, _ := os.ReadFile(out.Log); strings.Contains(string(log), "never") {
		t.Errorf("ran past the failure: %s", log)
	}
	if _, err := os.Stat(out.Worktree); err != nil {
		t.Errorf("KeepWorktree: %v", err)
	}
}

// IT-003: the job's timeout stops the whole process tree (SIGTERM to the
// group, then SIGKILL), the outcome says so with exit code 143, and the
// worktree still goes.
func TestIT003TimeoutHandling(t *testing.T) {
	t.Parallel()
	e := env(t, "44")
	t0 := time.Now()
	out, err := RunCommand(context.Background(), CommandJob{Repo: repo(t), Build: []string{`sleep 30 & echo $! > "$TMPDIR/child"; sleep 30`}, Timeout: 500 * time.Millisecond}, e)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != "timeout" || out.ExitCode != 128+int(syscall.SIGTERM) || time.Since(t0) > 10*time.Second {
		t.Errorf("outcome: %+v after %v", out, time.Since(t0))
	}
	b, err := os.ReadFile(filepath.Join(e.TempDir, "child"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		t.Errorf("the command's child %d outlived the timeout", pid)
	}
	if log, _ := os.ReadFile(out.Log); !strings.Contains(string(log), "timeout: stopped (killed by signal SIGTERM") {
		t.Errorf("the job's log does not say it timed out:\n%s", log)
	}
	if _, err := os.Stat(out.Worktree); !os.IsNotExist(err) || out.CleanupError != "" {
		t.Errorf("the worktree outlived the timeout: %v %s", err, out.CleanupError)
	}
	// A command that ignores SIGTERM is killed after the grace.
	e = env(t, "45")
	out, err = RunCommand(context.Background(), CommandJob{Repo: repo(t), Build: []string{`trap '' TERM; echo trapped; while :; do sleep 0.05; done`}, Timeout: 300 * time.Millisecond}, e)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != "timeout" || out.ExitCode != 128+int(syscall.SIGKILL) {
		t.Errorf("a command ignoring SIGTERM: %+v", out)
	}
}

// A build command that leaves a process in the background (a server
// started with &) still holds the job's output: the job goes on to its
// test when the command ends, the leftover is stopped with it, and the
// job does not sit until its timeout.
func TestCommandJobEndsWithItsCommandNotItsBackgroundProcess(t *testing.T) {
	t.Parallel()
	e := env(t, "46")
	out, err := RunCommand(context.Background(), CommandJob{Repo: repo(t), Build: []string{`sleep 300 & echo $! > "$TMPDIR/bg"; echo built`}, Test: []string{"echo tested"}, Timeout: time.Minute}, e)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != "succeeded" || out.ExitCode != 0 {
		t.Fatalf("outcome: %+v (the job waited for its build's background sleep)", out)
	}
	if log, _ := os.ReadFile(out.Log); !strings.Contains(string(log), "built\n$ echo tested\ntested\n") {
		t.Errorf("the job's log:\n%s", log)
	}
	b, err := os.ReadFile(filepath.Join(e.TempDir, "bg"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		t.Errorf("the build's background process %d outlived the job", pid)
	}
}

func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	st, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return !strings.Contains(string(st), ") Z ")
}

func TestCommandJobBadInput(t *testing.T) {
	t.Parallel()
	if _, err := RunCommand(context.Background(), CommandJob{Repo: t.TempDir(), Build: []string{"true"}}, env(t, "1")); err == nil || !strings.Contains(err.Error(), "not inside a git repository") {
		t.Errorf("not a repository: %v", err)
	}
	if _, err := RunCommand(context.Background(), CommandJob{Repo: repo(t)}, env(t, "1")); err == nil || !strings.Contains(err.Error(), "no build or test command") {
		t.Errorf("nothing to run: %v", err)
	}
	if _, err := RunCommand(context.Background(), CommandJob{Repo: repo(t), Ref: "nope", Build: []string{"true"}}, env(t, "1")); err == nil || !strings.Contains(err.Error(), `ref "nope"`) {
		t.Errorf("a bad ref: %v", err)
	}
}

// UT-005: a job's commands get the parent's environment minus its
// secrets (unless allowed), the task variables under both names, the
// worker's own TMPDIR and the job's env, and run in the worktree.
func TestUT005EnvironmentSetup(t *testing.T) {
	got := FilterEnv([]string{"PATH=/bin", "AWS_SECRET_ACCESS_KEY=x", "GITHUB_TOKEN=y", "db_password=z", "MY_CREDENTIALS=w", "HOME=/h", "SSH_KEY=k", "api_key=q"}, []string{"SSH_KEY"})
	if strings.Join(got, ",") != "PATH=/bin,HOME=/h,SSH_KEY=k" {
		t.Errorf("FilterEnv: %v", got)
	}
	t.Setenv("DEPLOY_PASSWORD", "pw-1")
	t.Setenv("MY_SECRET", "s-1")
	t.Setenv("PLAIN_SETTING", "plain")
	e := env(t, "77")
	out, err := RunCommand(context.Background(), CommandJob{Repo: repo(t), Env: map[string]string{"JOB_VAR": "from-job"},
		Build: []string{`env > "$TMPDIR/env.txt"; pwd > "$TMPDIR/pwd.txt"`}}, e)
	if err != nil || out.Status != "succeeded" {
		t.Fatalf("%v %+v", err, out)
	}
	data, err := os.ReadFile(filepath.Join(e.TempDir, "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			vars[k] = v
		}
	}
	for k, want := range map[string]string{
		"BARRHAWK_TASK_ID": "77", "ACODE_TASK_ID": "77", "BARRHAWK_WORKER_ID": "w1", "ACODE_WORKER_ID": "w1",
		"BARRHAWK_WORKTREE_PATH": out.Worktree, "ACODE_WORKTREE_PATH": out.Worktree,
		"BARRHAWK_CONFIG_PATH": "/etc/barrhawk.yaml", "ACODE_CONFIG_PATH": "/etc/barrhawk.yaml",
		"TMPDIR": e.TempDir, "JOB_VAR": "from-job", "PLAIN_SETTING": "plain", "PATH": os.Getenv("PATH"),
	} {
		if vars[k] != want {
			t.Errorf("%s=%q, want %q", k, vars[k], want)
		}
	}
	for _, k := range []string{"DEPLOY_PASSWORD", "MY_SECRET"} {
		if _, ok := vars[k]; ok {
			t.Errorf("the secret %s reached the job", k)
		}
	}
	if pwd, _ := os.ReadFile(filepath.Join(e.TempDir, "pwd.txt")); strings.TrimSpace(string(pwd)) != out.Worktree {
		t.Errorf("ran in %q, not the worktree %s", pwd, out.Worktree)
	}
	if !strings.HasPrefix(out.Worktree, filepath.Join(repoTop(t, out.Worktree), ".barrhawk", "worktrees")) {
		t.Errorf("worktree %s", out.Worktree)
	}
}

// repoTop is the main repository of a worktree path.
func repoTop(t *testing.T, wt string) string {
	t.Helper()
	return filepath.Dir(filepath.Dir(filepath.Dir(wt)))
}

// A worktree left by an earlier attempt of the same job (its worker was
// killed) is replaced by a fresh one, not an error.
func TestCommandJobReplacesAStaleWorktree(t *testing.T) {
	t.Parallel()
	r := repo(t)
	e := env(t, "88")
	e.KeepWorktree = true
	first, err := RunCommand(context.Background(), CommandJob{Repo: r, Build: []string{"echo left-behind > stale.txt"}}, e)
	if err != nil || first.Status != "succeeded" {
		t.Fatalf("%v %+v", err, first)
	}
	e.KeepWorktree = false
	out, err := RunCommand(context.Background(), CommandJob{Repo: r, Build: []string{"test ! -e stale.txt"}}, e)
	if err != nil || out.Status != "succeeded" {
		t.Fatalf("the second attempt: %v %+v", err, out)
	}
	// The earlier attempt's output stays in the log, above this one's.
	log, _ := os.ReadFile(out.Log)
	if !strings.Contains(string(log), "removed the worktree an earlier attempt left") || !strings.Contains(string(log), "echo left-behind") ||
		!strings.Contains(string(log), "=== attempt on worker w1") || strings.Index(string(log), "echo left-behind") > strings.Index(string(log), "=== attempt") {
		t.Errorf("log:\n%s", log)
	}
	if _, err := os.Stat(out.Worktree); !os.IsNotExist(err) {
		t.Errorf("worktree left: %v", err)
	}
}

// The worker's log gets every command's output, is rotated at 10 MB, and
// takes only worker ids as names.
func TestWorkerLog(t *testing.T) {
	dir := t.TempDir()
	if _, err := NewWorkerLog(dir, "../escape"); err == nil || !strings.Contains(err.Error(), "not a worker id") {
		t.Errorf("a bad id: %v", err)
	}
	wl, err := NewWorkerLog(dir, "host-1-2-3")
	if err != nil {
		t.Fatal(err)
	}
	defer wl.Close()
	SetWorkerLog(wl)
	out, err := RunCommand(context.Background(), CommandJob{Repo: repo(t), Build: []string{"echo to-the-worker-log"}}, env(t, "90"))
	SetWorkerLog(nil)
	if err != nil || out.Status != "succeeded" {
		t.Fatalf("%v %+v", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "host-1-2-3.log")); !strings.Contains(string(b), "$ echo to-the-worker-log\nto-the-worker-log\n") {
		t.Errorf("worker log: %q", b)
	}
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for range 11 {
		if _, err := wl.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "host-1-2-3*.log"))
	if len(files) != 2 {
		t.Errorf("after 11 MB: %v, want the log and one rotated file", files)
	}
	if wl.MaxSize != 10 || wl.MaxBackups != 4 {
		t.Errorf("rotation: %d MB, %d backups", wl.MaxSize, wl.MaxBackups)
	}
}

// A job's timeout reads as a duration in JSON (task status, task_status),
// and a queue written before, which kept nanoseconds, still reads.
func TestCommandJobTimeoutJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(CommandJob{Repo: "/r", Timeout: 90 * time.Second})
	if err != nil || string(b) != `{"repo":"/r","timeout":"1m30s"}` {
		t.Fatalf("marshal: %s %v", b, err)
	}
	for in, want := range map[string]time.Duration{
		`{"repo":"/r","timeout":"1m30s"}`:        90 * time.Second,
		`{"repo":"/r","timeout":90000000000}`:    90 * time.Second,
		`{"repo":"/r"}`:                          0,
		`{"repo":"/r","timeout":null,"ref":"x"}`: 0,
	} {
		var j CommandJob
		if err := json.Unmarshal([]byte(in), &j); err != nil || j.Timeout != want || j.Repo != "/r" {
			t.Errorf("%s: %+v %v", in, j, err)
		}
	}
	var j CommandJob
	if err := json.Unmarshal([]byte(`{"timeout":"soon"}`), &j); err == nil || !strings.Contains(err.Error(), "write a duration") {
		t.Errorf("a bad timeout: %v", err)
	}
}
