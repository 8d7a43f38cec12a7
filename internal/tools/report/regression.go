package report

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/barrhawk/barrhawk/internal/record"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/testreport"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// DefaultRegressionThreshold is the percent change beyond which a metric
// regressed or improved when no threshold is given.
const DefaultRegressionThreshold = 10.0

// Verdicts of a metric.
const (
	verdictRegression  = "regression"
	verdictImprovement = "improvement"
	verdictUnchanged   = "unchanged"
)

// metric is one named measurement.
type metric struct {
	name  string
	value float64
}

// metricComparison is one metric of a performance_regression result.
type metricComparison struct {
	Name             string   `json:"name"`
	Baseline         float64  `json:"baseline"`
	Current          float64  `json:"current"`
	Change           float64  `json:"change"`
	ChangePercent    *float64 `json:"changePercent"`
	ThresholdPercent float64  `json:"thresholdPercent"`
	Verdict          string   `json:"verdict"`
}

// regressionOverall is the verdict over all metrics.
type regressionOverall struct {
	Regressed    bool     `json:"regressed"`
	Compared     int      `json:"compared"`
	Regressions  []string `json:"regressions"`
	Improvements []string `json:"improvements"`
}

// regressionResult is what performance_regression returns.
type regressionResult struct {
	LowerIsBetter     bool               `json:"lowerIsBetter"`
	Metrics           []metricComparison `json:"metrics"`
	MissingInCurrent  []string           `json:"missingInCurrent"`
	MissingInBaseline []string           `json:"missingInBaseline"`
	Overall           regressionOverall  `json:"overall"`
	Warnings          []string           `json:"warnings"`
	// Record names the runs compared, for fromRecord.
	Record *comparedRuns `json:"record,omitempty"`
}

// comparedRuns are the two recorded runs fromRecord compared.
type comparedRuns struct {
	Baseline recordedRun `json:"baseline"`
	Current  recordedRun `json:"current"`
}

// recordedRun names a run of the record.
type recordedRun struct {
	ID      int64     `json:"id"`
	Kind    string    `json:"kind"`
	Name    string    `json:"name"`
	Started time.Time `json:"started"`
	// Tests is how many of its tests are named like fromRecord.name.
	Tests int `json:"tests"`
}

// metricsProp is the schema of baseline and current: an object of metric
// name → number, or an array of {name, value}.
func metricsProp(name, desc string) schema.Prop {
	p := schema.Any(name, desc).Types("object", "array")
	p.Schema.AdditionalProperties = &jsonschema.Schema{Type: "number", Description: "Value of the metric named by the key"}
	p.Schema.Items = schema.ObjectItems(
		schema.String("name", "Metric name").Min(1).Required(),
		schema.Number("value", "Metric value").Required(),
	)
	return p
}

