// Package report holds the reporting and performance tools: report_summary,
// report_failures, report_timing and performance_regression. The report_*
// tools take the test results an agent has collected, or the reports a
// test runner wrote (read by internal/testreport, in the Igor, through
// the allowed roots), and turn them into numbers and ready-to-paste
// reports. The report files they read are recorded (internal/record), for
// the dashboard and for the histories fromRecord reads.
package report

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/barrhawk/barrhawk/internal/record"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/stats"
	"github.com/barrhawk/barrhawk/internal/testreport"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tools/fs"
)

// Group is the heading of the report_* tools.
const Group = "Reporting"

// PerformanceGroup is the heading of performance_regression.
const PerformanceGroup = "Performance"

// Tools returns the family's tools, in the order they are listed.
func Tools() []tool.Tool {
	return []tool.Tool{reportSummary(), reportFailures(), reportTiming(), performanceRegression()}
}

// Test statuses.
const (
	statusPassed  = "passed"
	statusFailed  = "failed"
	statusSkipped = "skipped"
	statusPending = "pending"
)

// noSuite is the suite name of results that give none.
const noSuite = "(no suite)"

// testResult is one test result as an agent reports it.
type testResult struct {
	Name       string   `json:"name"`
	Status     string   `json:"status"`
	Duration   *float64 `json:"duration"`
	Error      string   `json:"error"`
	Stack      string   `json:"stack"`
	Screenshot string   `json:"screenshot"`
	Suite      string   `json:"suite"`
	File       string   `json:"file"`
	Retries    int      `json:"retries"`
}

// suiteName is the suite a result whose suite field is suite is counted
// under: noSuite when it names none.
func suiteName(suite string) string {
	if suite == "" {
		return noSuite
	}
	return suite
}

// resultsProps are the shared arguments a report_* tool takes its results
// from: results, or source (with sourceFormat) naming what a test runner
// wrote.
func resultsProps() []schema.Prop {
	return []schema.Prop{resultsProp(), testreport.SourceProp("source", "results"), testreport.FormatProp()}
}

// resultsProp is the shared `results` argument.
func resultsProp() schema.Prop {
	return schema.Array("results", "Test results, one object per test (as collected from a test run); or give source", schema.ObjectItems(
		schema.String("name", "Test name").Min(1).Required(),
		schema.String("status", "Outcome of the test").Enum(statusPassed, statusFailed, statusSkipped, statusPending).Required(),
		schema.Number("duration", "Run time in milliseconds").Min(0),
		schema.String("error", "Error message of a failed test"),
		schema.String("stack", "Stack trace of a failed test"),
		schema.String("screenshot", "Path or URL of a screenshot taken on failure"),
		schema.String("suite", "Suite (describe block, spec file title) the test belongs to"),
		schema.String("file", "Source file of the test"),
		schema.Integer("retries", "How many times the test was retried").Min(0),
	))
}

// resultsArgs are the arguments a report_* tool takes its results from.
type resultsArgs struct {
	Results      []testResult      `json:"results"`
	Source       testreport.Source `json:"source"`
	SourceFormat string            `json:"sourceFormat"`
}

// loaded are a call's results and, when they came from source, what each
// report file held.
type loaded struct {
	results   []testResult
	sources   []testreport.SourceInfo
	runErrors []string
}

// load returns the results given, or those source names, read in the
// Igor through the allowed roots (fs.Reader).
func (a *resultsArgs) load(ctx context.Context) (*loaded, error) {
	switch {
	case a.Results != nil && a.Source != nil:
		return nil, tool.Errorf(tool.CodeInvalidArgs, "arguments \"results\" and \"source\": give one of them, not both")
	case a.Source == nil && a.Results == nil:
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"results\": is required, or give source (a report file, glob, directory or text a test runner wrote)")
	case a.Source == nil:
		if a.SourceFormat != "" {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"sourceFormat\": is the format of source, which is not given")
		}
		if err := checkResults(a.Results); err != nil {
			return nil, err
		}
		return &loaded{results: a.Results}, nil
	}
	format, err := testreport.ParseFormat("sourceFormat", a.SourceFormat)
	if err != nil {
		return nil, err
	}
	reps, err := ReadReports(ctx, "source", a.Source, format)
	if err != nil {
		return nil, err
	}
	l := &loaded{results: []testResult{}, sources: testreport.Infos(reps)}
	for _, rep := range reps {
		for i := range rep.Results {
			l.results = append(l.results, resultOf(&rep.Results[i]))
		}
		for _, e := range rep.Errors {
			l.runErrors = append(l.runErrors, rep.Name+": "+e)
		}
	}
	return l, nil
}

