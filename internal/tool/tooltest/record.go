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

// UseRecordAt is UseRecord on the record at dsn (a postgres:// URL, say),
// as an Igor of a server sharing a team's record has it.
func UseRecordAt(t *testing.T, dsn string) *record.Store {
	t.Helper()
	record.Use(dsn)
	t.Cleanup(func() { record.Use("") })
	s, err := record.Shared()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Ready(t.Context()); err != nil {
		t.Fatal(err)
	}
	return s
}
