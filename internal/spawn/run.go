package spawn

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/worktree"
)

// Timeouts of a run (the improbability drive's defaults).
const (
	DefaultIdleTimeout  = 120 * time.Second
	DefaultTotalTimeout = 30 * time.Minute
	// stopGrace is how long a stopped agent gets before SIGKILL.
	stopGrace = 2 * time.Second
)

// Request is one sub-agent run.
type Request struct {
	// ID names the run (branch spawn/<ID>); made up when empty.
	ID string
	// Repo is a directory inside the repository to work on; Ref the commit
	// the branch starts from (HEAD when empty).
	Repo, Ref string
	Prompt    string
	// CLI is "claude" or "gemini"; CLIPath the executable to run.
	CLI, CLIPath string
	Options      RunOptions
	IdleTimeout  time.Duration
	TotalTimeout time.Duration
	// Commands are the commands the agent may run: they alone are on its
	// PATH (git is always there).
	Commands []string
	// Env is added to the agent's otherwise empty environment.
	Env map[string]string
	// RealHome is the user's own HOME, whose credential files the
	// agent's file tools are refused (os.UserHomeDir when empty).
	RealHome string
	// StateDir keeps the run's files: the agent's HOME, its PATH, the raw
	// stream and stderr.
	StateDir string
	// Redact removes secrets from what the run keeps or reports (the
	// stream, stderr, event texts, the summary); nil keeps text as it is.
	Redact func(string) string
}

// Result is how a run ended.
type Result struct {
	ID         string   `json:"id"`
	Status     string   `json:"status"` // completed, failed, idle_timeout, timeout, cancelled
	Summary    string   `json:"summary"`
	Branch     string   `json:"branch"`
	Commits    []string `json:"commits"`
	Changed    []string `json:"changedFiles"`
	Denials    []Denial `json:"denials,omitempty"`
	Usage      *Usage   `json:"usage,omitempty"`
	CostUSD    *float64 `json:"costUsd,omitempty"`
	ExitStatus string   `json:"exitStatus"`
	DurationMs int64    `json:"durationMs"`
	Events     int      `json:"events"`
	StreamLog  string   `json:"streamLog"`
	StderrLog  string   `json:"stderrLog"`
}

