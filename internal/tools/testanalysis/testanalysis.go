// Package testanalysis holds the tools that analyse test suites and the test
// run histories an agent collects from CI: test_flaky_detect,
// test_prioritize, test_deduplicate and test_coverage_gaps. They compute
// only from their arguments and the report files those name (read by
// internal/testreport, in the Igor, through the allowed roots), so the
// same input always gives the same output; but for fromRecord, which
// reads the history BarrHawk recorded (internal/record). The reports they
// read are recorded too.
package testanalysis

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/barrhawk/barrhawk/internal/record"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/stats"
	"github.com/barrhawk/barrhawk/internal/testreport"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tools/report"
)

// Group is the heading these tools are listed under.
const Group = "Test Analysis"

// Tools returns the family's tools, in the order they are listed.
func Tools() []tool.Tool {
	return []tool.Tool{flakyDetect(), prioritize(), deduplicate(), coverageGaps()}
}

// maxRuns bounds the runs of one history and maxTests the tests of one
// suite, to keep a call fast.
const (
	maxRuns  = 100000
	maxTests = 2000
)

// run is one test result from a CI history.
type run struct {
	Name                string          `json:"name"`
	Status              string          `json:"status"`
	Duration            *float64        `json:"duration"`
	Timestamp           json.RawMessage `json:"timestamp"`
	RunID               string          `json:"runId"`
	Retries             int             `json:"retries"`
	ChangedFilesCovered bool            `json:"changedFilesCovered"`

	at    float64 // timestamp in Unix seconds
	hasAt bool
}

// historyProps are the arguments test_flaky_detect and test_prioritize
// take their history from: testHistory (extra is the entry property only
// that tool reads), source and sourceFormat, or fromRecord.
func historyProps(extra schema.Prop) []schema.Prop {
	return []schema.Prop{historyProp(extra), testreport.HistoryProp("source", "testHistory"), testreport.FormatProp(), fromRecordProp()}
}

// Bounds of fromRecord.limit.
const (
	defaultRecordLimit = 50
	maxRecordLimit     = record.HistoryLimit
)

// fromRecordProp is the fromRecord argument.
func fromRecordProp() schema.Prop {
	return schema.Of("fromRecord", "Instead of testHistory or source: the history BarrHawk recorded (dashboard.record, on by default): "+
		"every assertion, accessibility audit and test case of the reports its tools read, a test named by its suite and title "+
		"(suite > title), or an assertion by its tool and arguments. A test that failed and then passed on a retry within a run "+
		"is a retried pass", schema.Object(
		schema.String("name", "Glob over test names: * any text, ? one character, case-sensitive").Min(1).Default("*"),
		schema.String("since", "Oldest result read: an RFC 3339 time, or a duration back from now such as 168h or 7d").Default("30d"),
		schema.Integer("limit", "Latest results read per test").Min(1).Max(maxRecordLimit).Default(defaultRecordLimit),
	))
}

// recordArgs are the fromRecord argument.
type recordArgs struct {
	Name  string `json:"name"`
	Since string `json:"since"`
	Limit *int   `json:"limit"`
}

// historyProp is the testHistory argument.
func historyProp(extra schema.Prop) schema.Prop {
	return schema.Array("testHistory", "Test results, one entry per test per CI run, in any order; or give source", schema.ObjectItems(
		schema.String("name", "Test name, unique per test (such as file > suite > title)").Min(1).Required(),
		schema.String("status", "Outcome of the run").Enum("passed", "failed", "skipped").Required(),
		schema.Number("duration", "Run time in milliseconds").Min(0),
		schema.String("timestamp", "When the run happened: an RFC 3339 string (2024-05-01T12:00:00Z), a date "+
			"(2024-05-01), or Unix time as a number (seconds, or milliseconds when above 1e11). Runs are put in time "+
			"order when every run of a test has one, otherwise they keep the order given").Types("string", "number"),
		extra,
		schema.Integer("retries", "How many times the test was retried within the run before its final status").Min(0),
	)).Max(maxRuns)
}

// historyArgs are the arguments a run history is taken from.
type historyArgs struct {
	TestHistory  []run             `json:"testHistory"`
	Source       testreport.Source `json:"source"`
	SourceFormat string            `json:"sourceFormat"`
	FromRecord   *recordArgs       `json:"fromRecord"`
}