func performanceRegression() tool.Tool {
	type thresholds struct {
		Default   *float64           `json:"default"`
		PerMetric map[string]float64 `json:"perMetric"`
	}
	type args struct {
		Baseline       json.RawMessage   `json:"baseline"`
		Current        json.RawMessage   `json:"current"`
		BaselineSource testreport.Source `json:"baselineSource"`
		CurrentSource  testreport.Source `json:"currentSource"`
		SourceFormat   string            `json:"sourceFormat"`
		Thresholds     thresholds        `json:"thresholds"`
		LowerIsBetter  *bool             `json:"lowerIsBetter"`
		FromRecord     *recordRuns       `json:"fromRecord"`
	}
	perMetric := schema.Map("perMetric", "Threshold in percent by metric name, overriding default for that metric")
	perMetric.Schema.AdditionalProperties = &jsonschema.Schema{Type: "number", Minimum: new(0.0), Description: "Threshold in percent for the metric named by the key"}
	th := schema.Object(
		schema.Number("default", "Threshold in percent for every metric without its own").Min(0).Default(DefaultRegressionThreshold),
		perMetric,
	)
	th.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	return tool.Tool{
		Def: tool.Def{
			Name: "performance_regression",
			Description: "Compare performance metrics (load time, LCP, bundle size, memory, ...) of a current run with a " +
				"baseline: a change beyond the metric's threshold percent in the worse direction (up, unless lowerIsBetter is " +
				"false) is a regression, in the better one an improvement. Returns {metrics: [{name, baseline, current, change, " +
				"changePercent, verdict}], missingInCurrent, missingInBaseline, overall: {regressed, regressions, improvements}, warnings}. " +
				"To compare test durations, give baselineSource and currentSource instead: two test runs as their runners wrote them " +
				"(JUnit XML, TAP, go test -json, Playwright or Jest JSON: a file, glob, directory or the text). Their metrics are " +
				"\"(total)\", the sum of the durations, then each test's duration in milliseconds, named suite > title (tests that " +
				"passed or failed with a duration; a test run several times counts its mean; a retried test its final attempt); " +
				"tests in one run only are listed in missingInCurrent or missingInBaseline. Per-test durations are noisy: set " +
				"thresholds.default (or perMetric for one test) to what your runs vary by. Or fromRecord compares two runs BarrHawk " +
				"recorded (the reports its tools read, its sessions' assertions), with the same metrics from the durations of their " +
				"tests named like fromRecord.name; the result's record names the two runs.",
			Phrases:  []string{"did it get slower", "perf regression", "compare benchmarks", "lcp got worse", "bundle size grew", "before and after metrics", "web vitals diff", "tests slower than last run"},
			Group:    PerformanceGroup,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				metricsProp("baseline", "Baseline metrics: an object of metric name → number ({\"lcp\": 2100}) or an array of {name, value}; or give baselineSource"),
				metricsProp("current", "Current metrics, in the same shapes as baseline; or give currentSource"),
				reportProp("baselineSource", "baseline"),
				reportProp("currentSource", "current"),
				testreport.FormatProp(),
				schema.Of("thresholds", "Allowed change in percent before a metric counts as a regression or improvement", th),
				schema.Boolean("lowerIsBetter", "True when smaller values are better (times, sizes); false for throughput, scores").Default(true),
				schema.Of("fromRecord", "Instead of baseline and current or their sources: two runs of the record BarrHawk keeps "+
					"(dashboard.record, on by default)", schema.Object(
					schema.String("name", "Glob over test names (suite > title): * any text, ? one character, case-sensitive").Min(1).Default("*"),
					schema.Integer("baselineRun", "Id of the baseline run (the dashboard's); default the latest run holding a matching test that started before currentRun").Min(1),
					schema.Integer("currentRun", "Id of the current run; default the latest run holding a matching test").Min(1),
				)),
			),
			RequiresWorker: true,
			UsesRoots:      true,
		},
		Run: tool.Typed(func(ctx context.Context, in args, _ *tool.Call) (any, error) {
			format, err := testreport.ParseFormat("sourceFormat", in.SourceFormat)
			if err != nil {
				return nil, err
			}
			if in.SourceFormat != "" && in.BaselineSource == nil && in.CurrentSource == nil {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"sourceFormat\": is the format of baselineSource and currentSource, neither of which is given")
			}
			var base, cur []metric
			var compared *comparedRuns
			if in.FromRecord != nil {
				if given(in.Baseline) || given(in.Current) || in.BaselineSource != nil || in.CurrentSource != nil {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"fromRecord\": give it instead of baseline and current (or their sources), not with them")
				}
				if base, cur, compared, err = in.FromRecord.metrics(ctx); err != nil {
					return nil, err
				}
			} else {
				if base, err = metricsOf(ctx, "baseline", in.Baseline, in.BaselineSource, format); err != nil {
					return nil, err
				}
				if cur, err = metricsOf(ctx, "current", in.Current, in.CurrentSource, format); err != nil {
					return nil, err
				}
			}
			def := DefaultRegressionThreshold
			if in.Thresholds.Default != nil {
				def = *in.Thresholds.Default
			}
			if def < 0 {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"thresholds.default\": expected a percentage >= 0, got %v", def)
			}
			for name, v := range in.Thresholds.PerMetric {
				if v < 0 {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"thresholds.perMetric.%s\": expected a percentage >= 0, got %v", name, v)
				}
			}
			lower := in.LowerIsBetter == nil || *in.LowerIsBetter
			res := compareMetrics(base, cur, def, in.Thresholds.PerMetric, lower)
			res.Record = compared
			return res, nil
		}),
	}
}

