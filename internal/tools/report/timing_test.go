package report

import (
	"strconv"
	"testing"

	"github.com/barrhawk/barrhawk/internal/stats"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestReportTimingWorkedExample(t *testing.T) {
	t.Parallel()
	// Timed: 80, 120, 300, 340, 560 (skipped and pending are excluded).
	// p90: rank 0.9·4 = 3.6 → 340 + 0.6·220 = 472; p95: 3.8 → 516; p99:
	// 3.96 → 551.2. Population std dev: √(148000/5) = 172.046…
	got := tooltest.MustRun(t, Tools(), "report_timing", `{"results":`+sample+`,"showSlowest":2,"thresholdMs":300}`)
	tooltest.WantJSON(t, "report_timing", got, `{
		"count": 5, "excluded": 2, "percentileMethod": "`+stats.Method+`",
		"stats": {"totalMs": 1400, "meanMs": 280, "medianMs": 300, "p90Ms": 472, "p95Ms": 516, "p99Ms": 551.2,
		          "minMs": 80, "maxMs": 560, "stdDevMs": 172.05},
		"slowest": [
			{"name": "cart add", "suite": "cart", "status": "failed", "durationMs": 560},
			{"name": "login bad password", "suite": "auth", "status": "failed", "durationMs": 340}
		],
		"overThreshold": {"thresholdMs": 300, "count": 2, "tests": [
			{"name": "cart add", "suite": "cart", "status": "failed", "durationMs": 560},
			{"name": "login bad password", "suite": "auth", "status": "failed", "durationMs": 340}
		]},
		"suites": [
			{"name": "cart", "count": 1, "totalMs": 560, "meanMs": 560, "medianMs": 560, "p95Ms": 560, "maxMs": 560, "slowest": "cart add"},
			{"name": "auth", "count": 3, "totalMs": 540, "meanMs": 180, "medianMs": 120, "p95Ms": 318, "maxMs": 340, "slowest": "login bad password"},
			{"name": "(no suite)", "count": 1, "totalMs": 300, "meanMs": 300, "medianMs": 300, "p95Ms": 300, "maxMs": 300, "slowest": "search"}
		]
	}`)
}

func TestReportTimingDefaultsAndEdges(t *testing.T) {
	t.Parallel()
	// 12 tests of 1..12 ms: showSlowest defaults to 10, ties keep input order.
	results := `[`
	for i := 1; i <= 12; i++ {
		if i > 1 {
			results += ","
		}
		results += `{"name":"t` + string(rune('a'+i-1)) + `","status":"passed","duration":` + strconv.Itoa(i) + `}`
	}
	results += `,{"name":"tie","status":"failed","duration":12}]`
	got := tooltest.Object(t, tooltest.MustRun(t, Tools(), "report_timing", `{"results":`+results+`}`))
	slowest := got["slowest"].([]any)
	if len(slowest) != 10 {
		t.Fatalf("%d slowest, want the default 10", len(slowest))
	}
	if a, b := slowest[0].(map[string]any)["name"], slowest[1].(map[string]any)["name"]; a != "tl" || b != "tie" {
		t.Errorf("slowest starts %v, %v; want tl, tie (input order on ties)", a, b)
	}
	if _, ok := got["overThreshold"]; ok {
		t.Errorf("overThreshold present without thresholdMs")
	}
	// 13 values 1..12 and 12: the median is the 7th, 7.
	if m := got["stats"].(map[string]any)["medianMs"]; m != 7.0 {
		t.Errorf("median = %v, want 7", m)
	}

	for _, tc := range []struct{ name, args, want string }{
		{
			name: "empty results",
			args: `{"results":[],"thresholdMs":0}`,
			want: `{"count":0,"excluded":0,"percentileMethod":"` + stats.Method + `","stats":null,"slowest":[],
				"overThreshold":{"thresholdMs":0,"count":0,"tests":[]},"suites":[]}`,
		},
		{
			name: "all skipped, even with durations",
			args: `{"results":[{"name":"a","status":"skipped","duration":5},{"name":"b","status":"pending"}]}`,
			want: `{"count":0,"excluded":2,"percentileMethod":"` + stats.Method + `","stats":null,"slowest":[],"suites":[]}`,
		},
		{
			name: "one test, no slowest list, unicode suite",
			args: `{"results":[{"name":"テスト","status":"passed","duration":12.346,"suite":"スイート"},{"name":"untimed","status":"passed"}],"showSlowest":0,"thresholdMs":12.346}`,
			want: `{"count":1,"excluded":1,"percentileMethod":"` + stats.Method + `",
				"stats":{"totalMs":12.35,"meanMs":12.35,"medianMs":12.35,"p90Ms":12.35,"p95Ms":12.35,"p99Ms":12.35,"minMs":12.35,"maxMs":12.35,"stdDevMs":0},
				"slowest":[],"overThreshold":{"thresholdMs":12.346,"count":0,"tests":[]},
				"suites":[{"name":"スイート","count":1,"totalMs":12.35,"meanMs":12.35,"medianMs":12.35,"p95Ms":12.35,"maxMs":12.35,"slowest":"テスト"}]}`,
		},
	} {
		tooltest.WantJSON(t, tc.name, tooltest.MustRun(t, Tools(), "report_timing", tc.args), tc.want)
	}
}

func TestReportTimingBadInput(t *testing.T) {
	t.Parallel()
	badInput(t, "report_timing", resultsBadInput)
	badInput(t, "report_timing", []struct {
		args     string
		mentions []string
	}{
		{`{"results":[],"showSlowest":-1}`, []string{`"showSlowest"`, ">= 0"}},
		{`{"results":[],"showSlowest":2.5}`, []string{`"showSlowest": expected integer`}},
		{`{"results":[],"thresholdMs":-1}`, []string{`"thresholdMs"`, ">= 0"}},
		{`{"results":[],"thresholdMs":"1s"}`, []string{`"thresholdMs": expected number`}},
	})
}
