package record

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/testreport"
)

// reportJUnit is a Surefire-style report: a pass, a failure with a
// screenshot and a log, a skip, a todo and a test that passed on a rerun.
const reportJUnit = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="login" tests="5" failures="1" skipped="2" timestamp="2026-03-04T10:00:00Z">
    <testcase classname="login" name="accepts a good password" time="0.5"/>
    <testcase classname="login" name="refuses a bad password" time="1.25">
      <failure message="expected 401, got 200" type="AssertionError">at login.test.js:12:3</failure>
      <system-out>posting the form
[[ATTACHMENT|shots/refused.png]]
[[ATTACHMENT|/var/log/app.log]]</system-out>
    </testcase>
    <testcase classname="login" name="remembers me" time="0"><skipped message="not yet"/></testcase>
    <testcase classname="login" name="signs in with SSO" time="0"><skipped type="todo"/></testcase>
    <testcase classname="login" name="logs out" time="0.25">
      <flakyFailure message="timed out" type="TimeoutError">at logout.test.js:4:1</flakyFailure>
    </testcase>
  </testsuite>
</testsuites>
`

// writeReportFile writes text to path and reads it back as the tools do.
func writeReportFile(t *testing.T, path, text string) *testreport.Report {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return readReportFile(t, path)
}

func TestImportReports(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "junit.xml")
	rep := writeReportFile(t, path, reportJUnit)
	inline := &testreport.Report{Name: "source (text)", Format: testreport.JUnit, Results: rep.Results}

	got, err := ImportReports(ctx, s, []*testreport.Report{rep, inline})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].New || got[0].Tests != 5 || got[0].RunID == 0 || !strings.HasPrefix(got[0].Key, "report:") {
		t.Fatalf("first import: %+v", got)
	}
	first := got[0]

	// The same file, read again (by another tool): the same run.
	again, err := ImportReports(ctx, s, []*testreport.Report{readReportFile(t, path)})
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 1 || again[0].New || again[0].RunID != first.RunID || again[0].Key != first.Key {
		t.Fatalf("second import: %+v, first %+v", again, first)
	}
	runs, _, err := s.Runs(ctx, RunReport, 0, 0)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %+v, %v", runs, err)
	}

	run, tests, err := s.Run(ctx, first.RunID)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	if run.Kind != RunReport || run.Name != "junit.xml (junit)" || run.Source != path || !run.Started.Equal(start) ||
		!run.Ended.Equal(start.Add(2*time.Second)) || run.Passed != 2 || run.Failed != 1 || run.Skipped != 2 {
		t.Errorf("run %+v", run)
	}
	want := []struct{ name, status string }{
		{"login > accepts a good password", StatusPassed},
		{"login > refuses a bad password", StatusFailed},
		{"login > remembers me", StatusSkipped},
		{"login > signs in with SSO", StatusSkipped},
		{"login > logs out", StatusFlaky},
	}
	if len(tests) != len(want) {
		t.Fatalf("%d tests: %+v", len(tests), tests)
	}
	for i, w := range want {
		tt := tests[i]
		if tt.Name != w.name || tt.Status != w.status || tt.Suite != "login" || tt.Kind != KindReport || tt.Tool != "" {
			t.Errorf("test %d: %+v, want %s %s", i, tt, w.name, w.status)
		}
	}
	failed := tests[1]
	if failed.Message != "expected 401, got 200" || !strings.Contains(failed.Output, "login.test.js:12:3") ||
		!strings.Contains(failed.Output, "posting the form") || failed.DurationMs != 1250 ||
		!failed.Time.Equal(start.Add(500*time.Millisecond)) {
		t.Errorf("failed test %+v", failed)
	}
	if len(failed.Evidence) != 2 {
		t.Fatalf("evidence %+v", failed.Evidence)
	}
	shot, log := failed.Evidence[0], failed.Evidence[1]
	if shot.Kind != "screenshot" || shot.Path != filepath.Join(dir, "shots", "refused.png") || shot.MIMEType != "image/png" || shot.Name != "refused.png" {
		t.Errorf("screenshot %+v", shot)
	}
	if log.Kind != "file" || log.Path != "/var/log/app.log" || log.MIMEType != "text/plain" {
		t.Errorf("log %+v", log)
	}
	if flaky := tests[4]; !strings.Contains(flaky.Message, "passed after 1 retry") || !strings.Contains(flaky.Message, "timed out") {
		t.Errorf("flaky test %+v", flaky)
	}
	if tests[2].Message != "not yet" {
		t.Errorf("skipped test %+v", tests[2])
	}

	// The file written anew is another run.
	later := strings.NewReplacer(`time="0.5"`, `time="0.75"`, "2026-03-04", "2026-03-05").Replace(reportJUnit)
	rep2 := writeReportFile(t, path, later)
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, future, future); err != nil {
		t.Fatal(err)
	}
	got2, err := ImportReports(ctx, s, []*testreport.Report{rep2})
	if err != nil {
		t.Fatal(err)
	}
	if len(got2) != 1 || !got2[0].New || got2[0].RunID == first.RunID || got2[0].Key == first.Key {
		t.Fatalf("rewritten file: %+v, first %+v", got2, first)
	}
	h, err := s.History(ctx, "login > accepts a good password")
	if err != nil || h.Runs != 2 || h.Points[1].DurationMs != 750 {
		t.Errorf("history %+v, %v", h, err)
	}
	if h, err := s.History(ctx, "login > logs out"); err != nil || h.Runs != 2 || h.Flips != 2 {
		t.Errorf("flaky history %+v, %v", h, err)
	}
}

// readReportFile reads the file at path again without touching it.
func readReportFile(t *testing.T, path string) *testreport.Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := testreport.Parse(context.Background(), f, path, "")
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// A report without a start time starts at its file's modification time; a
// file gone before the import is an error that does not stop the others.
func TestImportReportsUntimedAndMissing(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "run.tap")
	rep := writeReportFile(t, path, "TAP version 13\n1..2\nok 1 - adds\nnot ok 2 - subtracts # TODO later\n")
	mod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
	gone := &testreport.Report{Name: filepath.Join(dir, "gone.xml"), Format: testreport.JUnit}
	got, err := ImportReports(ctx, s, []*testreport.Report{gone, rep})
	if err == nil || !strings.Contains(err.Error(), "gone.xml") {
		t.Errorf("error %v", err)
	}
	if len(got) != 1 || !got[0].New {
		t.Fatalf("imported %+v", got)
	}
	run, tests, err := s.Run(ctx, got[0].RunID)
	if err != nil {
		t.Fatal(err)
	}
	if !run.Started.Equal(mod) || run.Name != "run.tap (tap)" || len(tests) != 2 || tests[0].Status != StatusPassed || tests[1].Status != StatusSkipped {
		t.Errorf("run %+v tests %+v", run, tests)
	}
}
