package record

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/testreport"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Imported tells what became of one report file given to ImportReports.
type Imported struct {
	// Path is the report file's path.
	Path string `json:"path"`
	// RunID is the report's run in the record.
	RunID int64 `json:"runId"`
	// Key is the run's key: "report:" and a hash of the file's path, size
	// and modification time (and, in a PostgreSQL record that machines
	// share, the host's name).
	Key string `json:"key"`
	// New is false when the same file (same path, size and modification
	// time) was recorded before, by this call or an earlier one.
	New bool `json:"new"`
	// Tests is the number of test results the report holds.
	Tests int `json:"tests"`
}

// ImportReports records each report read from a file as a run of kind
// RunReport, once: the same file read again (by another tool, another
// call) is found by its key and left as it is, while a file written anew
// (another size or modification time) is a new run. Reports given inline
// (Name not an absolute path) have no identity and are left out.
//
// Each result is a test named suite > title (the name its history is kept
// under), of kind KindReport: passed, failed, skipped (a pending one
// too), or flaky when it passed after failed attempts. Its message is the
// error, its output the stack and captured output (cut to OutputCut), and
// its attachments its evidence (screenshots as "screenshot", others as
// "file"), relative paths taken from the report's directory.
//
// It goes on past a report that fails and returns what it recorded with
// the errors joined. Each report gets its RecordRun, or the RecordError
// that kept it out.
func ImportReports(ctx context.Context, s *Store, reps []*testreport.Report) ([]Imported, error) {
	out := []Imported{}
	var errs []error
	for _, rep := range reps {
		if !recordable(rep) {
			continue
		}
		imp, err := importReport(ctx, s, rep)
		if err != nil {
			rep.RecordError = err.Error()
			if ctx.Err() != nil {
				return out, errors.Join(append(errs, err)...)
			}
			errs = append(errs, err)
			continue
		}
		rep.RecordRun = imp.RunID
		out = append(out, imp)
	}
	return out, errors.Join(errs...)
}

// recordable reports whether rep is a file, which has an identity in the
// record; text given inline has none.
func recordable(rep *testreport.Report) bool { return rep != nil && filepath.IsAbs(rep.Name) }

// ImportShared imports reps into the record set by Use (ImportReports).
// With the record off it does nothing and returns no error; when the
// record does not open, each report file says so (RecordError).
func ImportShared(ctx context.Context, reps []*testreport.Report) ([]Imported, error) {
	s, err := Shared()
	if errors.Is(err, ErrOff) {
		return nil, nil
	}
	if err != nil {
		for _, rep := range reps {
			if recordable(rep) {
				rep.RecordError = "the record did not open: " + err.Error()
			}
		}
		return nil, err
	}
	return ImportReports(ctx, s, reps)
}

// ReportKey is the key of the run of a report file: "report:" and the hex
// SHA-256 of its absolute path, size and modification time.
func ReportKey(path string, size int64, mod time.Time) string {
	h := sha256.New()
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write([]byte(strconv.FormatInt(size, 10)))
	h.Write([]byte{0})
	h.Write([]byte(strconv.FormatInt(mod.UnixNano(), 10)))
	return "report:" + hex.EncodeToString(h.Sum(nil))
}

func importReport(ctx context.Context, s *Store, rep *testreport.Report) (Imported, error) {
	fi, err := os.Stat(rep.Name)
	if err != nil {
		return Imported{}, fmt.Errorf("record: import %s: %w", rep.Name, err)
	}
	key := ReportKey(rep.Name, fi.Size(), fi.ModTime())
	if s.Dialect() == "postgres" {
		// A shared record: the same path on two machines (a CI
		// workspace) is two files.
		key = ReportKey(s.origin.Host+":"+rep.Name, fi.Size(), fi.ModTime())
	}
	imp := Imported{Path: rep.Name, Key: key, Tests: len(rep.Results)}
	// Most reads are of a file recorded before: look before converting.
	err = s.db.QueryRowContext(ctx, `SELECT id FROM runs WHERE key = ?`, key).Scan(&imp.RunID)
	if err == nil {
		return imp, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return Imported{}, fmt.Errorf("record: import %s: %w", rep.Name, err)
	}
	run, tests := reportRun(rep, fi.ModTime())
	imp.RunID, imp.New, err = s.ImportRun(ctx, key, run, tests)
	if err != nil {
		return Imported{}, fmt.Errorf("record: import %s: %w", rep.Name, err)
	}
	return imp, nil
}

// reportRun is the run and the tests of a report read from a file
// modified at mod.
func reportRun(rep *testreport.Report, mod time.Time) (Run, []*Test) {
	start := rep.Started
	if start.IsZero() {
		start = mod
	}
	dir := filepath.Dir(rep.Name)
	tests := make([]*Test, 0, len(rep.Results))
	at := start
	for i := range rep.Results {
		t := reportTest(&rep.Results[i], dir)
		t.Time = at
		at = at.Add(time.Duration(t.DurationMs * float64(time.Millisecond)))
		tests = append(tests, t)
	}
	run := Run{Kind: RunReport, Name: filepath.Base(rep.Name) + " (" + string(rep.Format) + ")", Source: rep.Name,
		Started: start, Ended: at}
	return run, tests
}