// given reports whether a metrics argument was given (not absent, not null).
func given(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null"
}

// recordRuns is performance_regression's fromRecord argument.
type recordRuns struct {
	Name        string `json:"name"`
	BaselineRun *int64 `json:"baselineRun"`
	CurrentRun  *int64 `json:"currentRun"`
}

// metrics are the duration metrics of the two runs fromRecord picks, and
// which runs they are.
func (a *recordRuns) metrics(ctx context.Context) (base, cur []metric, runs *comparedRuns, err error) {
	pattern := cmp.Or(a.Name, "*")
	s, err := record.ToolStore("fromRecord")
	if err != nil {
		return nil, nil, nil, err
	}
	pick := func(field string, id *int64, before int64) (*record.Run, error) {
		var r *record.Run
		var err error
		if id != nil {
			r, err = s.RunInfo(ctx, *id)
		} else {
			r, err = s.LatestRunWith(ctx, pattern, before)
		}
		switch {
		case err == nil:
			return r, nil
		case !errors.Is(err, record.ErrNotFound):
			return nil, tool.Errorf(tool.CodeToolError, "argument \"fromRecord\": %v", err)
		case id != nil:
			return nil, tool.Errorf(tool.CodeNotFound, "argument \"fromRecord.%s\": run %d is not in the record", field, *id)
		case before == 0:
			return nil, tool.Errorf(tool.CodeNotFound, "argument \"fromRecord.name\": no recorded run holds a test named like %q", pattern)
		}
		return nil, tool.Errorf(tool.CodeNotFound, "argument \"fromRecord\": run %d is the earliest recorded run holding a test named like %q; "+
			"there is no baseline before it (give baselineRun)", before, pattern)
	}
	curRun, err := pick("currentRun", a.CurrentRun, 0)
	if err != nil {
		return nil, nil, nil, err
	}
	baseRun, err := pick("baselineRun", a.BaselineRun, curRun.ID)
	if err != nil {
		return nil, nil, nil, err
	}
	if baseRun.ID == curRun.ID {
		return nil, nil, nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"fromRecord\": baselineRun and currentRun are the same run, %d", curRun.ID)
	}
	side := func(field string, r *record.Run) ([]metric, recordedRun, error) {
		tests, err := s.RunTests(ctx, r.ID, pattern)
		if err != nil {
			return nil, recordedRun{}, tool.Errorf(tool.CodeToolError, "argument \"fromRecord\": %v", err)
		}
		if len(tests) == 0 {
			return nil, recordedRun{}, tool.Errorf(tool.CodeInvalidArgs, "argument \"fromRecord.%s\": run %d (%s) holds no test named like %q", field, r.ID, r.Name, pattern)
		}
		var t timings
		for _, x := range tests {
			// A test without a duration is recorded with 0.
			if x.DurationMs > 0 && (x.Status == record.StatusPassed || x.Status == record.StatusFailed || x.Status == record.StatusFlaky) {
				t.add(x.Name, x.DurationMs)
			}
		}
		return t.metrics(), recordedRun{ID: r.ID, Kind: r.Kind, Name: r.Name, Started: r.Started, Tests: len(tests)}, nil
	}
	runs = &comparedRuns{}
	if base, runs.Baseline, err = side("baselineRun", baseRun); err != nil {
		return nil, nil, nil, err
	}
	if cur, runs.Current, err = side("currentRun", curRun); err != nil {
		return nil, nil, nil, err
	}
	return base, cur, runs, nil
}