// ReadReports reads the reports src (argument arg) names, in the Igor,
// through the allowed roots (fs.Reader), and records them
// (record.ImportShared). The test-analysis tools read theirs with it too.
func ReadReports(ctx context.Context, arg string, src testreport.Source, format testreport.Format) ([]*testreport.Report, error) {
	files, err := fs.NewReader(ctx)
	if err != nil {
		return nil, err
	}
	defer files.Close()
	reps, err := testreport.Load(ctx, files, arg, src, format)
	if err != nil {
		return nil, err
	}
	// The record is a by-product: failing to keep it does not fail the call.
	_, _ = record.ImportShared(ctx, reps)
	return reps, nil
}

// resultOf is a parsed result in the tools' shape.
func resultOf(r *testreport.Result) testResult {
	t := testResult{Name: r.Name, Status: string(r.Status), Error: r.Error, Stack: r.Stack, Screenshot: r.Screenshot(),
		Suite: r.Suite, File: r.File, Retries: r.Retries}
	if r.HasDuration {
		t.Duration = new(r.DurationMs)
	}
	return t
}

// checkResults re-checks what the schema promises, for callers that skip
// validation, and names the offending item.
func checkResults(results []testResult) error {
	for i := range results {
		r := &results[i]
		if r.Name == "" {
			return tool.Errorf(tool.CodeInvalidArgs, "argument \"results[%d].name\": is required (a non-empty string)", i)
		}
		switch r.Status {
		case statusPassed, statusFailed, statusSkipped, statusPending:
		default:
			return tool.Errorf(tool.CodeInvalidArgs, "argument \"results[%d].status\": expected one of \"passed\", \"failed\", \"skipped\", \"pending\", got %q", i, r.Status)
		}
		if r.Duration != nil && *r.Duration < 0 {
			return tool.Errorf(tool.CodeInvalidArgs, "argument \"results[%d].duration\": expected milliseconds >= 0, got %v", i, *r.Duration)
		}
		if r.Retries < 0 {
			return tool.Errorf(tool.CodeInvalidArgs, "argument \"results[%d].retries\": expected an integer >= 0, got %d", i, r.Retries)
		}
	}
	return nil
}

// round2 rounds to two decimals, the precision of milliseconds and
// percentages in results.
func round2(x float64) float64 { return stats.Round(x, 2) }

// formatMs formats milliseconds for a human: 850ms, 1.25s, 2m 3.4s.
func formatMs(ms float64) string {
	switch {
	case ms < 1000:
		return trimZeros(fmt.Sprintf("%.2f", ms)) + "ms"
	case ms < 60000:
		return trimZeros(fmt.Sprintf("%.2f", ms/1000)) + "s"
	}
	minutes := math.Floor(ms / 60000)
	return fmt.Sprintf("%.0fm %ss", minutes, trimZeros(fmt.Sprintf("%.1f", (ms-minutes*60000)/1000)))
}

// trimZeros drops trailing fractional zeros: "1.50" → "1.5", "2.00" → "2".
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// formatPercent formats a percentage or "n/a".
func formatPercent(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return trimZeros(fmt.Sprintf("%.2f", *p)) + "%"
}

// mdCell escapes text for a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "\r\n", " ")
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "<", `\<`)
	return s
}

// mdCode wraps s in an inline code span that survives backticks inside it.
func mdCode(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", " "), "\n", " ")
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mdTest names a test for Markdown: its name as code, and its suite, if
// any, in parentheses.
func mdTest(name, suite string) string {
	if suite == "" {
		return mdCode(name)
	}
	return mdCode(name) + " (" + mdCell(suite) + ")"
}

// mdBlock is s as a fenced code block, with a fence longer than any run of
// backticks in s.
func mdBlock(s string) string {
	fence := "```"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	return fence + "\n" + strings.TrimRight(s, "\r\n") + "\n" + fence + "\n"
}

// firstLine is the first non-empty line of s, trimmed.
func firstLine(s string) string {
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
