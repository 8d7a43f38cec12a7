package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
)

// Claude Code itself (the real CLI from the npm registry; no model is
// needed to manage MCP servers) adds BarrHawk with the gateway on and an
// upstream configured, and sees it connected; the .mcp.json and
// ~/.claude.json it writes are what mcp_discover reads.
func TestGatewayClaudeCode(t *testing.T) {
	t.Parallel()
	claude := testbin.AgentCLI(t, "claude")
	home := t.TempDir()
	cfg := filepath.Join(home, "barrhawk-gateway.yaml")
	if err := os.WriteFile(cfg, []byte(everythingYAML(t, "", "everything")), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startWith(t, nil, "", "HOME="+home)
	proj := s.home // the server's working directory: the project
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(claude, args...)
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "HOME="+home, "CI=true", "DISABLE_AUTOUPDATER=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("mcp", "add", "barrhawk", "-e", "BARRHAWK_CONFIG="+cfg, "-e", "BARRHAWK_HOME="+filepath.Join(home, ".barrhawk-claude"), "--", bin, "serve")
	run("mcp", "add", "--scope", "project", "everything", "--", everythingBin(t), "stdio")
	list := run("mcp", "list")
	// A project's .mcp.json servers wait for the user's approval in
	// Claude Code; listed all the same.
	for _, want := range []string{"barrhawk: " + bin + " serve - ✔ Connected", "everything: " + everythingBin(t) + " stdio"} {
		if !strings.Contains(list, want) {
			t.Errorf("claude mcp list does not say %q:\n%s", want, list)
		}
	}
	if _, err := os.Stat(filepath.Join(proj, ".mcp.json")); err != nil {
		t.Fatalf("claude mcp add --scope project wrote no .mcp.json: %v", err)
	}
	found := s.mustCall("mcp_discover", map[string]any{})
	out := fmt.Sprint(found)
	for _, want := range []string{"name:everything", "name:barrhawk", "client:claude-code", filepath.Join(proj, ".mcp.json"), "BARRHAWK_CONFIG:[REDACTED]"} {
		if !strings.Contains(out, want) {
			t.Errorf("mcp_discover does not show %q: %s", want, out)
		}
	}
	reg := s.mustCall("mcp_discover", map[string]any{"register": true, "names": []string{"everything"}})
	if fmt.Sprint(reg["registered"]) != "[everything]" {
		t.Fatalf("register: %v", reg)
	}
	if out, isErr := s.call("everything__echo", map[string]any{"message": "from claude's file"}); isErr || out != "Echo: from claude's file" {
		t.Errorf("a discovered server's tool: %v %s", isErr, out)
	}
}