// load returns the history given, read from source or from the record,
// the number of results it holds and, for a source, what each report
// file held.
func (a *historyArgs) load(ctx context.Context) (history, int, []testreport.SourceInfo, error) {
	var given []string
	for i, ok := range []bool{a.TestHistory != nil, a.Source != nil, a.FromRecord != nil} {
		if ok {
			given = append(given, strconv.Quote([]string{"testHistory", "source", "fromRecord"}[i]))
		}
	}
	switch {
	case len(given) == 3:
		return nil, 0, nil, tool.Errorf(tool.CodeInvalidArgs, "arguments \"testHistory\", \"source\" and \"fromRecord\": give one of them, not all three")
	case len(given) == 2:
		return nil, 0, nil, tool.Errorf(tool.CodeInvalidArgs, "arguments %s and %s: give one of them, not both", given[0], given[1])
	case len(given) == 0:
		return nil, 0, nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"testHistory\": is required, or give source (report files a test runner wrote, one a run) or fromRecord (the history BarrHawk recorded)")
	case a.FromRecord != nil:
		if a.SourceFormat != "" {
			return nil, 0, nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"sourceFormat\": is the format of source, which is not given")
		}
		runs, err := a.FromRecord.runs(ctx)
		if err != nil {
			return nil, 0, nil, err
		}
		h, err := parseHistory("fromRecord", runs)
		return h, len(runs), nil, err
	case a.Source == nil:
		if a.SourceFormat != "" {
			return nil, 0, nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"sourceFormat\": is the format of source, which is not given")
		}
		h, err := parseHistory("testHistory", a.TestHistory)
		return h, len(a.TestHistory), nil, err
	}
	reps, err := loadReports(ctx, a.Source, a.SourceFormat)
	if err != nil {
		return nil, 0, nil, err
	}
	var runs []run
	for _, rep := range reps {
		at, hasAt := 0.0, !rep.Started.IsZero()
		if hasAt {
			at = float64(rep.Started.UnixNano()) / 1e9
		}
		for i := range rep.Results {
			r := &rep.Results[i]
			status := string(r.Status)
			if r.Status == testreport.Pending {
				status = "skipped" // a todo did not run
			}
			ru := run{Name: r.ID(), Status: status, RunID: rep.Name, Retries: r.Retries, at: at, hasAt: hasAt}
			if r.HasDuration {
				ru.Duration = new(r.DurationMs)
			}
			runs = append(runs, ru)
		}
	}
	h, err := parseHistory("source", runs)
	return h, len(runs), testreport.Infos(reps), err
}

// runs reads the history fromRecord selects, as runs of the tools' shape:
// one test's results in time order, a flaky result (it failed, then
// passed on a retry) a pass with a retry.
func (a *recordArgs) runs(ctx context.Context) ([]run, error) {
	pattern := cmp.Or(a.Name, "*")
	since, err := record.ParseSince(a.Since, time.Now())
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"fromRecord.since\": %v", err)
	}
	limit := defaultRecordLimit
	if a.Limit != nil {
		limit = *a.Limit
	}
	if limit < 1 || limit > maxRecordLimit {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"fromRecord.limit\": expected 1 to %d, got %d", maxRecordLimit, limit)
	}
	s, err := record.ToolStore("fromRecord")
	if err != nil {
		return nil, err
	}
	hs, err := s.Histories(ctx, pattern, since, limit)
	if err != nil {
		return nil, tool.Errorf(tool.CodeToolError, "argument \"fromRecord\": %v", err)
	}
	var runs []run
	for _, h := range hs {
		for _, p := range h.Points {
			r := run{Name: h.Name, Status: p.Status, Duration: new(p.DurationMs), RunID: strconv.FormatInt(p.RunID, 10),
				at: float64(p.Time.UnixNano()) / 1e9, hasAt: true}
			if p.Status == record.StatusFlaky {
				r.Status, r.Retries = "passed", 1
			}
			runs = append(runs, r)
		}
	}
	return runs, nil
}

// loadReports reads the reports of a source argument, as the report tools
// do (report.ReadReports: through the allowed roots, and recorded).
func loadReports(ctx context.Context, src testreport.Source, sourceFormat string) ([]*testreport.Report, error) {
	format, err := testreport.ParseFormat("sourceFormat", sourceFormat)
	if err != nil {
		return nil, err
	}
	return report.ReadReports(ctx, "source", src, format)
}

// history is the runs of every test: one group a test, keyed by its name,
// in order of first appearance, each test's runs in time order.
type history []stats.Group[string, run]

