package spawn

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
)

// help runs `cli --help` with a HOME of its own and returns what it printed.
func help(t *testing.T, cli string) string {
	t.Helper()
	path := testbin.AgentCLI(t, cli)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--help")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1", "CI=true")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s --help: %v\n%s", cli, err, out)
	}
	return string(out)
}

// checkAgainstHelp asserts that every flag of args is one the CLI's --help
// lists, and that the values given to flags with fixed choices are among
// the choices it names.
func checkAgainstHelp(t *testing.T, cli, text string, args []string, choiceFlags map[string]bool) {
	t.Helper()
	for i, a := range args {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		flag := regexp.MustCompile(`(^|[\s,])` + regexp.QuoteMeta(a) + `([\s,=<\[]|$)`)
		if !flag.MatchString(text) {
			t.Errorf("%s --help does not list %s (in %q)", cli, a, args)
		}
		if choiceFlags[a] && i+1 < len(args) && !strings.Contains(text, `"`+args[i+1]+`"`) {
			t.Errorf("%s --help names no choice %q for %s", cli, args[i+1], a)
		}
	}
}

// The command lines BarrHawk gives the agent CLIs use only flags and
// choices the real CLIs (the versions scripts/test installs) list in their
// --help, with every option set.
func TestFlagsAreTheCLIsOwn(t *testing.T) {
	t.Parallel()
	full := RunOptions{Model: "m", AllowedTools: []string{"Read", "Bash(go test:*)"}, DisallowedTools: []string{"WebFetch"}, Dirs: []string{"/a", "/b"}}
	t.Run("claude", func(t *testing.T) {
		t.Parallel()
		text := help(t, "claude")
		for _, mode := range []string{"default", "acceptEdits", "plan", "dontAsk"} {
			o := full
			o.PermissionMode = mode
			args, err := ClaudeArgs("fix it", o)
			if err != nil {
				t.Fatalf("mode %s: %v", mode, err)
			}
			checkAgainstHelp(t, "claude", text, args, map[string]bool{"--output-format": true, "--permission-mode": true})
		}
	})
	t.Run("gemini", func(t *testing.T) {
		t.Parallel()
		text := help(t, "gemini")
		for _, mode := range []string{"default", "acceptEdits", "plan"} {
			o := full
			o.PermissionMode = mode
			args, err := GeminiArgs("fix it", o)
			if err != nil {
				t.Fatalf("mode %s: %v", mode, err)
			}
			checkAgainstHelp(t, "gemini", text, args, map[string]bool{"--output-format": true, "--approval-mode": true})
		}
	})
}

// realSpawn runs a spawn of the real CLI r.CLI (installed by scripts/test)
// with moderate recovery and creds as its login, on a fresh repository
// and state directory, and returns the request and the result.
func realSpawn(t *testing.T, r Request, creds map[string]string) (SpawnRequest, *SpawnResult) {
	t.Helper()
	r.Repo, r.StateDir, r.CLIPath = gitRepo(t), t.TempDir(), testbin.AgentCLI(t, r.CLI)
	r.IdleTimeout, r.TotalTimeout = 2*time.Minute, 4*time.Minute
	req := SpawnRequest{Request: r, Recovery: RecoveryModerate, Credentials: creds}
	res, err := Spawn(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req, res
}

// The real Claude Code, in the sandbox, against a model that follows a
// script (fakeModel): its Write is allowed by the manifest's flags, its
// Bash `go version` is refused by the CLI's own permission check (go is no
// allowed command of a repository without go.mod), the denial comes back
// in Claude's permission_denials, moderate recovery allows go, and the
// retry in a fresh sandbox runs it. The run ends completed with the
// model's words, the file committed on the branch, and the key nowhere.
func TestRealClaudeCodeRecovers(t *testing.T) {
	t.Parallel()
	model := newFakeModel(t)
	const key = "sk-ant-fake-3c1f9e2d7a"
	req, res := realSpawn(t, Request{Prompt: "add hello.txt, then check the Go version", CLI: "claude",
		Env: map[string]string{"ANTHROPIC_BASE_URL": model.srv.URL, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}},
		map[string]string{"ANTHROPIC_API_KEY": key})
	seen := model.seen()
	if res.Status != "completed" || res.Attempts != 2 || res.Summary != modelFinal {
		t.Fatalf("result: status %s, %d attempts, summary %q, escalations %+v, unfixed %+v; tool results %+v", res.Status, res.Attempts, res.Summary, res.Escalations, res.Unfixed, seen)
	}
	if len(res.Escalations) != 1 || len(res.Escalations[0].Applied) != 1 || res.Escalations[0].Applied[0] != (Fix{Kind: "command", Value: "go", Reason: res.Escalations[0].Applied[0].Reason}) {
		t.Errorf("escalations: %+v", res.Escalations)
	}
	// Attempt 1: Write ran, Bash was refused; attempt 2: both ran.
	if len(seen) != 4 || seen[0].IsError || !seen[1].IsError || seen[2].IsError || seen[3].IsError || !strings.Contains(seen[3].Content, "go version go1.") {
		t.Errorf("the tool results the model got: %+v", seen)
	}
	if !slices.Contains(res.Changed, "hello.txt") || len(res.Commits) == 0 {
		t.Errorf("changes: %+v commits %+v", res.Changed, res.Commits)
	}
	out, err := exec.Command("git", "-C", req.Repo, "show", res.Branch+":hello.txt").Output()
	if err != nil || string(out) != "hello from the model\n" {
		t.Errorf("hello.txt on %s: %q %v", res.Branch, out, err)
	}
	filepath.WalkDir(req.StateDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), key) {
				t.Errorf("%s holds the key", p)
			}
		}
		return nil
	})
}