// reportProp is the argument giving a run's test reports in place of
// metrics.
func reportProp(name, instead string) schema.Prop {
	p := schema.Any(name, "A test run as its runner wrote it, instead of "+instead+": a path (relative to the server's "+
		"working directory, or absolute inside an allowed root), a glob, a directory, the report text, or a list of these "+
		"(read as one run). Its metrics are (total) and each test's duration in milliseconds").Types("string", "array")
	p.Schema.Items = schema.StringItems()
	return p
}

// metricsOf is the metrics of one side: given as metrics in raw, or
// computed from the reports src names. One of the two is required.
func metricsOf(ctx context.Context, field string, raw json.RawMessage, src testreport.Source, format testreport.Format) ([]metric, error) {
	has := given(raw)
	switch {
	case has && src != nil:
		return nil, tool.Errorf(tool.CodeInvalidArgs, "arguments %q and \"%sSource\": give one of them, not both", field, field)
	case src == nil:
		if !has {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: is required (an object of metric name → number, or an array of {name, value}), or give %sSource (a test report), or fromRecord (two recorded runs)", field, field)
		}
		return decodeMetrics(field, raw)
	}
	reps, err := ReadReports(ctx, field+"Source", src, format)
	if err != nil {
		return nil, err
	}
	return durationMetrics(reps), nil
}

// totalMetric names the sum of a run's test durations.
const totalMetric = "(total)"

// durationMetrics are the metrics of a test run: "(total)", the sum of
// the durations, then each test's duration in milliseconds, named by its
// ID (suite > title), in the order the tests first appear: only tests
// that passed or failed with a duration, the mean of a test run more
// than once.
func durationMetrics(reps []*testreport.Report) []metric {
	var t timings
	for _, rep := range reps {
		for i := range rep.Results {
			r := &rep.Results[i]
			if r.HasDuration && (r.Status == testreport.Passed || r.Status == testreport.Failed) {
				t.add(r.ID(), r.DurationMs)
			}
		}
	}
	return t.metrics()
}

// timings gathers the test durations of a run into its metrics.
type timings struct {
	byID  map[string]*durationSum
	order []string
	total float64
}

type durationSum struct {
	sum float64
	n   int
}

// add counts one duration of the test named id.
func (t *timings) add(id string, ms float64) {
	if t.byID == nil {
		t.byID = map[string]*durationSum{}
	}
	a, ok := t.byID[id]
	if !ok {
		a = &durationSum{}
		t.byID[id] = a
		t.order = append(t.order, id)
	}
	a.sum += ms
	a.n++
	t.total += ms
}

// metrics are "(total)" then each test's mean duration, in the order the
// tests were first added.
func (t *timings) metrics() []metric {
	out := make([]metric, 0, len(t.order)+1)
	out = append(out, metric{totalMetric, sig(t.total)})
	for _, id := range t.order {
		a := t.byID[id]
		out = append(out, metric{id, sig(a.sum / float64(a.n))})
	}
	return out
}

// decodeMetrics reads an object of name → number (keeping key order) or an
// array of {name, value}.
func decodeMetrics(field string, raw json.RawMessage) ([]metric, error) {
	raw = bytes.TrimSpace(raw)
	shape := "an object of metric name → number, or an array of {name, value}"
	if len(raw) == 0 || string(raw) == "null" {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: is required (%s)", field, shape)
	}
	var out []metric
	seen := map[string]bool{}
	switch raw[0] {
	case '{':
		dec := json.NewDecoder(bytes.NewReader(raw))
		if _, err := dec.Token(); err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: %v", field, err)
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: %v", field, err)
			}
			name, _ := tok.(string)
			var v *float64
			if err := dec.Decode(&v); err != nil || v == nil {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"%s.%s\": expected a number", field, name)
			}
			if seen[name] {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"%s.%s\": metric given twice", field, name)
			}
			seen[name] = true
			out = append(out, metric{name, *v})
		}
	case '[':
		var items []struct {
			Name  *string  `json:"name"`
			Value *float64 `json:"value"`
		}
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: expected %s: %v", field, shape, err)
		}
		for i, it := range items {
			switch {
			case it.Name == nil || *it.Name == "":
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"%s[%d].name\": is required (a non-empty metric name)", field, i)
			case it.Value == nil:
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"%s[%d].value\": is required (a number)", field, i)
			case seen[*it.Name]:
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"%s[%d].name\": metric %q given twice", field, i, *it.Name)
			}
			seen[*it.Name] = true
			out = append(out, metric{*it.Name, *it.Value})
		}
	default:
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: expected %s", field, shape)
	}
	return out, nil
}

