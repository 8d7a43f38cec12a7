package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/testreport"
	"github.com/barrhawk/barrhawk/internal/testreport/reporttest"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// Each tool answers the counts the runner printed or wrote, reading the
// report the real runner wrote.
func TestSourceFromRealRunners(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		run    func(testing.TB) reporttest.Run
		format string
	}{
		{"node junit", reporttest.NodeJUnit, "junit"},
		{"node tap", reporttest.NodeTAP, "tap"},
		{"go test -json", reporttest.GoTestJSON, "gotest"},
		{"pytest", reporttest.PytestJUnit, "junit"},
		{"playwright", reporttest.PlaywrightJSON, "playwright"},
		{"jest", reporttest.JestJSON, "jest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			run := tc.run(t)
			c := run.Counts
			src := tooltest.Marshal(filepath.Base(run.Path))
			s := tooltest.MustInRoot(t, run.Dir, Tools(), "report_summary", `{"source":`+src+`}`)
			if s["total"] != float64(c.Total) || s["passed"] != float64(c.Passed) || s["failed"] != float64(c.Failed) ||
				s["skipped"] != float64(c.Skipped) || s["pending"] != float64(c.Pending) {
				t.Errorf("report_summary %v/%v/%v/%v/%v, the runner's %+v", s["total"], s["passed"], s["failed"], s["skipped"], s["pending"], c)
			}
			if !tooltest.SameJSON(t, s["sources"], `[{"path":`+tooltest.Marshal(run.Path)+`,"format":"`+tc.format+`","results":`+tooltest.Marshal(c.Total)+`}]`) {
				t.Errorf("sources: %s", tooltest.Marshal(s["sources"]))
			}
			if s["status"] != "failed" || len(s["failedTests"].([]any)) != c.Failed {
				t.Errorf("status %v, failedTests %s", s["status"], tooltest.Marshal(s["failedTests"]))
			}
			f := tooltest.MustInRoot(t, run.Dir, Tools(), "report_failures", `{"source":`+src+`,"groupBy":"none"}`)
			if f["total"] != float64(c.Total) || f["failed"] != float64(c.Failed) || len(f["failures"].([]any)) != c.Failed {
				t.Errorf("report_failures total %v failed %v, the runner's %+v", f["total"], f["failed"], c)
			}
			for _, x := range f["failures"].([]any) {
				if x.(map[string]any)["error"] == "" {
					t.Errorf("a failure without its message: %s", tooltest.Marshal(x))
				}
			}
			tm := tooltest.MustInRoot(t, run.Dir, Tools(), "report_timing", `{"source":`+src+`}`)
			if tm["count"].(float64)+tm["excluded"].(float64) != float64(c.Total) || tm["count"].(float64) == 0 {
				t.Errorf("report_timing count %v + excluded %v, the runner's total %d", tm["count"], tm["excluded"], c.Total)
			}
		})
	}
}

// Playwright's retry is seen: the test that failed, then passed on its
// retry, is flaky in the summary; the failure keeps its screenshot.
func TestSourcePlaywrightRetry(t *testing.T) {
	t.Parallel()
	run := reporttest.PlaywrightJSON(t)
	s := tooltest.MustInRoot(t, run.Dir, Tools(), "report_summary", `{"source":"report.json","format":"markdown"}`)
	if !tooltest.SameJSON(t, s["flakyTests"], `[{"name":"passes on retry","suite":"chromium > cart.spec.js > cart","retries":1}]`) {
		t.Errorf("flakyTests: %s", tooltest.Marshal(s["flakyTests"]))
	}
	if !strings.Contains(s["report"].(string), "- `passes on retry` (chromium > cart.spec.js > cart): 1 retry") {
		t.Errorf("report:\n%s", s["report"])
	}
	f := tooltest.MustInRoot(t, run.Dir, Tools(), "report_failures", `{"source":"report.json"}`)
	g := f["groups"].([]any)[0].(map[string]any)
	test := g["tests"].([]any)[0].(map[string]any)
	shot, _ := test["screenshot"].(string)
	if test["name"] != "counts the items" || test["retries"] != 1.0 || !strings.HasSuffix(shot, ".png") || !strings.Contains(g["key"].(string), "toHaveText") {
		t.Errorf("report_failures group: %s", tooltest.Marshal(g))
	}
	if _, err := os.Stat(shot); err != nil {
		t.Errorf("screenshot: %v", err)
	}
	if strings.Contains(g["stack"].(string), "toHaveText") || !strings.Contains(g["stack"].(string), "cart.spec.js") {
		t.Errorf("the stack apart from the message: %q", g["stack"])
	}
}

