package report

import (
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestReportSummaryJSON(t *testing.T) {
	t.Parallel()
	got := tooltest.MustRun(t, Tools(), "report_summary", `{"results":`+sample+`}`)
	tooltest.WantJSON(t, "report_summary", got, `{
		"title": "Test Summary", "status": "failed", "format": "json",
		"total": 7, "passed": 3, "failed": 2, "skipped": 1, "pending": 1,
		"passRate": 60,
		"duration": {"totalMs": 1400, "averageMs": 280, "measured": 5},
		"suites": [
			{"name": "auth", "total": 3, "passed": 2, "failed": 1, "skipped": 0, "pending": 0, "passRate": 66.67, "durationMs": 540},
			{"name": "cart", "total": 3, "passed": 0, "failed": 1, "skipped": 1, "pending": 1, "passRate": 0, "durationMs": 560},
			{"name": "(no suite)", "total": 1, "passed": 1, "failed": 0, "skipped": 0, "pending": 0, "passRate": 100, "durationMs": 300}
		],
		"failedTests": [
			{"name": "login bad password", "suite": "auth", "error": "Expected status 401, got 500"},
			{"name": "cart add", "suite": "cart", "error": "Expected status 401, got 503"}
		],
		"flakyTests": [{"name": "logout", "suite": "auth", "retries": 2}]
	}`)
}

func TestReportSummaryMarkdown(t *testing.T) {
	t.Parallel()
	got := tooltest.Object(t, tooltest.MustRun(t, Tools(), "report_summary", `{"results":`+sample+`,"format":"markdown","title":"Nightly run"}`))
	want := "# Nightly run\n\n" +
		"**Status: FAILED** (7 tests, pass rate 60%, duration 1.4s)\n\n" +
		"| Total | Passed | Failed | Skipped | Pending | Pass rate | Duration |\n" +
		"|---:|---:|---:|---:|---:|---:|---:|\n" +
		"| 7 | 3 | 2 | 1 | 1 | 60% | 1.4s |\n\n" +
		"## Suites\n\n" +
		"| Suite | Total | Passed | Failed | Skipped | Pending | Pass rate | Duration |\n" +
		"|---|---:|---:|---:|---:|---:|---:|---:|\n" +
		"| auth | 3 | 2 | 1 | 0 | 0 | 66.67% | 540ms |\n" +
		"| cart | 3 | 0 | 1 | 1 | 1 | 0% | 560ms |\n" +
		"| (no suite) | 1 | 1 | 0 | 0 | 0 | 100% | 300ms |\n\n" +
		"## Failed tests\n\n" +
		"- `login bad password` (auth): `Expected status 401, got 500`\n" +
		"- `cart add` (cart): `Expected status 401, got 503`\n\n" +
		"## Flaky tests (passed after retries)\n\n" +
		"- `logout` (auth): 2 retries\n"
	if got["report"] != want {
		t.Errorf("markdown report:\n%s\nwant\n%s", got["report"], want)
	}
	if got["passed"] != 3.0 || got["format"] != "markdown" || got["title"] != "Nightly run" {
		t.Errorf("markdown format lost the numbers: %v", got)
	}
}

func TestReportSummaryText(t *testing.T) {
	t.Parallel()
	got := tooltest.Object(t, tooltest.MustRun(t, Tools(), "report_summary", `{"results":`+sample+`,"format":"text"}`))
	want := "Test Summary\n============\n" +
		"Status: FAILED\n" +
		"Tests: 7 total, 3 passed, 2 failed, 1 skipped, 1 pending\n" +
		"Pass rate: 60%\n" +
		"Duration: 1.4s total, 280ms average\n\n" +
		"Suites:\n" +
		"  auth: 3 total, 2 passed, 1 failed, 0 skipped, 0 pending, 540ms\n" +
		"  cart: 3 total, 0 passed, 1 failed, 1 skipped, 1 pending, 560ms\n" +
		"  (no suite): 1 total, 1 passed, 0 failed, 0 skipped, 0 pending, 300ms\n\n" +
		"Failed tests:\n" +
		"  - login bad password [auth]: Expected status 401, got 500\n" +
		"  - cart add [cart]: Expected status 401, got 503\n\n" +
		"Flaky tests (passed after retries):\n" +
		"  - logout [auth]: 2 retries\n"
	if got["report"] != want {
		t.Errorf("text report:\n%s\nwant\n%s", got["report"], want)
	}
}

func TestReportSummaryEdgeCases(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, args, want string }{
		{
			name: "empty results",
			args: `{"results":[],"format":"markdown"}`,
			want: `{"title":"Test Summary","status":"empty","format":"markdown","total":0,"passed":0,"failed":0,"skipped":0,"pending":0,
				"passRate":null,"duration":{"totalMs":0,"averageMs":null,"measured":0},"suites":[],"failedTests":[],"flakyTests":[],
				"report":"# Test Summary\n\nNo test results.\n"}`,
		},
		{
			name: "all skipped",
			args: `{"results":[{"name":"a","status":"skipped"},{"name":"b","status":"skipped","duration":0}],"format":"text","title":"Ü"}`,
			want: `{"title":"Ü","status":"empty","format":"text","total":2,"passed":0,"failed":0,"skipped":2,"pending":0,
				"passRate":null,"duration":{"totalMs":0,"averageMs":0,"measured":1},
				"suites":[{"name":"(no suite)","total":2,"passed":0,"failed":0,"skipped":2,"pending":0,"passRate":null,"durationMs":0}],
				"failedTests":[],"flakyTests":[],
				"report":"Ü\n=\nStatus: NO TESTS RAN\nTests: 2 total, 0 passed, 0 failed, 2 skipped, 0 pending\nPass rate: n/a\nDuration: 0ms total, 0ms average\n"}`,
		},
		{
			name: "all passed, unicode names, no durations",
			args: `{"results":[{"name":"ログイン ✓","status":"passed","suite":"認証"},{"name":"b|c","status":"passed","suite":"認証"}],"format":"markdown"}`,
			want: `{"title":"Test Summary","status":"passed","format":"markdown","total":2,"passed":2,"failed":0,"skipped":0,"pending":0,
				"passRate":100,"duration":{"totalMs":0,"averageMs":null,"measured":0},
				"suites":[{"name":"認証","total":2,"passed":2,"failed":0,"skipped":0,"pending":0,"passRate":100,"durationMs":0}],
				"failedTests":[],"flakyTests":[],
				"report":"# Test Summary\n\n**Status: PASSED** (2 tests, pass rate 100%, duration n/a)\n\n| Total | Passed | Failed | Skipped | Pending | Pass rate | Duration |\n|---:|---:|---:|---:|---:|---:|---:|\n| 2 | 2 | 0 | 0 | 0 | 100% | n/a |\n\n## Suites\n\n| Suite | Total | Passed | Failed | Skipped | Pending | Pass rate | Duration |\n|---|---:|---:|---:|---:|---:|---:|---:|\n| 認証 | 2 | 2 | 0 | 0 | 0 | 100% | 0ms |\n"}`,
		},
		{
			name: "fractional durations are rounded",
			args: `{"results":[{"name":"a","status":"failed","duration":0.1},{"name":"b","status":"passed","duration":0.2},{"name":"c","status":"passed","duration":0.2}]}`,
			want: `{"title":"Test Summary","status":"failed","format":"json","total":3,"passed":2,"failed":1,"skipped":0,"pending":0,
				"passRate":66.67,"duration":{"totalMs":0.5,"averageMs":0.17,"measured":3},
				"suites":[{"name":"(no suite)","total":3,"passed":2,"failed":1,"skipped":0,"pending":0,"passRate":66.67,"durationMs":0.5}],
				"failedTests":[{"name":"a"}],"flakyTests":[]}`,
		},
	} {
		tooltest.WantJSON(t, tc.name, tooltest.MustRun(t, Tools(), "report_summary", tc.args), tc.want)
	}
}

func TestReportSummaryBadInput(t *testing.T) {
	t.Parallel()
	badInput(t, "report_summary", resultsBadInput)
	badInput(t, "report_summary", []struct {
		args     string
		mentions []string
	}{
		{`{"results":[],"format":"html"}`, []string{`"format"`, `"json", "markdown", "text"`}},
		{`{"results":[],"title":3}`, []string{`"title": expected string`}},
	})
}
