package report

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/stats"
	"github.com/barrhawk/barrhawk/internal/testreport"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// counts are the numbers of tests by status.
type counts struct {
	Total   int `json:"total"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	Pending int `json:"pending"`
}

func (c *counts) add(status string) {
	c.Total++
	switch status {
	case statusPassed:
		c.Passed++
	case statusFailed:
		c.Failed++
	case statusSkipped:
		c.Skipped++
	case statusPending:
		c.Pending++
	}
}

// passRate is passed/(passed+failed) in percent, or nil when no test ran.
func (c *counts) passRate() *float64 {
	ran := c.Passed + c.Failed
	if ran == 0 {
		return nil
	}
	r := round2(float64(c.Passed) * 100 / float64(ran))
	return &r
}

// suiteSummary is one suite of a report_summary result.
type suiteSummary struct {
	Name string `json:"name"`
	counts
	PassRate   *float64 `json:"passRate"`
	DurationMs float64  `json:"durationMs"`
}

// durationSummary is the duration part of a report_summary result.
type durationSummary struct {
	TotalMs   float64  `json:"totalMs"`
	AverageMs *float64 `json:"averageMs"`
	Measured  int      `json:"measured"`
}

// namedTest names a test in lists of a summary.
type namedTest struct {
	Name    string `json:"name"`
	Suite   string `json:"suite,omitempty"`
	Error   string `json:"error,omitempty"`
	Retries int    `json:"retries,omitempty"`
}

// summaryResult is what report_summary returns.
type summaryResult struct {
	Title  string `json:"title"`
	Status string `json:"status"`
	counts
	PassRate    *float64                `json:"passRate"`
	Duration    durationSummary         `json:"duration"`
	Suites      []suiteSummary          `json:"suites"`
	FailedTests []namedTest             `json:"failedTests"`
	FlakyTests  []namedTest             `json:"flakyTests"`
	RunErrors   []string                `json:"runErrors,omitempty"`
	Sources     []testreport.SourceInfo `json:"sources,omitempty"`
	Format      string                  `json:"format"`
	Report      string                  `json:"report,omitempty"`
}

func reportSummary() tool.Tool {
	type args struct {
		resultsArgs
		Format string `json:"format"`
		Title  string `json:"title"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "report_summary",
			Description: "Summarise test results, given or read from what a test runner wrote (JUnit XML, TAP, go test -json, Playwright, Jest): " +
				"counts by status, pass rate, durations and a per-suite breakdown. " +
				"Returns {title, status, total, passed, failed, skipped, pending, passRate, duration: {totalMs, averageMs, measured}, " +
				"suites: [{name, total, passed, failed, skipped, pending, passRate, durationMs}], failedTests: [{name, suite, error}], " +
				"flakyTests: [{name, suite, retries}], format, report}. status is failed when any test failed, passed when at least one " +
				"passed and none failed, empty otherwise. passRate is passed/(passed+failed) in percent (2 decimals), null when no test " +
				"passed or failed. averageMs is over the measured results (those with a duration). flakyTests are passed tests that " +
				"needed retries. Results without a suite are grouped as \"(no suite)\". With format markdown or text, report holds a " +
				"ready-to-paste report; with json it is omitted. Instead of results, source reads what a test runner wrote (JUnit XML, " +
				"TAP, go test -json, Playwright or Jest JSON: a file, glob, directory or the text); then sources says what each file " +
				"held [{path, format, results, errors?, recordRun?: its run in the record the dashboard shows}], and runErrors lists failures outside any test (a spec that did not load, a " +
				"package that did not build), which make status failed.",
			Phrases:  []string{"test results overview", "how many tests passed", "junit summary", "what percent passed", "test report markdown", "ci results summary", "summary for PR comment"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(append(resultsProps(),
				schema.String("format", "Output format: json for numbers only, markdown or text to also get a ready-to-paste report").Enum("json", "markdown", "text").Default("json"),
				schema.String("title", "Title of the report").Default("Test Summary"),
			)...),
			RequiresWorker: true,
			UsesRoots:      true,
		},
		Run: tool.Typed(func(ctx context.Context, in args, _ *tool.Call) (any, error) {
			l, err := in.load(ctx)
			if err != nil {
				return nil, err
			}
			if in.Format == "" {
				in.Format = "json"
			}
			if in.Title == "" {
				in.Title = "Test Summary"
			}
			s := summarize(l.results, in.Title)
			s.Sources, s.RunErrors = l.sources, l.runErrors
			if len(s.RunErrors) > 0 {
				s.Status = "failed"
			}
			s.Format = in.Format
			switch in.Format {
			case "json":
			case "markdown":
				s.Report = s.markdown()
			case "text":
				s.Report = s.text()
			default:
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"format\": expected one of \"json\", \"markdown\", \"text\", got %q", in.Format)
			}
			return s, nil
		}),
	}
}

