package record

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/barrhawk/barrhawk/internal/testreport"
)

// Not parallel: Use sets the process's record.
func TestShared(t *testing.T) {
	t.Cleanup(func() { Use("") })
	ctx := context.Background()
	Use("")
	if s, err := Shared(); s != nil || !errors.Is(err, ErrOff) {
		t.Fatalf("off: %v, %v", s, err)
	}
	if imp, err := ImportShared(ctx, []*testreport.Report{{Name: "/nowhere/junit.xml"}}); imp != nil || err != nil {
		t.Errorf("ImportShared off: %v, %v", imp, err)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "a", "record.db")
	Use(path)
	s, err := Shared()
	if err != nil {
		t.Fatal(err)
	}
	if s.Path() != path {
		t.Errorf("path %s", s.Path())
	}
	if again, err := Shared(); again != s || err != nil {
		t.Errorf("second Shared: %p %v, want %p", again, err, s)
	}
	Use(path) // the same file: kept open
	if again, _ := Shared(); again != s {
		t.Error("Use of the same path reopened the record")
	}

	// A file that does not open: the error each time, not retried until
	// Use names another file.
	blocker := filepath.Join(dir, "blocker")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(blocker, "record.db")
	Use(bad)
	if _, err := s.Has(ctx, "x"); err == nil {
		t.Error("the store of the earlier path is still open")
	}
	_, err1 := Shared()
	if err1 == nil {
		t.Fatal("a record under a regular file opened")
	}
	if err := os.Remove(blocker); err != nil {
		t.Fatal(err)
	}
	if _, err2 := Shared(); err2 != err1 {
		t.Errorf("second error %v, want the first %v again", err2, err1)
	}
	Use(path)
	Use(bad)
	s2, err := Shared()
	if err != nil {
		t.Fatalf("after Use named it again: %v", err)
	}
	if s2.Path() != bad {
		t.Errorf("path %s", s2.Path())
	}

	// ImportShared records a report file into it.
	rp := filepath.Join(dir, "junit.xml")
	rep := writeReportFile(t, rp, reportJUnit)
	imp, err := ImportShared(ctx, []*testreport.Report{rep})
	if err != nil || len(imp) != 1 || !imp[0].New {
		t.Fatalf("ImportShared: %+v, %v", imp, err)
	}
	if ok, err := s2.Has(ctx, imp[0].Key); !ok || err != nil {
		t.Errorf("Has: %v %v", ok, err)
	}
}
