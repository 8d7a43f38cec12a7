package report

import (
	"cmp"
	"context"
	"slices"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/stats"
	"github.com/barrhawk/barrhawk/internal/testreport"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// timingStats are the duration statistics of a set of tests, in ms.
type timingStats struct {
	TotalMs  float64 `json:"totalMs"`
	MeanMs   float64 `json:"meanMs"`
	MedianMs float64 `json:"medianMs"`
	P90Ms    float64 `json:"p90Ms"`
	P95Ms    float64 `json:"p95Ms"`
	P99Ms    float64 `json:"p99Ms"`
	MinMs    float64 `json:"minMs"`
	MaxMs    float64 `json:"maxMs"`
	StdDevMs float64 `json:"stdDevMs"`
}

// timedTest is one test in a list of report_timing.
type timedTest struct {
	Name       string  `json:"name"`
	Suite      string  `json:"suite,omitempty"`
	Status     string  `json:"status"`
	DurationMs float64 `json:"durationMs"`
}

// suiteTiming is the timing of one suite.
type suiteTiming struct {
	Name     string  `json:"name"`
	Count    int     `json:"count"`
	TotalMs  float64 `json:"totalMs"`
	MeanMs   float64 `json:"meanMs"`
	MedianMs float64 `json:"medianMs"`
	P95Ms    float64 `json:"p95Ms"`
	MaxMs    float64 `json:"maxMs"`
	Slowest  string  `json:"slowest"`
}

// thresholdReport lists the tests slower than a threshold.
type thresholdReport struct {
	ThresholdMs float64     `json:"thresholdMs"`
	Count       int         `json:"count"`
	Tests       []timedTest `json:"tests"`
}

// timingResult is what report_timing returns.
type timingResult struct {
	Count            int              `json:"count"`
	Excluded         int              `json:"excluded"`
	PercentileMethod string           `json:"percentileMethod"`
	Stats            *timingStats     `json:"stats"`
	Slowest          []timedTest      `json:"slowest"`
	OverThreshold    *thresholdReport `json:"overThreshold,omitempty"`
	Suites           []suiteTiming    `json:"suites"`
	// Sources says what each report file held, when the results came
	// from source.
	Sources []testreport.SourceInfo `json:"sources,omitempty"`
}

func reportTiming() tool.Tool {
	type args struct {
		resultsArgs
		ShowSlowest *int     `json:"showSlowest"`
		ThresholdMs *float64 `json:"thresholdMs"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "report_timing",
			Description: "Timing statistics of test results, given or read from what a test runner wrote. Only tests that ran (passed or failed) and have a duration are timed; " +
				"the rest are counted in excluded. Returns {count, excluded, percentileMethod, stats: {totalMs, meanMs, medianMs, " +
				"p90Ms, p95Ms, p99Ms, minMs, maxMs, stdDevMs} (null when nothing was timed), slowest: [{name, suite, status, " +
				"durationMs}] (the showSlowest slowest, slowest first), overThreshold: {thresholdMs, count, tests} (only with " +
				"thresholdMs; tests strictly slower than it, slowest first), suites: [{name, count, totalMs, meanMs, medianMs, " +
				"p95Ms, maxMs, slowest}] (largest total first)}. Percentiles interpolate linearly between closest ranks " +
				"(numpy default, Excel PERCENTILE.INC), so the median of an even count is the mean of the middle two; stdDevMs is " +
				"the population standard deviation. Values are rounded to 2 decimals. Instead of results, source reads what a test " +
				"runner wrote (JUnit XML, TAP, go test -json, Playwright or Jest JSON: a file, glob, directory or the text; a retried " +
				"test is timed by its final attempt); then sources says what each file held.",
			Phrases:  []string{"slowest tests", "test durations", "p95 test time", "which tests are slow", "speed up test suite", "long running tests"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(append(resultsProps(),
				schema.Integer("showSlowest", "How many of the slowest tests to list (0 for none)").Min(0).Default(10),
				schema.Number("thresholdMs", "List the tests slower than this many milliseconds; omit to skip the check").Min(0),
			)...),
			RequiresWorker: true,
			UsesRoots:      true,
		},
		Run: tool.Typed(func(ctx context.Context, in args, _ *tool.Call) (any, error) {
			l, err := in.load(ctx)
			if err != nil {
				return nil, err
			}
			n := 10
			if in.ShowSlowest != nil {
				n = *in.ShowSlowest
			}
			if n < 0 {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"showSlowest\": expected an integer >= 0, got %d", n)
			}
			if in.ThresholdMs != nil && *in.ThresholdMs < 0 {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"thresholdMs\": expected milliseconds >= 0, got %v", *in.ThresholdMs)
			}
			res := timing(l.results, n, in.ThresholdMs)
			res.Sources = l.sources
			return res, nil
		}),
	}
}

// timing builds the report_timing result.
func timing(results []testResult, showSlowest int, threshold *float64) *timingResult {
	res := &timingResult{PercentileMethod: stats.Method, Slowest: []timedTest{}, Suites: []suiteTiming{}}
	var timed []timedTest
	for i := range results {
		r := &results[i]
		if r.Duration == nil || (r.Status != statusPassed && r.Status != statusFailed) {
			res.Excluded++
			continue
		}
		timed = append(timed, timedTest{Name: r.Name, Suite: r.Suite, Status: r.Status, DurationMs: *r.Duration})
	}
	res.Count = len(timed)
	if len(timed) > 0 {
		res.Stats = timingOf(timed)
	}

	slowestFirst := func(a, b timedTest) int { return cmp.Compare(b.DurationMs, a.DurationMs) }
	sorted := slices.Clone(timed)
	slices.SortStableFunc(sorted, slowestFirst)
	for _, t := range sorted[:min(showSlowest, len(sorted))] {
		res.Slowest = append(res.Slowest, rounded(t))
	}
	if threshold != nil {
		res.OverThreshold = &thresholdReport{ThresholdMs: *threshold, Tests: []timedTest{}}
		for _, t := range sorted {
			if t.DurationMs > *threshold {
				res.OverThreshold.Tests = append(res.OverThreshold.Tests, rounded(t))
			}
		}
		res.OverThreshold.Count = len(res.OverThreshold.Tests)
	}

	for _, g := range stats.GroupBy(timed, func(t timedTest) string { return suiteName(t.Suite) }) {
		st := timingOf(g.Items)
		slowest := slices.MaxFunc(g.Items, func(a, b timedTest) int { return cmp.Compare(a.DurationMs, b.DurationMs) })
		res.Suites = append(res.Suites, suiteTiming{
			Name: g.Key, Count: len(g.Items), TotalMs: st.TotalMs, MeanMs: st.MeanMs, MedianMs: st.MedianMs,
			P95Ms: st.P95Ms, MaxMs: st.MaxMs, Slowest: slowest.Name,
		})
	}
	slices.SortStableFunc(res.Suites, func(a, b suiteTiming) int { return cmp.Compare(b.TotalMs, a.TotalMs) })
	return res
}

// timingOf computes the statistics of a non-empty set of tests.
func timingOf(tests []timedTest) *timingStats {
	d := make([]float64, len(tests))
	for i, t := range tests {
		d[i] = t.DurationMs
	}
	d = stats.Sorted(d)
	return &timingStats{
		TotalMs:  round2(stats.Sum(d)),
		MeanMs:   round2(stats.Mean(d)),
		MedianMs: round2(stats.Median(d)),
		P90Ms:    round2(stats.Percentile(d, 90)),
		P95Ms:    round2(stats.Percentile(d, 95)),
		P99Ms:    round2(stats.Percentile(d, 99)),
		MinMs:    round2(d[0]),
		MaxMs:    round2(d[len(d)-1]),
		StdDevMs: round2(stats.StdDev(d)),
	}
}

// rounded returns t with its duration rounded to 2 decimals.
func rounded(t timedTest) timedTest {
	t.DurationMs = round2(t.DurationMs)
	return t
}
