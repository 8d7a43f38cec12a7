package report

import (
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestPerformanceRegressionWorkedExample(t *testing.T) {
	t.Parallel()
	got := tooltest.MustRun(t, Tools(), "performance_regression", `{
		"baseline": {"lcp": 2000, "fcp": 1000, "cls": 0.1, "tti": 3000, "size": 0},
		"current": [{"name": "lcp", "value": 2300}, {"name": "fcp", "value": 850}, {"name": "cls", "value": 0.105},
		            {"name": "size", "value": 10}, {"name": "ttfb", "value": 200}],
		"thresholds": {"default": 10, "perMetric": {"cls": 2, "nope": 5}}
	}`)
	tooltest.WantJSON(t, "performance_regression", got, `{
		"lowerIsBetter": true,
		"metrics": [
			{"name": "lcp", "baseline": 2000, "current": 2300, "change": 300, "changePercent": 15, "thresholdPercent": 10, "verdict": "regression"},
			{"name": "fcp", "baseline": 1000, "current": 850, "change": -150, "changePercent": -15, "thresholdPercent": 10, "verdict": "improvement"},
			{"name": "cls", "baseline": 0.1, "current": 0.105, "change": 0.005, "changePercent": 5, "thresholdPercent": 2, "verdict": "regression"},
			{"name": "size", "baseline": 0, "current": 10, "change": 10, "changePercent": null, "thresholdPercent": 10, "verdict": "regression"}
		],
		"missingInCurrent": ["tti"],
		"missingInBaseline": ["ttfb"],
		"overall": {"regressed": true, "compared": 4, "regressions": ["lcp", "cls", "size"], "improvements": ["fcp"]},
		"warnings": ["thresholds.perMetric.nope: no metric of that name in baseline or current"]
	}`)
}

func TestPerformanceRegressionVerdicts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, args, verdict string
		pct                 any
	}{
		{"exactly the default threshold is unchanged", `{"baseline":{"m":100},"current":{"m":110}}`, "unchanged", 10.0},
		{"just over the threshold", `{"baseline":{"m":100},"current":{"m":110.01}}`, "regression", 10.01},
		{"just under minus the threshold", `{"baseline":{"m":100},"current":{"m":89.99}}`, "improvement", -10.01},
		{"float noise at the threshold", `{"baseline":{"m":0.3},"current":{"m":0.33}}`, "unchanged", 10.0},
		{"threshold 0 flags any rise", `{"baseline":{"m":100},"current":{"m":100.5},"thresholds":{"default":0}}`, "regression", 0.5},
		{"no change", `{"baseline":{"m":42},"current":{"m":42},"thresholds":{"default":0}}`, "unchanged", 0.0},
		{"both zero", `{"baseline":{"m":0},"current":{"m":0}}`, "unchanged", 0.0},
		{"zero baseline, fall", `{"baseline":{"m":0},"current":{"m":-1}}`, "improvement", nil},
		{"higher is better: a fall regresses", `{"baseline":{"score":90},"current":{"score":80},"lowerIsBetter":false}`, "regression", -11.11},
		{"higher is better: a rise improves", `{"baseline":{"score":80},"current":{"score":90},"lowerIsBetter":false}`, "improvement", 12.5},
		{"higher is better, zero baseline", `{"baseline":{"rps":0},"current":{"rps":5},"lowerIsBetter":false}`, "improvement", nil},
		{"negative baseline", `{"baseline":{"m":-100},"current":{"m":-80}}`, "regression", 20.0},
		{"per-metric threshold", `{"baseline":{"m":100},"current":{"m":140},"thresholds":{"perMetric":{"m":50}}}`, "unchanged", 40.0},
		{"array shapes", `{"baseline":[{"name":"m","value":200}],"current":[{"name":"m","value":150}]}`, "improvement", -25.0},
	} {
		got := tooltest.Object(t, tooltest.MustRun(t, Tools(), "performance_regression", tc.args))
		metrics := got["metrics"].([]any)
		if len(metrics) != 1 {
			t.Errorf("%s: %d metrics, want 1", tc.name, len(metrics))
			continue
		}
		m := metrics[0].(map[string]any)
		if m["verdict"] != tc.verdict || m["changePercent"] != tc.pct {
			t.Errorf("%s: verdict %v, changePercent %v; want %s, %v", tc.name, m["verdict"], m["changePercent"], tc.verdict, tc.pct)
		}
		if regressed := got["overall"].(map[string]any)["regressed"]; regressed != (tc.verdict == "regression") {
			t.Errorf("%s: overall.regressed = %v", tc.name, regressed)
		}
	}
}

func TestPerformanceRegressionEdgeCases(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, args, want string }{
		{
			name: "empty on both sides",
			args: `{"baseline":{},"current":[]}`,
			want: `{"lowerIsBetter":true,"metrics":[],"missingInCurrent":[],"missingInBaseline":[],
				"overall":{"regressed":false,"compared":0,"regressions":[],"improvements":[]},"warnings":[]}`,
		},
		{
			name: "no metric in common, key order kept, unicode names",
			args: `{"baseline":{"zeta":1,"アルファ":2},"current":{"b":1,"a":2},"lowerIsBetter":false}`,
			want: `{"lowerIsBetter":false,"metrics":[],"missingInCurrent":["zeta","アルファ"],"missingInBaseline":["b","a"],
				"overall":{"regressed":false,"compared":0,"regressions":[],"improvements":[]},"warnings":[]}`,
		},
	} {
		tooltest.WantJSON(t, tc.name, tooltest.MustRun(t, Tools(), "performance_regression", tc.args), tc.want)
	}
}

func TestPerformanceRegressionBadInput(t *testing.T) {
	t.Parallel()
	badInput(t, "performance_regression", []struct {
		args     string
		mentions []string
	}{
		{`{"current":{}}`, []string{`"baseline"`, "required"}},
		{`{"baseline":{}}`, []string{`"current"`, "required"}},
		{`{"baseline":"fast","current":{}}`, []string{`"baseline": expected object or array, got string`}},
		{`{"baseline":{"lcp":"2s"},"current":{}}`, []string{`"baseline.lcp": expected number`}},
		{`{"baseline":{},"current":[{"name":"lcp"}]}`, []string{`"current[0].value"`, "required"}},
		{`{"baseline":{},"current":[{"value":1}]}`, []string{`"current[0].name"`, "required"}},
		{`{"baseline":{},"current":[{"name":"","value":1}]}`, []string{`"current[0].name"`}},
		{`{"baseline":[{"name":"a","value":1},{"name":"a","value":2}],"current":{}}`, []string{`"baseline[1].name"`, "twice"}},
		{`{"baseline":{"a":1,"a":2},"current":{}}`, []string{`"baseline.a"`, "twice"}},
		{`{"baseline":{},"current":{},"thresholds":{"default":-1}}`, []string{`"thresholds.default"`, ">= 0"}},
		{`{"baseline":{},"current":{},"thresholds":{"perMetric":{"lcp":-5}}}`, []string{`"thresholds.perMetric.lcp"`, ">= 0"}},
		{`{"baseline":{},"current":{},"thresholds":{"perMetric":{"lcp":"5%"}}}`, []string{`"thresholds.perMetric.lcp": expected number`}},
		{`{"baseline":{},"current":{},"thresholds":{"perMetrics":{}}}`, []string{`"thresholds.perMetrics"`, "default, perMetric"}},
		{`{"baseline":{},"current":{},"thresholds":10}`, []string{`"thresholds": expected object`}},
		{`{"baseline":{},"current":{},"lowerIsBetter":"yes"}`, []string{`"lowerIsBetter": expected boolean`}},
	})
}