// The real Claude Code stays in its sandbox: a credential file of the real
// HOME is refused to its Read by path (with HOME pointing elsewhere, an
// absolute path still resolves), and its Write outside the worktree is
// refused until the path fix of moderate recovery allows that directory
// (Edit(//DIR/**)), after which the retry writes there.
func TestRealClaudeCodeStaysInItsSandbox(t *testing.T) {
	t.Parallel()
	realHome, outside := t.TempDir(), t.TempDir()
	planted := filepath.Join(realHome, ".ssh", "id_test")
	if err := os.MkdirAll(filepath.Dir(planted), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(planted, []byte("PRIVATE KEY 7d1e"), 0o600); err != nil {
		t.Fatal(err)
	}
	model := newFakeModel(t)
	model.script = func(string) []call {
		return []call{
			{"Read", map[string]any{"file_path": planted}},
			{"Write", map[string]any{"file_path": outside + "/out.txt", "content": "outside\n"}},
		}
	}
	_, res := realSpawn(t, Request{Prompt: "look around", CLI: "claude", RealHome: realHome,
		Env: map[string]string{"ANTHROPIC_BASE_URL": model.srv.URL, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}},
		map[string]string{"ANTHROPIC_API_KEY": "sk-ant-fake"})
	seen := model.seen()
	if len(seen) != 4 {
		t.Fatalf("tool results %+v; result %+v", seen, res)
	}
	for _, r := range []toolResult{seen[0], seen[2]} {
		if !r.IsError || strings.Contains(r.Content, "PRIVATE KEY") {
			t.Errorf("the planted key was read: %+v", r)
		}
	}
	if !seen[1].IsError || seen[3].IsError {
		t.Errorf("write outside: refused first, then allowed by the fix: %+v", seen)
	}
	if b, err := os.ReadFile(outside + "/out.txt"); err != nil || string(b) != "outside\n" {
		t.Errorf("out.txt after the fix: %q %v", b, err)
	}
	if res.Attempts != 2 || len(res.Escalations) != 1 || !slices.ContainsFunc(res.Escalations[0].Applied, func(f Fix) bool { return f.Kind == "path" && f.Value == outside }) {
		t.Errorf("escalations: %+v (attempts %d)", res.Escalations, res.Attempts)
	}
	if !slices.Contains(res.Manifest.Tools, "Edit(/"+outside+"/**)") {
		t.Errorf("manifest tools: %v", res.Manifest.Tools)
	}
}

// The real Gemini CLI in the sandbox, against a scripted Gemini API: the
// policy file BarrHawk writes lets it register and use write_file in the
// worktree (headless, it otherwise has no tool that needs approval), its
// shell runs only allowed commands (go is refused by policy at first), the
// refusal is found in its tool result, moderate recovery allows go, and
// the retry runs it.
func TestRealGeminiCLIRecovers(t *testing.T) {
	t.Parallel()
	model := newFakeGemini(t)
	model.script = func(dir string) []call {
		return []call{
			{"write_file", map[string]any{"file_path": dir + "/hello.txt", "content": "hello from gemini\n"}},
			{"run_shell_command", map[string]any{"command": "go version"}},
		}
	}
	req, res := realSpawn(t, Request{Prompt: "add hello.txt, then check the Go version", CLI: "gemini",
		Env: map[string]string{"GOOGLE_GEMINI_BASE_URL": model.srv.URL}},
		map[string]string{"GEMINI_API_KEY": "AIza-fake-0b7c"})
	seen := model.seen()
	if res.Status != "completed" || res.Attempts != 2 || res.Summary != modelFinal {
		t.Fatalf("result: status %s, %d attempts, summary %q, escalations %+v, unfixed %+v; tool results %+v", res.Status, res.Attempts, res.Summary, res.Escalations, res.Unfixed, seen)
	}
	if len(seen) != 4 || seen[0].IsError || !strings.Contains(seen[1].Content, "denied by policy") || seen[2].IsError || !strings.Contains(seen[3].Content, "go version go1.") {
		t.Errorf("the tool results the model got: %+v", seen)
	}
	if len(res.Escalations) != 1 || !slices.ContainsFunc(res.Escalations[0].Applied, func(f Fix) bool { return f.Kind == "command" && f.Value == "go" }) {
		t.Errorf("escalations: %+v", res.Escalations)
	}
	out, err := exec.Command("git", "-C", req.Repo, "show", res.Branch+":hello.txt").Output()
	if err != nil || string(out) != "hello from gemini\n" {
		t.Errorf("hello.txt on %s: %q %v", res.Branch, out, err)
	}
}