// Run runs one agent in a fresh worktree on branch spawn/<id>, in a
// sandbox: HOME is a new directory, PATH holds only the allowed commands,
// the environment is empty but for what the request adds. Each event is
// passed to onEvent as it comes. The agent is killed, with its whole
// process tree, at the idle timeout (no output for that long), at the total
// timeout, or when ctx ends. Afterwards what it left uncommitted is
// committed, the worktree removed and the branch kept.
func Run(ctx context.Context, req Request, onEvent func(Event)) (*Result, error) {
	if req.ID == "" {
		req.ID = strings.ToLower(rand.Text()[:10])
	}
	if req.StateDir == "" {
		return nil, errors.New("spawn: no state directory")
	}
	if req.CLI == "gemini" {
		req.Options.PolicyFile = filepath.Join(req.StateDir, "policy.toml")
		if err := geminiPolicy(req.Options.PolicyFile, append([]string{"git"}, req.Commands...)); err != nil {
			return nil, err
		}
	}
	parse, args, err := command(req)
	if err != nil {
		return nil, err
	}
	if req.IdleTimeout <= 0 {
		req.IdleTimeout = DefaultIdleTimeout
	}
	if req.TotalTimeout <= 0 {
		req.TotalTimeout = DefaultTotalTimeout
	}
	red := req.Redact
	if red == nil {
		red = func(s string) string { return s }
	}
	m, err := worktree.New(ctx, req.Repo, "")
	if err != nil {
		return nil, err
	}
	wt, err := m.CreateOn(ctx, "spawn-"+req.ID, "spawn/"+req.ID, req.Ref)
	if err != nil {
		return nil, err
	}
	res := &Result{ID: req.ID, Branch: "spawn/" + req.ID}
	defer func() { _ = m.Remove(context.WithoutCancel(ctx), "spawn-"+req.ID, true) }()
	env, err := sandbox(req)
	if err != nil {
		return nil, err
	}
	res.StreamLog, res.StderrLog = filepath.Join(req.StateDir, "stream.jsonl"), filepath.Join(req.StateDir, "stderr.log")
	stream, err := os.Create(res.StreamLog)
	if err != nil {
		return nil, err
	}
	defer stream.Close()
	stderrLog, err := os.Create(res.StderrLog)
	if err != nil {
		return nil, err
	}
	defer stderrLog.Close()

	name, args, err := viaInterpreter(req.CLIPath, args)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = wt.Path, env
	// Pipes of our own: proc.Start waits for the process at once, and
	// exec.Cmd's own pipes would be closed by that Wait before all the
	// output is read.
	stdout, stdoutW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer stdout.Close()
	stderr, stderrW, err := os.Pipe()
	if err != nil {
		stdoutW.Close()
		return nil, err
	}
	defer stderr.Close()
	cmd.Stdout, cmd.Stderr = stdoutW, stderrW
	start := time.Now()
	p, err := proc.Start(cmd)
	stdoutW.Close() // the child holds its own copies
	stderrW.Close()
	if err != nil {
		return nil, fmt.Errorf("start the agent %s: %w", req.CLIPath, err)
	}
	activity := make(chan struct{}, 1)
	touch := func() {
		select {
		case activity <- struct{}{}:
		default:
		}
	}
	var mu sync.Mutex
	var texts []string
	// What the CLI printed that was no event (stdout) and its stderr, the
	// last lines of each: a CLI that fails before streaming says why there.
	var plain, errTail tail
	var wg sync.WaitGroup
	wg.Go(func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			touch()
			line := sc.Bytes()
			stream.WriteString(red(string(line)) + "\n") //nolint:errcheck // the debug copy; the run goes on
			evs, err := parse(line)
			if err != nil {
				mu.Lock()
				plain.add(red(string(line)))
				mu.Unlock()
				continue // not an event: kept in the raw stream only
			}
			for i := range evs {
				evs[i].Text = red(evs[i].Text)
				evs[i].Raw = nil // the raw line may hold a secret; the stream file has it redacted
			}
			mu.Lock()
			for _, e := range evs {
				res.Events++
				switch e.Kind {
				case EventText:
					texts = append(texts, e.Text)
				case EventResult:
					if e.Text != "" {
						res.Summary = e.Text
					}
					res.Denials, res.Usage, res.CostUSD = e.Denials, e.Usage, e.CostUSD
					if e.IsError {
						res.Status = "failed"
					}
				}
			}
			mu.Unlock()
			if onEvent != nil {
				for _, e := range evs {
					onEvent(e)
				}
			}
		}
	})
	wg.Go(func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			touch()
			line := red(sc.Text())
			stderrLog.WriteString(line + "\n") //nolint:errcheck // a log; the run goes on
			mu.Lock()
			errTail.add(line)
			mu.Unlock()
		}
	})

	// The timers: idle (reset by any output) and total. Driven by timers,
	// never by output arriving.
	idle := time.NewTimer(req.IdleTimeout)
	total := time.NewTimer(req.TotalTimeout)
	defer idle.Stop()
	defer total.Stop()
	stopped := ""
wait:
	for {
		select {
		case <-p.Done():
			break wait
		case <-activity:
			if !idle.Stop() {
				select {
				case <-idle.C:
				default:
				}
			}
			idle.Reset(req.IdleTimeout)
		case <-idle.C:
			stopped = "idle_timeout"
			p.Stop(stopGrace)
		case <-total.C:
			stopped = "timeout"
			p.Stop(stopGrace)
		case <-ctx.Done():
			stopped = "cancelled"
			p.Stop(stopGrace)
		}
	}
	// The output ends with the process group; a descendant that left the
	// group could hold it open, so it is read for 2 s more at most.
	readers := make(chan struct{})
	go func() { wg.Wait(); close(readers) }()
	select {
	case <-readers:
	case <-time.After(2 * time.Second):
		stdout.Close()
		stderr.Close()
		<-readers
	}
	res.DurationMs = time.Since(start).Milliseconds()
	res.ExitStatus = p.ExitStatus()
	mu.Lock()
	if res.Summary == "" {
		res.Summary = strings.TrimSpace(strings.Join(texts, ""))
	}
	switch {
	case stopped != "":
		res.Status = stopped
	case res.Status == "":
		res.Status = "completed"
		if p.Err() != nil {
			res.Status = "failed"
		}
	}
	if res.Status == "failed" {
		res.Summary = failure(req.CLI, res.Summary, res.ExitStatus, plain.String(), errTail.String())
	}
	mu.Unlock()
	if err := collect(context.WithoutCancel(ctx), wt, req.ID, res); err != nil {
		return res, err
	}
	return res, nil
}

// command picks the parser and the command line of the request's CLI.
func command(req Request) (Parser, []string, error) {
	if req.Prompt == "" {
		return nil, nil, errors.New("spawn: an empty prompt")
	}
	switch req.CLI {
	case "claude", "":
		a, err := ClaudeArgs(req.Prompt, req.Options)
		return ParseClaude, a, err
	case "gemini":
		a, err := GeminiArgs(req.Prompt, req.Options)
		return ParseGemini, a, err
	}
	return nil, nil, fmt.Errorf("spawn: unknown CLI %q; use claude or gemini", req.CLI)
}