// reportTest is one result of a report as a test of the record; dir is
// the report's directory, which relative attachment paths are in.
func reportTest(r *testreport.Result, dir string) *Test {
	t := &Test{Name: r.ID(), Suite: r.Suite, Kind: KindReport, Message: r.Error}
	if r.HasDuration {
		t.DurationMs = r.DurationMs
	}
	if t.Message == "" && r.ErrorType != "" {
		t.Message = r.ErrorType
	}
	switch r.Status {
	case testreport.Passed:
		t.Status = StatusPassed
		if first := failedAttempt(r); r.Flaky || first != nil {
			t.Status = StatusFlaky
			t.Message = fmt.Sprintf("passed after %d retries", r.Retries)
			if r.Retries == 1 {
				t.Message = "passed after 1 retry"
			}
			if first != nil && first.Error != "" {
				t.Message += "; first failure: " + first.Error
			}
			if first != nil {
				t.Output = first.Stack
			}
		}
	case testreport.Failed:
		t.Status = StatusFailed
		t.Output = joinText(r.Stack, r.Output)
	case testreport.Skipped, testreport.Pending:
		t.Status = StatusSkipped
	default:
		t.Status = StatusFailed
	}
	t.Message, t.Output = tool.Shorten(t.Message, OutputCut), tool.Shorten(t.Output, OutputCut)
	for _, a := range r.Attachments {
		if e, ok := reportEvidence(a, dir); ok {
			t.Evidence = append(t.Evidence, e)
		}
	}
	return t
}

// failedAttempt is the first earlier attempt of a retried test that
// failed, or nil.
func failedAttempt(r *testreport.Result) *testreport.Attempt {
	if r.Retries == 0 {
		return nil
	}
	for i := range r.Attempts {
		if r.Attempts[i].Status == testreport.Failed {
			return &r.Attempts[i]
		}
	}
	return nil
}

// joinText joins the non-empty texts with a blank line.
func joinText(texts ...string) string {
	var parts []string
	for _, s := range texts {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

// reportEvidence is an attachment as evidence: false for one that is not
// a file (no path, a URL).
func reportEvidence(a testreport.Attachment, dir string) (Evidence, bool) {
	p := strings.TrimSpace(a.Path)
	if p == "" || strings.Contains(p, "://") {
		return Evidence{}, false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	e := Evidence{Kind: "file", Name: a.Name, Path: p, MIMEType: a.ContentType}
	if e.Name == "" {
		e.Name = filepath.Base(p)
	}
	if e.MIMEType == "" {
		e.MIMEType = mimeOf(p)
	}
	if strings.HasPrefix(e.MIMEType, "image/") {
		e.Kind = "screenshot"
	}
	return e, true
}

// FileImport says how ImportFile records a report file.
type FileImport struct {
	// Name is the run's name (default: the file's base name and format).
	Name string
	// Origin is laid over the store's (Origin.With): a branch or commit
	// given on the command line wins over what the CI says.
	Origin Origin
	// Format is the reports' format; "" tells each one's from its content.
	Format testreport.Format
}

// FileImported is what ImportFile recorded.
type FileImported struct {
	Imported
	Format  testreport.Format `json:"format"`
	Passed  int               `json:"passed"`
	Failed  int               `json:"failed"`
	Skipped int               `json:"skipped"`
	Origin  Origin            `json:"origin"`
}

// ImportFile records the report in the file at path (JUnit XML, TAP, go
// test -json, Playwright or Jest JSON, told apart by its content) as one
// run of kind RunReport, keyed by the SHA-256 of its content: the same
// file imported again, from any machine, is the same run (New false). A
// file that cannot be read or is not a report is an error naming the
// file, and the line for a report that does not parse.
func ImportFile(ctx context.Context, s *Store, path string, o FileImport) (FileImported, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return FileImported{}, fmt.Errorf("%s: %w", path, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return FileImported{}, fmt.Errorf("%s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return FileImported{}, fmt.Errorf("%s is not a regular file; give a report file (JUnit XML, TAP, go test -json, Playwright or Jest JSON)", path)
	}
	if fi.Size() > testreport.MaxFileBytes {
		return FileImported{}, fmt.Errorf("%s: %d bytes, over the %d a report may have (testreport.MaxFileBytes)", path, fi.Size(), int64(testreport.MaxFileBytes))
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return FileImported{}, fmt.Errorf("%s: %w", path, err)
	}
	rep, err := testreport.Parse(ctx, bytes.NewReader(data), abs, o.Format)
	if err != nil {
		return FileImported{}, err // a ParseError names the file and the line
	}
	sum := sha256.Sum256(data)
	key := "import:" + hex.EncodeToString(sum[:])
	run, tests := reportRun(rep, fi.ModTime())
	if o.Name != "" {
		run.Name = o.Name
	}
	run.Origin = s.origin.With(o.Origin)
	out := FileImported{Imported: Imported{Path: abs, Key: key, Tests: len(tests)}, Format: rep.Format, Origin: run.Origin}
	if out.RunID, out.New, err = s.ImportRun(ctx, key, run, tests); err != nil {
		return FileImported{}, fmt.Errorf("%s: %w", path, err)
	}
	for _, t := range tests {
		switch t.Status {
		case StatusFailed:
			out.Failed++
		case StatusSkipped:
			out.Skipped++
		default:
			out.Passed++
		}
	}
	if !out.New { // as it was recorded the first time
		if r, err := s.RunInfo(ctx, out.RunID); err == nil {
			out.Origin = r.Origin
		}
	}
	return out, nil
}
