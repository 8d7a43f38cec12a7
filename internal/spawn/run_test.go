package spawn

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

func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return dir
}

func fake(t *testing.T) string {
	p, err := filepath.Abs("testdata/fake-claude")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func request(t *testing.T, mode string) Request {
	return Request{Repo: gitRepo(t), Prompt: "add hello", CLI: "claude", CLIPath: fake(t), StateDir: t.TempDir(),
		Commands: []string{"cat", "sleep"}, Env: map[string]string{"FAKE_MODE": mode}, IdleTimeout: 10 * time.Second, TotalTimeout: time.Minute}
}

// A run ends with a branch, its commits (the agent's and one for what it
// left), the changed files and the agent's summary; the sandbox gave it a
// fresh HOME and a PATH of the allowed commands only.
func TestRunCompletes(t *testing.T) {
	t.Parallel()
	req := request(t, "ok")
	// A file in the real HOME: the agent's HOME is another directory.
	home, _ := os.UserHomeDir()
	planted := filepath.Join(home, ".barrhawk-planted-"+strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(planted, []byte("real home"), 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(planted)
	req.Env["FAKE_PLANTED"] = filepath.Base(planted)
	var seen []EventKind
	res, err := Run(context.Background(), req, func(e Event) { seen = append(seen, e.Kind) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "completed" || res.Summary != "Added hello.txt." || res.Branch != "spawn/"+res.ID || res.CostUSD == nil || *res.CostUSD != 0.02 {
		t.Errorf("result: %+v", res)
	}
	if len(res.Commits) != 2 || !strings.Contains(res.Commits[1], "add hello") || strings.Join(res.Changed, ",") != "hello.txt,notes.txt" {
		t.Errorf("commits %v, changed %v", res.Commits, res.Changed)
	}
	if len(seen) < 4 || seen[0] != EventInit {
		t.Errorf("events: %v", seen)
	}
	stream, _ := os.ReadFile(res.StreamLog)
	if !strings.Contains(string(stream), "path="+filepath.Join(req.StateDir, "bin")+" secret=none") || strings.Contains(string(stream), "READ THE REAL HOME") {
		t.Errorf("sandbox: %s", stream)
	}
	// The branch is there, the worktree gone.
	out, err := exec.Command("git", "-C", req.Repo, "log", "--format=%s", "spawn/"+res.ID).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "add hello") {
		t.Errorf("branch: %s %v", out, err)
	}
	if wts, _ := exec.Command("git", "-C", req.Repo, "worktree", "list").CombinedOutput(); strings.Contains(string(wts), "spawn-") {
		t.Errorf("worktree left: %s", wts)
	}
}

// A silent agent is killed at the idle timeout, with its children.
func TestRunIdleTimeoutKillsTheTree(t *testing.T) {
	t.Parallel()
	req := request(t, "silent")
	req.IdleTimeout = 500 * time.Millisecond
	t0 := time.Now()
	res, err := Run(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "idle_timeout" || time.Since(t0) > 10*time.Second {
		t.Errorf("status %s after %v", res.Status, time.Since(t0))
	}
	b, err := os.ReadFile(filepath.Join(req.StateDir, "home", "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		syscall.Wait4(pid, nil, syscall.WNOHANG, nil) //nolint:errcheck // reap it if it is ours
		time.Sleep(20 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) == nil {
		if st, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); !strings.Contains(string(st), ") Z ") {
			t.Errorf("the agent's child %d outlived it", pid)
		}
	}
}

// An agent that keeps talking still stops at the total timeout.
func TestRunTotalTimeout(t *testing.T) {
	t.Parallel()
	req := request(t, "chatty")
	req.IdleTimeout, req.TotalTimeout = 10*time.Second, time.Second
	res, err := Run(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "timeout" || res.Events < 5 {
		t.Errorf("result: %+v", res)
	}
}

func TestRunReportsDenials(t *testing.T) {
	t.Parallel()
	res, err := Run(context.Background(), request(t, "denied"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Denials) != 1 || res.Denials[0].Tool != "Bash" || res.Summary != "I could not run the tests." {
		t.Errorf("result: %+v", res)
	}
}

func TestRunRefusesBadRequests(t *testing.T) {
	r := request(t, "ok")
	r.CLI = "cursor"
	if _, err := Run(context.Background(), r, nil); err == nil || !strings.Contains(err.Error(), "claude or gemini") {
		t.Errorf("unknown CLI: %v", err)
	}
	r = request(t, "ok")
	r.Prompt = ""
	if _, err := Run(context.Background(), r, nil); err == nil {
		t.Error("an empty prompt")
	}
	r = request(t, "ok")
	r.Commands = []string{"no-such-command-xyz"}
	if _, err := Run(context.Background(), r, nil); err == nil || !strings.Contains(err.Error(), "no-such-command-xyz") {
		t.Errorf("a missing command: %v", err)
	}
}

// Gemini CLI's stream: the summary is the assistant's message chunks.
func TestRunGemini(t *testing.T) {
	t.Parallel()
	req := request(t, "")
	req.CLI = "gemini"
	req.CLIPath, _ = filepath.Abs("testdata/fake-gemini")
	res, err := Run(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "completed" || res.Summary != "Writing the greeting." || len(res.Commits) != 1 || res.Changed[0] != "greeting.txt" || res.Usage == nil || res.Usage.OutputTokens != 10 {
		t.Errorf("result: %+v", res)
	}
}

// A CLI with no login fails with what it printed and says how to give it
// one: the agent's HOME is its own, so the user's login is not there.
// Claude Code says so in its stream, Gemini CLI on stderr before any event.
func TestRunWithoutLogin(t *testing.T) {
	t.Parallel()
	req := request(t, "login")
	res, err := Run(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "failed" || !strings.HasPrefix(res.Summary, "Not logged in") || !strings.Contains(res.Summary, "ANTHROPIC_API_KEY") {
		t.Errorf("claude without a login: %+v", res)
	}
	req = request(t, "no-login")
	req.CLI = "gemini"
	req.CLIPath, _ = filepath.Abs("testdata/fake-gemini")
	res, err = Run(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "failed" || !strings.Contains(res.Summary, "exit status 41") || !strings.Contains(res.Summary, "Please set an Auth method") ||
		!strings.Contains(res.Summary, "set GEMINI_API_KEY") {
		t.Errorf("gemini without a login: %+v", res)
	}
}

// A failure's last lines keep the text and lose terminal colours.
func TestTailDropsColours(t *testing.T) {
	var tl tail
	tl.add("\x1b[31mGemini CLI is not running in a trusted directory.\x1b[0m")
	tl.add("   ")
	if got := tl.String(); got != "Gemini CLI is not running in a trusted directory." {
		t.Errorf("tail: %q", got)
	}
}
