package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/record"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func junitRun(stamp string, fast, slow string) string {
	return `<testsuites><testsuite name="shop" timestamp="` + stamp + `">
<testcase classname="cart" name="adds" time="` + fast + `"/>
<testcase classname="cart" name="pays" time="` + slow + `"><failure message="declined"/></testcase>
<testcase classname="cart" name="later" time="0"><skipped/></testcase>
<testcase classname="login" name="works" time="0.05"/>
</testsuite></testsuites>`
}

// The reports the report_* tools and performance_regression read are
// recorded, once per file; performance_regression's fromRecord compares
// the two latest runs holding the tests named, or the runs given.
func TestReportsAreRecordedAndCompared(t *testing.T) {
	s := tooltest.UseRecord(t)
	ctx := context.Background()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("run-1.xml", junitRun("2026-04-01T10:00:00Z", "0.1", "1.0"))
	write("run-2.xml", junitRun("2026-04-02T10:00:00Z", "0.1", "1.5"))
	write("run-3.xml", junitRun("2026-04-03T10:00:00Z", "0.2", "1.0"))

	summary := tooltest.MustInRoot(t, root, Tools(), "report_summary", `{"source":"run-1.xml"}`)
	again := tooltest.MustInRoot(t, root, Tools(), "report_failures", `{"source":"run-1.xml"}`)
	// Each answer names the run the file is in the record, the same run
	// when it is read again.
	src := summary["sources"].([]any)[0].(map[string]any)
	if src["recordRun"] == nil || src["recordError"] != nil || !tooltest.SameJSON(t, again["sources"].([]any)[0].(map[string]any)["recordRun"], tooltest.Marshal(src["recordRun"])) {
		t.Errorf("the record's run in the answers: %s, then %s", tooltest.Marshal(summary["sources"]), tooltest.Marshal(again["sources"]))
	}
	tooltest.MustInRoot(t, root, Tools(), "report_timing", `{"source":["run-1.xml","run-2.xml"]}`)
	runs, _, err := s.Runs(ctx, record.RunReport, 0, 0)
	if err != nil || len(runs) != 2 {
		t.Fatalf("after three tools on two files: runs %+v, %v", runs, err)
	}
	// Text given inline is not recorded.
	tooltest.MustInRoot(t, root, Tools(), "report_summary", `{"source":`+tooltest.Marshal(junitRun("2026-04-04T10:00:00Z", "1", "1"))+`}`)
	if runs, _, _ = s.Runs(ctx, record.RunReport, 0, 0); len(runs) != 2 {
		t.Fatalf("inline text recorded: %+v", runs)
	}

	// The two latest runs with cart tests: run-2 against run-1; once
	// performance_regression's own sources are read, run-3 against run-2.
	got := tooltest.MustRunObject(t, Tools(), "performance_regression", `{"fromRecord":{"name":"cart > *"}}`)
	rec := got["record"].(map[string]any)
	if rec["baseline"].(map[string]any)["name"] != "run-1.xml (junit)" || rec["current"].(map[string]any)["name"] != "run-2.xml (junit)" ||
		rec["current"].(map[string]any)["tests"] != 3.0 {
		t.Errorf("runs compared: %s", tooltest.Marshal(rec))
	}
	if !tooltest.SameJSON(t, got["overall"].(map[string]any)["regressions"], `["(total)","cart > pays"]`) {
		t.Errorf("regressions: %s", tooltest.Marshal(got))
	}
	tooltest.MustInRoot(t, root, Tools(), "performance_regression", `{"baselineSource":"run-2.xml","currentSource":"run-3.xml"}`)
	got = tooltest.MustRunObject(t, Tools(), "performance_regression", `{"fromRecord":{"name":"cart > adds"}}`)
	if m := got["metrics"].([]any); len(m) != 2 || m[1].(map[string]any)["baseline"] != 100.0 || m[1].(map[string]any)["current"] != 200.0 {
		t.Errorf("run-3 against run-2: %s", tooltest.Marshal(got))
	}
	// Runs given by id.
	first, third := runIDByName(t, s, "run-1.xml (junit)"), runIDByName(t, s, "run-3.xml (junit)")
	got = tooltest.MustRunObject(t, Tools(), "performance_regression",
		`{"fromRecord":{"name":"cart > pays","baselineRun":`+tooltest.Marshal(third)+`,"currentRun":`+tooltest.Marshal(first)+`}}`)
	if ov := got["overall"].(map[string]any); ov["regressed"] != false || ov["compared"] != 2.0 {
		t.Errorf("run-1 against run-3: %s", tooltest.Marshal(got))
	}

	tooltest.MustFailWith(t, Tools(), "performance_regression", `{"fromRecord":{"name":"nothing"}}`, tool.CodeNotFound, "nothing")
	tooltest.MustFailWith(t, Tools(), "performance_regression", `{"fromRecord":{"currentRun":`+tooltest.Marshal(first)+`}}`, tool.CodeNotFound, "no baseline")
	tooltest.MustFailWith(t, Tools(), "performance_regression", `{"fromRecord":{"currentRun":999}}`, tool.CodeNotFound, "fromRecord.currentRun", "999")
	tooltest.MustFailWith(t, Tools(), "performance_regression", `{"fromRecord":{"baselineRun":1,"currentRun":1}}`, tool.CodeInvalidArgs, "same run")
	tooltest.MustFailWith(t, Tools(), "performance_regression", `{"fromRecord":{},"baseline":{"a":1}}`, tool.CodeInvalidArgs, "fromRecord")
}

func runIDByName(t *testing.T, s *record.Store, name string) int64 {
	t.Helper()
	runs, _, err := s.Runs(context.Background(), record.RunReport, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.Name == name {
			return r.ID
		}
	}
	t.Fatalf("no run %s in %+v", name, runs)
	return 0
}

// With the record off, fromRecord says how to turn it on, and reading a
// report records nothing and fails nothing.
func TestRegressionFromRecordOff(t *testing.T) {
	record.Use("")
	err := tooltest.MustFailWith(t, Tools(), "performance_regression", `{"fromRecord":{}}`, tool.CodeInvalidArgs, "dashboard.record")
	if !strings.Contains(err.Message, "fromRecord") {
		t.Errorf("error %v", err)
	}
}

// A record that cannot be kept does not fail the call; the answer says why
// the file was not recorded.
func TestReportNotRecordedSaysWhy(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	record.Use(filepath.Join(blocker, "record.db")) // under a file: it cannot open
	t.Cleanup(func() { record.Use("") })
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "run.xml"), []byte(junitRun("2026-04-01T10:00:00Z", "0.1", "1.0")), 0o644); err != nil {
		t.Fatal(err)
	}
	got := tooltest.MustInRoot(t, root, Tools(), "report_summary", `{"source":"run.xml"}`)
	src := got["sources"].([]any)[0].(map[string]any)
	if msg, _ := src["recordError"].(string); src["recordRun"] != nil || !strings.Contains(msg, "record did not open") {
		t.Errorf("sources: %s", tooltest.Marshal(got["sources"]))
	}
}