// sandbox makes the agent's HOME and PATH and returns its environment:
// empty but for HOME, PATH, a locale, git's identity and the request's Env.
func sandbox(req Request) ([]string, error) {
	home := filepath.Join(req.StateDir, "home")
	bin := filepath.Join(req.StateDir, "bin")
	for _, d := range []string{home, bin} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("spawn sandbox: %w", err)
		}
	}
	commands := append([]string{"git"}, req.Commands...)
	if req.CLI == "gemini" {
		// Gemini CLI's run_shell_command starts `bash -c` from PATH; which
		// commands it may run, its policy says (geminiPolicy).
		commands = append(commands, "bash")
	}
	for _, c := range commands {
		path, err := exec.LookPath(c)
		if err != nil {
			return nil, fmt.Errorf("spawn sandbox: the allowed command %q is not installed", c)
		}
		link := filepath.Join(bin, filepath.Base(c))
		if _, err := os.Lstat(link); err == nil {
			continue
		}
		if err := os.Symlink(path, link); err != nil {
			return nil, fmt.Errorf("spawn sandbox: %w", err)
		}
	}
	env := []string{"HOME=" + home, "PATH=" + bin, "LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1", "BARRHAWK_SPAWN_ID=" + req.ID,
		"GIT_AUTHOR_NAME=barrhawk-spawn", "GIT_AUTHOR_EMAIL=spawn@barrhawk.invalid",
		"GIT_COMMITTER_NAME=barrhawk-spawn", "GIT_COMMITTER_EMAIL=spawn@barrhawk.invalid", "GIT_TERMINAL_PROMPT=0"}
	if req.CLI == "gemini" {
		// Headless Gemini CLI refuses a folder nobody trusted; the worktree
		// is the one made for this run, of the repository the user named.
		env = append(env, "GEMINI_CLI_TRUST_WORKSPACE=true")
		if err := geminiSettings(home, req.Env); err != nil {
			return nil, fmt.Errorf("spawn sandbox: %w", err)
		}
	}
	for k, v := range req.Env {
		env = append(env, k+"="+v)
	}
	return env, nil
}

// collect commits what the agent left, then lists the branch's commits
// and changed files since the worktree's start.
func collect(ctx context.Context, wt *worktree.Worktree, id string, res *Result) error {
	gitIn := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = wt.Path
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=barrhawk-spawn", "GIT_AUTHOR_EMAIL=spawn@barrhawk.invalid",
			"GIT_COMMITTER_NAME=barrhawk-spawn", "GIT_COMMITTER_EMAIL=spawn@barrhawk.invalid")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return string(out), nil
	}
	if st, err := gitIn("status", "--porcelain"); err == nil && strings.TrimSpace(st) != "" {
		if _, err := gitIn("add", "-A"); err != nil {
			return err
		}
		if _, err := gitIn("commit", "-q", "-m", "spawn "+id+": changes the agent left uncommitted"); err != nil {
			return err
		}
	}
	out, err := gitIn("log", "--format=%H %s", wt.Head+"..HEAD")
	if err != nil {
		return err
	}
	res.Commits = nonEmpty(strings.Split(out, "\n"))
	out, err = gitIn("diff", "--name-only", wt.Head, "HEAD")
	if err != nil {
		return err
	}
	res.Changed = nonEmpty(strings.Split(out, "\n"))
	return nil
}