// summarize computes the numbers of a summary.
func summarize(results []testResult, title string) *summaryResult {
	s := &summaryResult{Title: title, Suites: []suiteSummary{}, FailedTests: []namedTest{}, FlakyTests: []namedTest{}}
	var measuredMs float64
	for i := range results {
		r := &results[i]
		s.add(r.Status)
		if r.Duration != nil {
			s.Duration.Measured++
			measuredMs += *r.Duration
		}
		switch {
		case r.Status == statusFailed:
			s.FailedTests = append(s.FailedTests, namedTest{Name: r.Name, Suite: r.Suite, Error: firstLine(r.Error)})
		case r.Status == statusPassed && r.Retries > 0:
			s.FlakyTests = append(s.FlakyTests, namedTest{Name: r.Name, Suite: r.Suite, Retries: r.Retries})
		}
	}
	for _, g := range stats.GroupBy(results, func(r testResult) string { return suiteName(r.Suite) }) {
		su := suiteSummary{Name: g.Key}
		for _, r := range g.Items {
			su.add(r.Status)
			if r.Duration != nil {
				su.DurationMs += *r.Duration
			}
		}
		su.PassRate = su.passRate()
		su.DurationMs = round2(su.DurationMs)
		s.Suites = append(s.Suites, su)
	}
	s.PassRate = s.passRate()
	s.Duration.TotalMs = round2(measuredMs)
	if s.Duration.Measured > 0 {
		avg := round2(measuredMs / float64(s.Duration.Measured))
		s.Duration.AverageMs = &avg
	}
	switch {
	case s.Failed > 0:
		s.Status = "failed"
	case s.Passed > 0:
		s.Status = "passed"
	default:
		s.Status = "empty"
	}
	return s
}

// hasSuites reports whether any result named a suite.
func (s *summaryResult) hasSuites() bool {
	return len(s.Suites) > 1 || (len(s.Suites) == 1 && s.Suites[0].Name != noSuite)
}

func (s *summaryResult) statusWord() string {
	switch s.Status {
	case "failed":
		return "FAILED"
	case "passed":
		return "PASSED"
	}
	return "NO TESTS RAN"
}

func (s *summaryResult) durationText() string {
	if s.Duration.Measured == 0 {
		return "n/a"
	}
	return formatMs(s.Duration.TotalMs)
}

