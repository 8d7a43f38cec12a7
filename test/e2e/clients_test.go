package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
)

// runCLI runs a client CLI with its own HOME in dir and returns its output.
func runCLI(t *testing.T, home, dir, cli string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "NO_COLOR=1", "CI=true", "BARRHAWK_HOME="+filepath.Join(home, ".barrhawk"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(cli), strings.Join(args, " "), err, out)
	}
	return string(out)
}

// The README's "Connect a client" commands work with the real clients:
// Claude Code and Gemini CLI add barrhawk serve as a stdio MCP server and
// their health checks (`mcp list`: initialize, then the server's tools)
// report it connected.
func TestRealClientsConnect(t *testing.T) {
	t.Parallel()
	t.Run("claude", func(t *testing.T) {
		t.Parallel()
		home, dir := t.TempDir(), t.TempDir()
		claude := testbin.AgentCLI(t, "claude")
		runCLI(t, home, dir, claude, "mcp", "add", "barrhawk", "--", bin, "serve")
		out := runCLI(t, home, dir, claude, "mcp", "list")
		if !strings.Contains(out, "barrhawk") || !strings.Contains(out, "Connected") {
			t.Errorf("claude mcp list:\n%s", out)
		}
	})
	t.Run("gemini", func(t *testing.T) {
		t.Parallel()
		home, dir := t.TempDir(), t.TempDir()
		gemini := testbin.AgentCLI(t, "gemini")
		runCLI(t, home, dir, gemini, "mcp", "add", "barrhawk", bin, "serve")
		// Gemini CLI starts a project's servers only in a folder the user
		// trusts (it asks on first use there).
		if err := os.WriteFile(filepath.Join(home, ".gemini", "trustedFolders.json"), []byte(`{"`+dir+`":"TRUST_FOLDER"}`), 0o600); err != nil {
			t.Fatal(err)
		}
		out := runCLI(t, home, dir, gemini, "mcp", "list")
		if !strings.Contains(out, "barrhawk") || !strings.Contains(out, "Connected") {
			t.Errorf("gemini mcp list:\n%s", out)
		}
	})
}