// compareMetrics builds the performance_regression result.
func compareMetrics(base, cur []metric, def float64, perMetric map[string]float64, lowerIsBetter bool) *regressionResult {
	res := &regressionResult{
		LowerIsBetter:     lowerIsBetter,
		Metrics:           []metricComparison{},
		MissingInCurrent:  []string{},
		MissingInBaseline: []string{},
		Overall:           regressionOverall{Regressions: []string{}, Improvements: []string{}},
		Warnings:          []string{},
	}
	curByName := map[string]float64{}
	for _, m := range cur {
		curByName[m.name] = m.value
	}
	baseNames := map[string]bool{}
	for _, b := range base {
		baseNames[b.name] = true
		c, ok := curByName[b.name]
		if !ok {
			res.MissingInCurrent = append(res.MissingInCurrent, b.name)
			continue
		}
		threshold := def
		if t, ok := perMetric[b.name]; ok {
			threshold = t
		}
		mc := compareMetric(b.name, b.value, c, threshold, lowerIsBetter)
		res.Metrics = append(res.Metrics, mc)
		switch mc.Verdict {
		case verdictRegression:
			res.Overall.Regressions = append(res.Overall.Regressions, mc.Name)
		case verdictImprovement:
			res.Overall.Improvements = append(res.Overall.Improvements, mc.Name)
		}
	}
	for _, m := range cur {
		if !baseNames[m.name] {
			res.MissingInBaseline = append(res.MissingInBaseline, m.name)
		}
	}
	for _, name := range sortedKeys(perMetric) {
		if _, inCur := curByName[name]; !baseNames[name] && !inCur {
			res.Warnings = append(res.Warnings, fmt.Sprintf("thresholds.perMetric.%s: no metric of that name in baseline or current", name))
		}
	}
	res.Overall.Compared = len(res.Metrics)
	res.Overall.Regressed = len(res.Overall.Regressions) > 0
	return res
}

// compareMetric gives the change and verdict of one metric.
func compareMetric(name string, base, cur, threshold float64, lowerIsBetter bool) metricComparison {
	mc := metricComparison{Name: name, Baseline: base, Current: cur, Change: sig(cur - base), ThresholdPercent: threshold, Verdict: verdictUnchanged}
	// worse is positive when the metric moved in the bad direction.
	worse := cur - base
	if !lowerIsBetter {
		worse = -worse
	}
	if base == 0 {
		if cur != 0 {
			mc.Verdict = verdictImprovement
			if worse > 0 {
				mc.Verdict = verdictRegression
			}
		} else {
			zero := 0.0
			mc.ChangePercent = &zero
		}
		return mc
	}
	pct := (cur - base) / math.Abs(base) * 100
	rp := round2(pct)
	mc.ChangePercent = &rp
	worsePct := worse / math.Abs(base) * 100
	const eps = 1e-9 // float noise, so that exactly the threshold is unchanged
	switch {
	case worsePct > threshold+eps:
		mc.Verdict = verdictRegression
	case worsePct < -threshold-eps:
		mc.Verdict = verdictImprovement
	}
	return mc
}

// sig rounds x to 12 significant digits, dropping float noise such as
// 0.3-0.1 = 0.19999999999999998.
func sig(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
	if v == 0 {
		return 0
	}
	return v
}

// sortedKeys returns the keys of m in ascending order.
func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