func nonEmpty(ss []string) []string {
	out := []string{}
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// lookPath finds a CLI on PATH.
func lookPath(name string) (string, error) { return exec.LookPath(name) }

// tail keeps the last lines of an output, at most tailLines of them.
type tail struct{ lines []string }

const tailLines = 20

// ansi matches terminal escape sequences (colours), which a CLI may print
// even when told not to.
var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

func (t *tail) add(line string) {
	line = ansi.ReplaceAllString(line, "")
	if strings.TrimSpace(line) == "" {
		return
	}
	if len(line) > 500 {
		line = strings.ToValidUTF8(line[:500], "") + "…"
	}
	if len(t.lines) == tailLines {
		t.lines = append(t.lines[:0], t.lines[1:]...)
	}
	t.lines = append(t.lines, line)
}

func (t *tail) String() string { return strings.Join(t.lines, "\n") }

// loginHints says, per CLI, how to give an agent whose HOME is a fresh
// directory a login: the user's own (~/.claude, ~/.gemini) is out of its
// reach by design.
var loginHints = map[string]string{
	"claude": "set ANTHROPIC_API_KEY, or CLAUDE_CODE_OAUTH_TOKEN (from `claude setup-token`), in BarrHawk's environment, spawn.secretsDir or spawn.secrets",
	"gemini": "set GEMINI_API_KEY (or GOOGLE_API_KEY) in BarrHawk's environment, spawn.secretsDir or spawn.secrets",
}

// notLoggedIn matches what the CLIs print when they have no credentials.
var notLoggedIn = []string{"not logged in", "please run /login", "invalid api key", "authentication_failed", "set an auth method", "gemini_api_key"}

// failure is the summary of a failed run: the agent's last words, or, when
// the CLI stopped before saying anything, its exit status and the last
// lines it printed; with a hint when it had no login.
func failure(cli, summary, exit, plain, stderr string) string {
	if summary == "" {
		var b strings.Builder
		fmt.Fprintf(&b, "the %s CLI ended (%s) without a result", cliName(cli), exit)
		for _, out := range []string{plain, stderr} {
			if out != "" {
				b.WriteString(":\n" + out)
			}
		}
		summary = b.String()
	}
	all := strings.ToLower(summary + "\n" + plain + "\n" + stderr)
	for _, p := range notLoggedIn {
		if strings.Contains(all, p) {
			return summary + "\n(the agent runs with a HOME of its own, so your own login is out of its reach: " + loginHints[cliName(cli)] + "; it goes to the CLI's environment alone and is redacted everywhere)"
		}
	}
	return summary
}

func cliName(cli string) string {
	if cli == "" {
		return "claude"
	}
	return cli
}

// viaInterpreter is how to start a CLI that is a script: Gemini CLI is
// `#!/usr/bin/env node`, and node is not on the sandbox's PATH (nor should
// it be, for the agent's own commands), so a script whose first line names
// an interpreter through env is started by that interpreter, found on
// BarrHawk's PATH. Anything else is started as it is.
func viaInterpreter(cli string, args []string) (string, []string, error) {
	f, err := os.Open(cli)
	if err != nil {
		return "", nil, fmt.Errorf("the agent CLI %s: %w", cli, err)
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := f.Read(head)
	line, _, _ := strings.Cut(string(head[:n]), "\n")
	if !strings.HasPrefix(line, "#!") {
		return cli, args, nil
	}
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(fields) < 2 || filepath.Base(fields[0]) != "env" {
		return cli, args, nil // an absolute interpreter: the kernel finds it
	}
	rest := fields[1:]
	if rest[0] == "-S" {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return cli, args, nil
	}
	interp, err := exec.LookPath(rest[0])
	if err != nil {
		return "", nil, fmt.Errorf("the agent CLI %s runs on %s, which is not installed: %w", cli, rest[0], err)
	}
	return interp, append(append(rest[1:len(rest):len(rest)], cli), args...), nil
}

// geminiSettings writes the settings of Gemini CLI in the agent's HOME:
// no usage statistics sent from the sandbox, and, given GEMINI_API_KEY,
// the API key as its way to log in (chosen outright: otherwise a
// GOOGLE_GEMINI_BASE_URL, for a gateway, makes it pick an auth type that
// headless mode refuses).
func geminiSettings(home string, env map[string]string) error {
	settings := map[string]any{"privacy": map[string]any{"usageStatisticsEnabled": false}}
	if env["GEMINI_API_KEY"] != "" {
		settings["security"] = map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}
	}
	b, err := json.Marshal(settings)
	if err != nil {
		return err
	}
	dir := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "settings.json"), b, 0o600)
}

// geminiPolicy writes the policy-engine rules of a Gemini CLI run: its file
// editing tools allowed (Gemini keeps them inside its workspace: the
// worktree and the included directories), and its shell for exactly the
// allowed commands. Headless, Gemini CLI registers no tool that would
// need an approval, so without these the agent could not write a file.
func geminiPolicy(path string, commands []string) error {
	quoted := make([]string, len(commands))
	for i, c := range commands {
		q, err := json.Marshal(c) // a TOML basic string is a JSON string here
		if err != nil {
			return err
		}
		quoted[i] = string(q)
	}
	policy := "# BarrHawk spawn: what this run's agent may do without asking.\n" +
		"[[rule]]\ntoolName = [\"write_file\", \"replace\"]\ndecision = \"allow\"\npriority = 100\n\n" +
		"[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = [" + strings.Join(quoted, ", ") + "]\ndecision = \"allow\"\npriority = 100\n"
	if err := os.WriteFile(path, []byte(policy), 0o600); err != nil {
		return fmt.Errorf("spawn: the Gemini policy: %w", err)
	}
	return nil
}
