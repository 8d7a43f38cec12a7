package spawn

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// agentCLIs is the directory holding the real claude and gemini
// commands: BARRHAWK_AGENT_CLIS, else the one scripts/test installs them
// into from the npm registry.
func agentCLIs(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("BARRHAWK_AGENT_CLIS"); d != "" {
		return d
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, ".cache", "agent-clis", "node_modules", ".bin")
}

// help runs `cli --help` with a HOME of its own and returns what it printed.
func help(t *testing.T, cli string) string {
	t.Helper()
	path := filepath.Join(agentCLIs(t), cli)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is not installed at %s: scripts/test installs it from the npm registry (or set BARRHAWK_AGENT_CLIS to a directory holding claude and gemini): %v", cli, path, err)
	}
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
