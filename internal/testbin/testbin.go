// Package testbin builds the barrhawk binary once per test process, for
// tests that start real `barrhawk serve` or `barrhawk igor` processes.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
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

// Cleanup removes the built binary.
func Cleanup() {
	if path != "" {
		os.RemoveAll(filepath.Dir(path))
	}
}
