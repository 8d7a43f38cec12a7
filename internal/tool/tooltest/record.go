package tooltest

import (
	"path/filepath"
	"testing"

	"github.com/barrhawk/barrhawk/internal/record"
)

// UseRecord makes a record in a temporary directory the process's
// (record.Use), as an Igor's is, until the test ends. Tests that call it
// must not be parallel.
func UseRecord(t *testing.T) *record.Store {
	t.Helper()
	record.Use(filepath.Join(t.TempDir(), "record.db"))
	t.Cleanup(func() { record.Use("") })
	s, err := record.Shared()
	if err != nil {
		t.Fatal(err)
	}
	return s
}
