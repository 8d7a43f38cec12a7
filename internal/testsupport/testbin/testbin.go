// Package testbin builds the barrhawk binary once per test process, for
// tests that start real `barrhawk serve` or `barrhawk igor` processes.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/barrhawk/barrhawk/internal/proc"
)

var (
	once sync.Once
	path string
	err  error
)

// Path returns the path of a freshly built barrhawk binary. Remove the
// directory with Cleanup when the tests are done.
func Path() (string, error) {
	once.Do(func() {
		dir, e := os.MkdirTemp("", "barrhawk-test-")
		if e != nil {
			err = e
			return
		}
		path = filepath.Join(dir, "barrhawk")
		out, e := exec.Command("go", "build", "-o", path, "github.com/barrhawk/barrhawk/cmd/barrhawk").CombinedOutput()
		if e != nil {
			err = fmt.Errorf("building barrhawk: %v\n%s", e, out)
		}
	})
	return path, err
}

// Main is a TestMain for packages that start real barrhawk processes: it
// builds the binary into *bin, makes the test process a child subreaper (so
// that killed Igors' orphans come back to it and can be reaped), runs the
// tests and removes the binary.
func Main(m *testing.M, bin *string) {
	var err error
	if *bin, err = Path(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_ = proc.BecomeSubreaper()
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

// Cleanup removes the built binary.
func Cleanup() {
	if path != "" {
		os.RemoveAll(filepath.Dir(path))
	}
}
