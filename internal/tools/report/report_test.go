package report

import (
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// sample is a small run: 3 passed (one after retries), 2 failed with
// errors differing only in a number, 1 skipped, 1 pending, one result
// without a suite.
const sample = `[
	{"name":"login ok","status":"passed","duration":120,"suite":"auth"},
	{"name":"login bad password","status":"failed","duration":340,"suite":"auth","error":"Expected status 401, got 500","stack":"at login.spec.ts:42","screenshot":"shots/login.png","file":"login.spec.ts"},
	{"name":"logout","status":"passed","duration":80,"suite":"auth","retries":2},
	{"name":"cart add","status":"failed","duration":560,"suite":"cart","error":"Expected status 401, got 503"},
	{"name":"cart remove","status":"skipped","suite":"cart"},
	{"name":"checkout","status":"pending","suite":"cart"},
	{"name":"search","status":"passed","duration":300}
]`

// badInput runs each case and checks for INVALID_ARGS mentioning every
// string given.
func badInput(t *testing.T, name string, cases []struct {
	args     string
	mentions []string
}) {
	t.Helper()
	for _, tc := range cases {
		tooltest.MustFailWith(t, Tools(), name, tc.args, tool.CodeInvalidArgs, tc.mentions...)
	}
}

// resultsBadInput are wrong `results` arguments every report_* tool rejects.
var resultsBadInput = []struct {
	args     string
	mentions []string
}{
	{`{}`, []string{`"results"`, "required"}},
	{`{"results":{}}`, []string{`"results": expected array, got object`}},
	{`{"results":[{"status":"passed"}]}`, []string{`"results[0].name"`}},
	{`{"results":[{"name":"a"}]}`, []string{`"results[0].status"`}},
	{`{"results":[{"name":"a","status":"passed"},{"name":"b","status":"broken"}]}`, []string{`"results[1].status"`, `"passed", "failed", "skipped", "pending"`}},
	{`{"results":[{"name":"a","status":"passed","duration":-5}]}`, []string{`"results[0].duration"`, ">= 0"}},
	{`{"results":[{"name":"a","status":"passed","duration":"5ms"}]}`, []string{`"results[0].duration": expected number`}},
	{`{"results":[{"name":"a","status":"passed","retries":1.5}]}`, []string{`"results[0].retries": expected integer`}},
	{`{"results":["a"]}`, []string{`"results[0]": expected object`}},
}

func TestDefinitions(t *testing.T) {
	t.Parallel()
	group := func(name string) string {
		if name == "performance_regression" {
			return PerformanceGroup
		}
		return Group
	}
	tooltest.CheckFamily(t, Tools(), group, "report_summary", "report_failures", "report_timing", "performance_regression")
}

func TestFormatMs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ms   float64
		want string
	}{
		{0, "0ms"}, {12.345, "12.35ms"}, {999, "999ms"}, {1000, "1s"}, {1250, "1.25s"}, {60000, "1m 0s"}, {123400, "2m 3.4s"},
	} {
		if got := formatMs(tc.ms); got != tc.want {
			t.Errorf("formatMs(%v) = %q, want %q", tc.ms, got, tc.want)
		}
	}
}
