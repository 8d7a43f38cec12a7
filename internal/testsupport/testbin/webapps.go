package testbin

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// WebApps is the node_modules directory holding the real web applications
// and libraries the browser tests load, installed from the npm registry at
// pinned versions (todomvc, axe-core): the directory BARRHAWK_WEBAPPS
// names, else where scripts/test installs them (.cache/webapps of the
// repository). Each of want (a path inside it, such as
// "axe-core/axe.min.js") that is not there fails the test, saying how to
// install it.
func WebApps(t testing.TB, want ...string) string {
	t.Helper()
	return npmDir(t, "BARRHAWK_WEBAPPS", "webapps", "the web applications the tests load", want)
}

// MCPServers is the node_modules directory holding the real MCP servers
// the gateway tests host (@modelcontextprotocol/server-everything,
// @playwright/mcp), installed from the npm registry at pinned versions:
// the directory BARRHAWK_MCP_SERVERS names, else .cache/mcp-servers of
// the repository, where scripts/test installs them. Each of want that is
// not there fails the test, saying how to install it.
func MCPServers(t testing.TB, want ...string) string {
	t.Helper()
	return npmDir(t, "BARRHAWK_MCP_SERVERS", "mcp-servers", "the MCP servers the gateway tests host", want)
}

// TestRunners is the node_modules directory holding the real test runners
// whose reports the report_* and test_* tools read (@playwright/test,
// jest), installed from the npm registry at pinned versions: the directory
// BARRHAWK_TEST_RUNNERS names, else .cache/test-runners of the repository,
// where scripts/test installs them. Each of want that is not there fails
// the test, saying how to install it.
func TestRunners(t testing.TB, want ...string) string {
	t.Helper()
	return npmDir(t, "BARRHAWK_TEST_RUNNERS", "test-runners", "the test runners whose reports the tests read", want)
}

// npmDir is the node_modules directory env names, else the one under
// .cache/<cache> of the repository; each of want must be inside it.
func npmDir(t testing.TB, env, cache, what string, want []string) string {
	t.Helper()
	dir := os.Getenv(env)
	if dir == "" {
		_, file, _, _ := runtime.Caller(0) // internal/testsupport/testbin/webapps.go
		dir = filepath.Join(filepath.Dir(file), "..", "..", "..", ".cache", cache, "node_modules")
	}
	for _, w := range want {
		if _, err := os.Stat(filepath.Join(dir, w)); err != nil {
			t.Fatalf("%s is not installed in %s: run scripts/test, which installs %s from the npm registry (or set %s to a node_modules directory holding them): %v", w, dir, what, env, err)
		}
	}
	return dir
}
