// Package browsertest sets up test binaries whose tests drive the
// browser: the binary can start the browser itself, and the files the
// browser tools write (screenshots, failure pictures, videos) go to
// directories the tests own and remove, never to ~/.barrhawk/screenshots
// nor to a test's directory after that test has ended.
package browsertest

import (
	"os"
	"sync"
	"testing"

	"github.com/barrhawk/barrhawk/internal/browser"
)

var (
	mu     sync.Mutex
	shared string // the binary's own directory, removed when it ends
)

// Main runs the tests of a package that drives the browser; call it from
// TestMain: os.Exit(browsertest.Main(m)).
func Main(m *testing.M) int {
	browser.ExecIfBrowserStart() // this binary starts the browser too
	dir, err := os.MkdirTemp("", "barrhawk-browser-test-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	mu.Lock()
	shared = dir
	mu.Unlock()
	browser.Configure(true, dir, 0)
	return m.Run()
}

// OutputDir points the browser tools' files at a directory of the test's
// own until it ends, then back at the binary's, and returns it. The test
// must not run in parallel with others (the setting is global).
func OutputDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	browser.Configure(true, dir, 0)
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		browser.Configure(true, shared, 0)
	})
	return dir
}
