package testanalysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/testreport/reporttest"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// Five JUnit files Node's test runner wrote, one a run: the test that
// flips is flaky, the one that always fails consistently failing, however
// the history is given.
func TestFlakyDetectFromJUnitHistory(t *testing.T) {
	t.Parallel()
	paths := reporttest.NodeHistory(t, 5)
	root := filepath.Dir(paths[0])
	list := tooltest.Marshal(paths)
	for _, src := range []string{list, `"."`, `"run-*.xml"`, tooltest.Marshal(root)} {
		got := tooltest.MustInRoot(t, root, Tools(), "test_flaky_detect", `{"source":`+src+`}`)
		flaky := got["flakyTests"].([]any)
		if len(flaky) != 1 {
			t.Fatalf("source %s: flakyTests %s", src, tooltest.Marshal(flaky))
		}
		f := flaky[0].(map[string]any)
		// In run order P F P F P (the even runs fail): 4 flips of 4.
		if f["name"] != "flips" || f["runs"] != 5.0 || f["passes"] != 3.0 || f["failures"] != 2.0 || f["flips"] != 4.0 || f["score"] != 0.92 {
			t.Errorf("source %s: %s", src, tooltest.Marshal(f))
		}
		if !tooltest.SameJSON(t, got["consistentlyFailing"], `["broken"]`) || got["stableTests"] != 2.0 {
			t.Errorf("source %s: %s", src, tooltest.Marshal(got))
		}
		if got["summary"] != "3 tests in 15 results: 1 flaky (most flaky: flips, score 0.92), 2 stable (1 of them failing every run)." {
			t.Errorf("summary %q", got["summary"])
		}
		if len(got["sources"].([]any)) != 5 {
			t.Errorf("sources %s", tooltest.Marshal(got["sources"]))
		}
	}
	p := tooltest.MustInRoot(t, root, Tools(), "test_prioritize", `{"source":"run-*.xml"}`)
	ranked := p["ranked"].([]any)
	if p["count"] != 3.0 || ranked[0].(map[string]any)["name"] != "broken" || ranked[2].(map[string]any)["name"] != "stable" {
		t.Errorf("test_prioritize: %s", tooltest.Marshal(ranked))
	}
}

// A test that failed, then passed on a retry within one run is flaky,
// from a single report: Playwright's retries and Jest's.
func TestFlakyDetectSeesRetries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		run  func(testing.TB) reporttest.Run
		want string
	}{
		{"playwright", reporttest.PlaywrightJSON, "chromium > cart.spec.js > cart > passes on retry"},
		{"jest", reporttest.JestJSON, "passes on retry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			run := tc.run(t)
			got := tooltest.MustInRoot(t, run.Dir, Tools(), "test_flaky_detect", `{"source":"report.json"}`)
			flaky := got["flakyTests"].([]any)
			if len(flaky) != 1 {
				t.Fatalf("flakyTests %s", tooltest.Marshal(got))
			}
			f := flaky[0].(map[string]any)
			if f["name"] != tc.want || f["retriedPasses"] != 1.0 || f["runs"] != 1.0 || f["score"] != 0.6 {
				t.Errorf("flaky: %s", tooltest.Marshal(f))
			}
		})
	}
}

func TestDeduplicateFromReport(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	report := `<testsuites>
  <testsuite name="auth"><testcase classname="auth" name="logs in with a valid password"/><testcase classname="auth" name="logs out"/></testsuite>
  <testsuite name="login"><testcase classname="login" name="logs in with valid password"><failure message="x"/></testcase></testsuite>
</testsuites>`
	if err := os.WriteFile(filepath.Join(root, "junit.xml"), []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	got := tooltest.MustInRoot(t, root, Tools(), "test_deduplicate", `{"source":"junit.xml"}`)
	if !tooltest.SameJSON(t, got["groups"], `[["auth > logs in with a valid password","login > logs in with valid password"]]`) || got["totalTests"] != 3.0 {
		t.Errorf("test_deduplicate: %s", tooltest.Marshal(got))
	}
}

func TestHistorySourceArguments(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	good := `<testsuite><testcase name="a"/></testsuite>`
	if err := os.WriteFile(filepath.Join(root, "run-1.xml"), []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(root, "run-2.xml")
	if err := os.WriteFile(bad, []byte("<testsuite>\n<testcase name=\"a\">\n</testsuite>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"test_flaky_detect", "test_prioritize", "test_deduplicate"} {
		for _, tc := range []struct{ args, code, mention string }{
			{`{"source":["run-1.xml","run-2.xml"]}`, tool.CodeInvalidArgs, bad + ":3: junit: element <testcase> closed by </testsuite>"},
			{`{"source":"/etc/hostname"}`, tool.CodeForbidden, "outside the allowed roots"},
			{`{"source":"missing/"}`, tool.CodeNotFound, "missing"},
			{`{}`, tool.CodeInvalidArgs, "required"},
		} {
			_, err := tooltest.InRoot(t, root, Tools(), name, tc.args)
			if err == nil || err.Code != tc.code || !strings.Contains(err.Message, tc.mention) {
				t.Errorf("%s %s: %v; want %s mentioning %q", name, tc.args, err, tc.code, tc.mention)
			}
		}
	}
	for _, tc := range []struct{ name, args string }{
		{"test_flaky_detect", `{"testHistory":[],"source":"run-1.xml"}`},
		{"test_prioritize", `{"testHistory":[],"source":"run-1.xml"}`},
		{"test_deduplicate", `{"tests":[],"source":"run-1.xml"}`},
	} {
		if _, err := tooltest.InRoot(t, root, Tools(), tc.name, tc.args); err == nil || !strings.Contains(err.Message, "not both") {
			t.Errorf("%s %s: %v", tc.name, tc.args, err)
		}
	}
}