// markdown renders the summary as Markdown.
func (s *summaryResult) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", s.Title)
	if s.Total == 0 {
		b.WriteString("No test results.\n")
		if len(s.RunErrors) > 0 {
			b.WriteString("\n## Run errors\n\n")
			for _, e := range s.RunErrors {
				b.WriteString("- " + mdCode(firstLine(e)) + "\n")
			}
		}
		return b.String()
	}
	fmt.Fprintf(&b, "**Status: %s** (%d tests, pass rate %s, duration %s)\n\n", s.statusWord(), s.Total, formatPercent(s.PassRate), s.durationText())
	b.WriteString("| Total | Passed | Failed | Skipped | Pending | Pass rate | Duration |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %s | %s |\n", s.Total, s.Passed, s.Failed, s.Skipped, s.Pending, formatPercent(s.PassRate), s.durationText())
	if s.hasSuites() {
		b.WriteString("\n## Suites\n\n")
		b.WriteString("| Suite | Total | Passed | Failed | Skipped | Pending | Pass rate | Duration |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, su := range s.Suites {
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %s | %s |\n", mdCell(su.Name), su.Total, su.Passed, su.Failed, su.Skipped, su.Pending, formatPercent(su.PassRate), formatMs(su.DurationMs))
		}
	}
	if len(s.FailedTests) > 0 {
		b.WriteString("\n## Failed tests\n\n")
		for _, t := range s.FailedTests {
			b.WriteString("- " + mdTest(t.Name, t.Suite))
			if t.Error != "" {
				b.WriteString(": " + mdCode(t.Error))
			}
			b.WriteString("\n")
		}
	}
	if len(s.RunErrors) > 0 {
		b.WriteString("\n## Run errors\n\n")
		for _, e := range s.RunErrors {
			b.WriteString("- " + mdCode(firstLine(e)) + "\n")
		}
	}
	if len(s.FlakyTests) > 0 {
		b.WriteString("\n## Flaky tests (passed after retries)\n\n")
		for _, t := range s.FlakyTests {
			b.WriteString("- " + mdTest(t.Name, t.Suite))
			fmt.Fprintf(&b, ": %s\n", plural(t.Retries, "retry", "retries"))
		}
	}
	return b.String()
}

// text renders the summary as plain text.
func (s *summaryResult) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s\n", s.Title, strings.Repeat("=", max(1, utf8.RuneCountInString(s.Title))))
	if s.Total == 0 {
		b.WriteString("No test results.\n")
		for _, e := range s.RunErrors {
			b.WriteString("Run error: " + firstLine(e) + "\n")
		}
		return b.String()
	}
	fmt.Fprintf(&b, "Status: %s\n", s.statusWord())
	fmt.Fprintf(&b, "Tests: %d total, %d passed, %d failed, %d skipped, %d pending\n", s.Total, s.Passed, s.Failed, s.Skipped, s.Pending)
	fmt.Fprintf(&b, "Pass rate: %s\n", formatPercent(s.PassRate))
	if s.Duration.AverageMs != nil {
		fmt.Fprintf(&b, "Duration: %s total, %s average\n", formatMs(s.Duration.TotalMs), formatMs(*s.Duration.AverageMs))
	} else {
		b.WriteString("Duration: n/a\n")
	}
	if s.hasSuites() {
		b.WriteString("\nSuites:\n")
		for _, su := range s.Suites {
			fmt.Fprintf(&b, "  %s: %d total, %d passed, %d failed, %d skipped, %d pending, %s\n", su.Name, su.Total, su.Passed, su.Failed, su.Skipped, su.Pending, formatMs(su.DurationMs))
		}
	}
	if len(s.FailedTests) > 0 {
		b.WriteString("\nFailed tests:\n")
		for _, t := range s.FailedTests {
			b.WriteString("  - " + textTest(t.Name, t.Suite))
			if t.Error != "" {
				b.WriteString(": " + t.Error)
			}
			b.WriteString("\n")
		}
	}
	if len(s.RunErrors) > 0 {
		b.WriteString("\nRun errors:\n")
		for _, e := range s.RunErrors {
			b.WriteString("  - " + firstLine(e) + "\n")
		}
	}
	if len(s.FlakyTests) > 0 {
		b.WriteString("\nFlaky tests (passed after retries):\n")
		for _, t := range s.FlakyTests {
			b.WriteString("  - " + textTest(t.Name, t.Suite))
			fmt.Fprintf(&b, ": %s\n", plural(t.Retries, "retry", "retries"))
		}
	}
	return b.String()
}

// plural formats n with the singular or plural noun.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// textTest names a test for a plain-text list: its name, and its suite, if
// any, in brackets.
func textTest(name, suite string) string {
	if suite == "" {
		return name
	}
	return name + " [" + suite + "]"
}
