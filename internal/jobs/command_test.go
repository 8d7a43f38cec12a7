package jobs

import (
	"context"
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

// The timeout stops the whole process tree.
func TestCommandJobTimeoutKillsTheTree(t *testing.T) {
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

func TestFilterEnv(t *testing.T) {
	got := FilterEnv([]string{"PATH=/bin", "AWS_SECRET_ACCESS_KEY=x", "GITHUB_TOKEN=y", "db_password=z", "MY_CREDENTIALS=w", "HOME=/h", "SSH_KEY=k"}, []string{"SSH_KEY"})
	if strings.Join(got, ",") != "PATH=/bin,HOME=/h,SSH_KEY=k" {
		t.Errorf("%v", got)
	}
}
