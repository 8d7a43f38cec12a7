package testanalysis

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/record"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// Six recorded runs of a test that flips pass/fail: fromRecord names it
// flaky; the steady test beside it is stable, the one outside the glob
// left out.
func TestFlakyDetectFromRecord(t *testing.T) {
	s := tooltest.UseRecord(t)
	start := time.Now().Add(-12 * time.Hour)
	for i := range 6 {
		at := start.Add(time.Duration(i) * time.Hour)
		flip := record.StatusPassed
		if i%2 == 1 {
			flip = record.StatusFailed
		}
		tests := []*record.Test{
			{Name: "checkout > pays", Suite: "checkout", Kind: record.KindReport, Time: at, Status: flip, DurationMs: 120},
			{Name: "checkout > lists", Suite: "checkout", Kind: record.KindReport, Time: at, Status: record.StatusPassed, DurationMs: 40},
			{Name: "login > works", Suite: "login", Kind: record.KindReport, Time: at, Status: record.StatusFailed, DurationMs: 10},
		}
		if _, _, err := s.ImportRun(context.Background(), fmt.Sprintf("report:test-%d", i),
			record.Run{Kind: record.RunReport, Name: fmt.Sprintf("run-%d.xml (junit)", i), Started: at, Ended: at}, tests); err != nil {
			t.Fatal(err)
		}
	}
	got := tooltest.MustRunObject(t, Tools(), "test_flaky_detect", `{"fromRecord":{"name":"checkout > *"}}`)
	flaky := got["flakyTests"].([]any)
	if len(flaky) != 1 {
		t.Fatalf("flakyTests %s", tooltest.Marshal(got))
	}
	f := flaky[0].(map[string]any)
	if f["name"] != "checkout > pays" || f["runs"] != 6.0 || f["passes"] != 3.0 || f["failures"] != 3.0 || f["flips"] != 5.0 || f["avgDuration"] != 120.0 {
		t.Errorf("flaky %s", tooltest.Marshal(f))
	}
	if got["stableTests"] != 1.0 || !tooltest.SameJSON(t, got["consistentlyFailing"], `[]`) {
		t.Errorf("result %s", tooltest.Marshal(got))
	}
	if _, ok := got["sources"]; ok {
		t.Errorf("sources given for fromRecord: %s", tooltest.Marshal(got))
	}

	// limit keeps the latest results: the last 2 runs are one flip.
	got = tooltest.MustRunObject(t, Tools(), "test_flaky_detect", `{"fromRecord":{"name":"checkout > pays","limit":2},"minRuns":2}`)
	if f := got["flakyTests"].([]any); len(f) != 1 || f[0].(map[string]any)["runs"] != 2.0 {
		t.Errorf("limit 2: %s", tooltest.Marshal(got))
	}
	// since leaves out the older runs: the last 3 (F P F).
	since := start.Add(3*time.Hour - time.Minute).UTC().Format(time.RFC3339)
	got = tooltest.MustRunObject(t, Tools(), "test_flaky_detect", `{"fromRecord":{"name":"checkout > pays","since":"`+since+`"}}`)
	if f := got["flakyTests"].([]any); len(f) != 1 || f[0].(map[string]any)["runs"] != 3.0 {
		t.Errorf("since %s: %s", since, tooltest.Marshal(got))
	}
	// Everything, by default: login > works fails every run.
	got = tooltest.MustRunObject(t, Tools(), "test_flaky_detect", `{"fromRecord":{}}`)
	if !tooltest.SameJSON(t, got["consistentlyFailing"], `["login > works"]`) || got["stableTests"] != 2.0 {
		t.Errorf("all: %s", tooltest.Marshal(got))
	}

	p := tooltest.MustRunObject(t, Tools(), "test_prioritize", `{"fromRecord":{"name":"checkout > *","since":"7d"}}`)
	ranked := p["ranked"].([]any)
	if p["count"] != 2.0 || ranked[0].(map[string]any)["name"] != "checkout > pays" {
		t.Errorf("test_prioritize: %s", tooltest.Marshal(p))
	}

	tooltest.MustFailWith(t, Tools(), "test_flaky_detect", `{"fromRecord":{"since":"yesterday"}}`, tool.CodeInvalidArgs, "fromRecord.since")
	tooltest.MustFailWith(t, Tools(), "test_flaky_detect", `{"fromRecord":{},"testHistory":[]}`, tool.CodeInvalidArgs, "not both")
	tooltest.MustFailWith(t, Tools(), "test_flaky_detect", `{"fromRecord":{},"sourceFormat":"junit"}`, tool.CodeInvalidArgs, "sourceFormat")
	tooltest.MustFail(t, Tools(), "test_flaky_detect", `{"fromRecord":{"limit":1001}}`, tool.CodeInvalidArgs)
}

// With the record off, fromRecord is an error that says how to turn it on.
func TestFromRecordOff(t *testing.T) {
	record.Use("")
	for _, name := range []string{"test_flaky_detect", "test_prioritize"} {
		tooltest.MustFailWith(t, Tools(), name, `{"fromRecord":{"name":"*"}}`, tool.CodeInvalidArgs, "fromRecord", "dashboard.record")
	}
}

// Reports read through source are recorded, once per file.
func TestSourceIsRecorded(t *testing.T) {
	s := tooltest.UseRecord(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeRecordFile(t, filepath.Join(root, "run-1.xml"), `<testsuite name="s"><testcase classname="s" name="a" time="0.1"/><testcase classname="s" name="b" time="0.2"><failure message="no"/></testcase></testsuite>`)
	for range 2 {
		tooltest.MustInRoot(t, root, Tools(), "test_flaky_detect", `{"source":"run-1.xml"}`)
	}
	runs, _, err := s.Runs(context.Background(), record.RunReport, 0, 0)
	if err != nil || len(runs) != 1 || runs[0].Passed != 1 || runs[0].Failed != 1 || runs[0].Source != filepath.Join(root, "run-1.xml") {
		t.Fatalf("runs %+v, %v", runs, err)
	}
	got := tooltest.MustRunObject(t, Tools(), "test_flaky_detect", `{"fromRecord":{"name":"s > ?"}}`)
	if !tooltest.SameJSON(t, got["insufficientData"], `["s > a","s > b"]`) {
		t.Errorf("from the record: %s", tooltest.Marshal(got))
	}
}

func writeRecordFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
