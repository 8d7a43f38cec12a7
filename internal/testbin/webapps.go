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
	dir := os.Getenv("BARRHAWK_WEBAPPS")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0) // internal/testbin/webapps.go
		dir = filepath.Join(filepath.Dir(file), "..", "..", ".cache", "webapps", "node_modules")
	}
	for _, w := range want {
		if _, err := os.Stat(filepath.Join(dir, w)); err != nil {
			t.Fatalf("%s is not installed in %s: run scripts/test, which installs the web applications the tests load from the npm registry (or set BARRHAWK_WEBAPPS to a node_modules directory holding them): %v", w, dir, err)
		}
	}
	return dir
}