// parseHistory validates the runs and groups them by test.
func parseHistory(field string, in []run) (history, error) {
	if len(in) > maxRuns {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: at most %d runs per call, got %d", field, maxRuns, len(in))
	}
	runs := make([]run, len(in))
	for i, r := range in {
		at := func(format string, a ...any) error {
			return tool.Errorf(tool.CodeInvalidArgs, "argument \"%s[%d].%s", field, i, fmt.Sprintf(format, a...))
		}
		if r.Name == "" {
			return nil, at("name\": is required (a non-empty string)")
		}
		switch r.Status {
		case "passed", "failed", "skipped":
		default:
			return nil, at("status\": expected passed, failed or skipped, got %q", r.Status)
		}
		if r.Duration != nil && (*r.Duration < 0 || math.IsNaN(*r.Duration)) {
			return nil, at("duration\": expected milliseconds >= 0, got %v", *r.Duration)
		}
		if r.Retries < 0 {
			return nil, at("retries\": expected a count >= 0, got %d", r.Retries)
		}
		if r.Timestamp != nil { // else a run from a report: at is its start, where it has one
			t, ok, err := parseTime(r.Timestamp)
			if err != nil {
				return nil, at("timestamp\": %v", err)
			}
			r.at, r.hasAt = t, ok
		}
		runs[i] = r
	}
	h := history(stats.GroupBy(runs, func(r run) string { return r.Name }))
	for _, g := range h {
		if !slices.ContainsFunc(g.Items, func(r run) bool { return !r.hasAt }) {
			slices.SortStableFunc(g.Items, func(a, b run) int { return cmp.Compare(a.at, b.at) })
		}
	}
	return h, nil
}

// timeLayouts are the accepted timestamp strings.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05", time.DateOnly}

// parseTime reads a timestamp: absent or null gives ok false.
func parseTime(raw json.RawMessage) (float64, bool, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return 0, false, fmt.Errorf("expected an RFC 3339 string or a Unix time number, got %s", raw)
		}
		if math.Abs(f) > 1e11 {
			f /= 1000
		}
		return f, true, nil
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return float64(t.UnixNano()) / 1e9, true, nil
		}
	}
	return 0, false, fmt.Errorf("%q is not a timestamp; expected RFC 3339 such as 2024-05-01T12:00:00Z, a date such as 2024-05-01, or Unix time", s)
}

// figures are the figures of one test's runs.
type figures struct {
	runs, passes, failures, skipped int
	// retriedPasses counts runs that passed only after retries.
	retriedPasses int
	// flips counts outcome changes between consecutive non-skipped runs.
	flips int
	// sinceFailure is the number of non-skipped runs after the last
	// failure; -1 when the test never failed.
	sinceFailure int
	failureRate  float64
	flipRate     float64
	balance      float64
	score        float64
	avgDuration  *float64
	lastStatus   string
	changed      bool
}

// Flakiness score weights: score = flipWeight*flipRate + balanceWeight*balance.
const (
	flipWeight    = 0.6
	balanceWeight = 0.4
)

// flakinessFormula documents the score for descriptions.
const flakinessFormula = "score = 0.6*flipRate + 0.4*balance, where failureRate = failures/(passes+failures), " +
	"balance = 1-|2*failureRate-1| (1 when half the runs fail, 0 when all pass or all fail), and " +
	"flipRate = min(1, (flips+retriedPasses)/max(1, passes+failures-1)); flips are outcome changes between " +
	"consecutive runs in time order, retriedPasses are passes that needed retries, skipped runs are ignored"

// compute returns the figures of a test's runs, in time order.
func compute(runs []run) figures {
	s := figures{runs: len(runs), sinceFailure: -1}
	prev := ""
	var durations []float64
	for _, r := range runs {
		if r.Duration != nil {
			durations = append(durations, *r.Duration)
		}
		if r.ChangedFilesCovered {
			s.changed = true
		}
		switch r.Status {
		case "skipped":
			s.skipped++
			continue
		case "passed":
			s.passes++
			if r.Retries > 0 {
				s.retriedPasses++
			}
		case "failed":
			s.failures++
		}
		if prev != "" && prev != r.Status {
			s.flips++
		}
		prev = r.Status
		s.lastStatus = r.Status
		switch {
		case r.Status == "failed":
			s.sinceFailure = 0
		case s.sinceFailure >= 0:
			s.sinceFailure++
		}
	}
	if len(durations) > 0 {
		avg := stats.Round(stats.Mean(durations), 3)
		s.avgDuration = &avg
	}
	n := s.passes + s.failures
	if n > 0 {
		s.failureRate = float64(s.failures) / float64(n)
		s.balance = 1 - math.Abs(2*s.failureRate-1)
		s.flipRate = math.Min(1, float64(s.flips+s.retriedPasses)/float64(max(1, n-1)))
	}
	s.score = stats.Round(flipWeight*s.flipRate+balanceWeight*s.balance, 3)
	s.failureRate = stats.Round(s.failureRate, 3)
	return s
}
