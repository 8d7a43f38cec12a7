package testbin

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// AgentCLI is the path of a real agent CLI, claude or gemini: in the
// directory BARRHAWK_AGENT_CLIS names, else where scripts/test installs
// them from the npm registry (.cache/agent-clis of the repository). A CLI
// that is not there fails the test, saying how to install it.
func AgentCLI(t testing.TB, name string) string {
	t.Helper()
	dir := os.Getenv("BARRHAWK_AGENT_CLIS")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0) // internal/testsupport/testbin/agentcli.go
		dir = filepath.Join(filepath.Dir(file), "..", "..", "..", ".cache", "agent-clis", "node_modules", ".bin")
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is not installed at %s: scripts/test installs it from the npm registry (or set BARRHAWK_AGENT_CLIS to a directory holding claude and gemini): %v", name, p, err)
	}
	return p
}