// pytest's error (a broken fixture) and failure group apart, each with
// its own message.
func TestSourcePytestGroups(t *testing.T) {
	t.Parallel()
	run := reporttest.PytestJUnit(t)
	f := tooltest.MustInRoot(t, run.Dir, Tools(), "report_failures", `{"source":"report.xml","includeStack":false}`)
	var keys []string
	for _, g := range f["groups"].([]any) {
		keys = append(keys, g.(map[string]any)["key"].(string))
	}
	if len(keys) != 2 || !strings.Contains(strings.Join(keys, "|"), "database is down") || !strings.Contains(strings.Join(keys, "|"), "item <n> not found") {
		t.Errorf("groups %q", keys)
	}
}

func TestSourceArguments(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(root, "bad.xml")
	if err := os.WriteFile(bad, []byte("<testsuites>\n  <testsuite name=\"cart\">\n    <testcase name=\"adds\">\n      <failure message=\"x\">\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(root, "big.xml")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, testreport.MaxFileBytes+1); err != nil {
		t.Fatal(err)
	}
	tap := tooltest.Marshal("TAP version 13\nok 1 - adds\nnot ok 2 - removes\n  ---\n  message: item 42 not found\n  ...\nok 3 - lists # SKIP later\n")
	for _, name := range []string{"report_summary", "report_failures", "report_timing"} {
		for _, tc := range []struct{ args, code, mention string }{
			{`{"source":"bad.xml"}`, tool.CodeInvalidArgs, bad + ":5: junit: the XML ends inside an element"},
			{`{"source":"big.xml"}`, tool.CodeInvalidArgs, "over the bound of 268435456 bytes (256 MiB)"},
			{`{"source":"/etc/hostname"}`, tool.CodeForbidden, "outside the allowed roots"},
			{`{"source":"../x.xml"}`, tool.CodeForbidden, "outside the allowed roots"},
			{`{"source":"none/*.xml"}`, tool.CodeNotFound, "none"},
			{`{"source":"ok 1","results":[]}`, tool.CodeInvalidArgs, "not both"},
			{`{"results":[],"sourceFormat":"tap"}`, tool.CodeInvalidArgs, `"sourceFormat"`},
			{`{"source":"bad.xml","sourceFormat":"xunit"}`, tool.CodeInvalidArgs, `"sourceFormat"`},
			{`{"source":` + tap + `,"sourceFormat":"jest"}`, tool.CodeInvalidArgs, "jest: invalid character 'T'"},
			{`{"source":5}`, tool.CodeInvalidArgs, `"source"`},
		} {
			_, err := tooltest.InRoot(t, root, Tools(), name, tc.args)
			if err == nil || err.Code != tc.code || !strings.Contains(err.Message, tc.mention) {
				t.Errorf("%s %s: %v; want %s mentioning %q", name, tc.args, err, tc.code, tc.mention)
			}
		}
	}
	s := tooltest.MustInRoot(t, root, Tools(), "report_summary", `{"source":`+tap+`}`)
	if s["total"] != 3.0 || s["failed"] != 1.0 || s["skipped"] != 1.0 || !tooltest.SameJSON(t, s["failedTests"], `[{"name":"removes","error":"item 42 not found"}]`) {
		t.Errorf("TAP text: %s", tooltest.Marshal(s))
	}
	// A run error (a package that did not build) fails the run, and is
	// told.
	goBuild := tooltest.Marshal(`{"ImportPath":"example.com/cart.test","Action":"build-output","Output":"# example.com/cart\n"}` + "\n" +
		`{"ImportPath":"example.com/cart.test","Action":"build-output","Output":"./cart_test.go:3:1: syntax error\n"}` + "\n" +
		`{"ImportPath":"example.com/cart.test","Action":"build-fail"}` + "\n" +
		`{"Action":"start","Package":"example.com/cart"}` + "\n" +
		`{"Action":"output","Package":"example.com/cart","Output":"FAIL\texample.com/cart [setup failed]\n"}` + "\n" +
		`{"Action":"fail","Package":"example.com/cart","Elapsed":0,"FailedBuild":"example.com/cart.test"}` + "\n")
	s = tooltest.MustInRoot(t, root, Tools(), "report_summary", `{"source":`+goBuild+`,"format":"text"}`)
	if s["status"] != "failed" || len(s["runErrors"].([]any)) != 1 || !strings.Contains(s["report"].(string), "Run error: source (text): build of example.com/cart.test failed: ./cart_test.go:3:1: syntax error") {
		t.Errorf("a build failure: %s", tooltest.Marshal(s))
	}
}

// performance_regression compares two runs' test durations.
func TestRegressionFromReports(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(`<testsuite name="cart">`+body+`</testsuite>`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("base.xml", `<testcase classname="cart" name="adds" time="1.0"/><testcase classname="cart" name="removes" time="2.0"/>`+
		`<testcase classname="cart" name="old" time="0.5"/><testcase classname="cart" name="skipped" time="0"><skipped/></testcase>`)
	write("cur.xml", `<testcase classname="cart" name="adds" time="1.5"/><testcase classname="cart" name="removes" time="1.0"/>`+
		`<testcase classname="cart" name="new" time="0.1"/>`)
	got, terr := tooltest.RunContext(t, tool.WithRoots(context.Background(), []string{root}), Tools(), "performance_regression",
		`{"baselineSource":"base.xml","currentSource":"cur.xml"}`)
	if terr != nil {
		t.Fatal(terr)
	}
	tooltest.WantJSON(t, "performance_regression", got, `{
		"lowerIsBetter": true,
		"metrics": [
			{"name":"(total)","baseline":3500,"current":2600,"change":-900,"changePercent":-25.71,"thresholdPercent":10,"verdict":"improvement"},
			{"name":"cart > adds","baseline":1000,"current":1500,"change":500,"changePercent":50,"thresholdPercent":10,"verdict":"regression"},
			{"name":"cart > removes","baseline":2000,"current":1000,"change":-1000,"changePercent":-50,"thresholdPercent":10,"verdict":"improvement"}
		],
		"missingInCurrent": ["cart > old"],
		"missingInBaseline": ["cart > new"],
		"overall": {"regressed":true,"compared":3,"regressions":["cart > adds"],"improvements":["(total)","cart > removes"]},
		"warnings": []
	}`)
	// Metrics on one side, a report on the other.
	got, terr = tooltest.RunContext(t, tool.WithRoots(context.Background(), []string{root}), Tools(), "performance_regression",
		`{"baseline":{"(total)":2600},"currentSource":"cur.xml"}`)
	if terr != nil || tooltest.Object(t, got)["overall"].(map[string]any)["compared"] != 1.0 {
		t.Errorf("mixed: %v %s", terr, tooltest.Marshal(got))
	}
	for _, tc := range []struct{ args, mention string }{
		{`{"current":{"a":1}}`, `"baseline": is required`},
		{`{"baseline":{"a":1},"baselineSource":"base.xml","current":{"a":1}}`, "not both"},
		{`{"baseline":{"a":1},"current":{"a":1},"sourceFormat":"junit"}`, `"sourceFormat"`},
	} {
		_, terr := tooltest.RunContext(t, tool.WithRoots(context.Background(), []string{root}), Tools(), "performance_regression", tc.args)
		if terr == nil || terr.Code != tool.CodeInvalidArgs || !strings.Contains(terr.Message, tc.mention) {
			t.Errorf("%s: %v, want INVALID_ARGS mentioning %q", tc.args, terr, tc.mention)
		}
	}
}
