// Package testreport reads what test runners write: JUnit XML (as pytest,
// Maven Surefire, Jest's junit reporter, gotestsum and Node's test runner
// write it), TAP 13 and 14, `go test -json`, Playwright's JSON reporter and
// Jest's --json output, into one model of test results.
//
// Every format is read as a stream (encoding/xml tokens, lines, JSON
// tokens), so a report costs the memory of its results, not of its bytes;
// long texts (an error message, a stack, captured output) are cut to a
// bound. What cannot be read is a *ParseError naming the file, the line and
// what was expected, never an empty result.
//
// The counting rules are the runners': a test with subtests (TAP, go test)
// counts through its subtests, and itself only when it failed while none
// of them did; a test retried within the run is one result, with its
// final status, its retries and its earlier attempts.
package testreport

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// Format names a report format.
type Format string

// The formats Parse reads.
const (
	// JUnit is JUnit XML: <testsuites>/<testsuite>/<testcase>.
	JUnit Format = "junit"
	// TAP is the Test Anything Protocol, versions 13 and 14.
	TAP Format = "tap"
	// GoTest is the JSON lines of `go test -json` (cmd/test2json).
	GoTest Format = "gotest"
	// Playwright is the report of Playwright's JSON reporter.
	Playwright Format = "playwright"
	// Jest is the output of `jest --json`.
	Jest Format = "jest"
)

// Formats lists the formats, in the order they are documented.
var Formats = []Format{JUnit, TAP, GoTest, Playwright, Jest}

// Status is the outcome of a test.
type Status string

// The statuses of a result.
const (
	Passed  Status = "passed"
	Failed  Status = "failed"
	Skipped Status = "skipped"
	// Pending is a test written but not yet meant to pass: TAP's TODO,
	// Node's todo, Jest's todo.
	Pending Status = "pending"
)

// Result is one test of a run.
type Result struct {
	// Name is the test's own title, without its suite.
	Name string
	// Suite is where the test sits, outer first, joined by " > ": the
	// JUnit classname (or the enclosing testsuites' names), the describe
	// blocks, the TAP parent tests, the go package; a Playwright test's
	// project and spec file come first.
	Suite string
	// File is the test's source file, where the format gives it.
	File string
	// Line is the test's line in File, 0 when unknown.
	Line int
	// Status is the final outcome, after any retries.
	Status Status
	// DurationMs is the run time of the final attempt in milliseconds;
	// HasDuration is false when the format gave none.
	DurationMs  float64
	HasDuration bool
	// Error is the failure message of a failed test (the reason of a
	// skipped one), ANSI colours removed; Stack is its stack trace or
	// the rest of the failure text. ErrorType is the exception or
	// failure type where the format names one; Kind is "error" for a
	// JUnit <error> (an unexpected exception, a broken fixture) and
	// "failure" for any other failure.
	Error     string
	Stack     string
	ErrorType string
	Kind      string
	// Retries is how many times the test ran before its final attempt;
	// Flaky is true when an earlier attempt failed and the final one
	// passed (Playwright's flaky, Surefire's flakyFailure, a Jest
	// retry). Attempts are the earlier attempts, oldest first.
	Retries  int
	Flaky    bool
	Attempts []Attempt
	// Attachments are the files the runner kept for the test
	// (screenshots, traces, videos), the final attempt's first.
	Attachments []Attachment
	// Output is a failed test's captured output (JUnit system-out and
	// system-err, go test's lines, Playwright's stdout and stderr), cut
	// to MaxOutputBytes; passed and skipped tests keep none, so that a
	// report's size is not its results'.
	Output string
}

// Attempt is one earlier attempt of a retried test.
type Attempt struct {
	Status      Status
	DurationMs  float64
	HasDuration bool
	Error       string
	Stack       string
}

// Attachment is a file a runner kept for a test.
type Attachment struct {
	Name        string
	Path        string
	ContentType string
}

// ID names the test uniquely within a run: its suite and name joined by
// " > ". Runs of the same test in different reports share it.
func (r *Result) ID() string {
	if r.Suite == "" {
		return r.Name
	}
	return r.Suite + " > " + r.Name
}

// Screenshot is the path of the first image attachment, or "".
func (r *Result) Screenshot() string {
	for _, a := range r.Attachments {
		if strings.HasPrefix(a.ContentType, "image/") || hasImageExt(a.Path) {
			return a.Path
		}
	}
	return ""
}

func hasImageExt(p string) bool {
	p = strings.ToLower(p)
	for _, ext := range []string{".png", ".jpg", ".jpeg", ".webp", ".gif"} {
		if strings.HasSuffix(p, ext) {
			return true
		}
	}
	return false
}

// Report is what one file (or one text) holds.
type Report struct {
	// Name is the file's absolute path, or "source" (with an index when
	// there are several) for a text given inline.
	Name string
	// Format is the format read, detected or given.
	Format Format
	// Started is when the run began, where the report says (a JUnit
	// testsuite timestamp, Playwright's and Jest's startTime, the first
	// go test event); zero otherwise.
	Started time.Time
	// Results are the tests, in the order the report lists them.
	Results []Result
	// Errors are failures of the run outside any test: a spec file that
	// did not load, a suite that failed to run, a TAP bail out, a go
	// package that did not build.
	Errors []string
	// RecordRun is the report's run in BarrHawk's record (the dashboard's
	// runs), once recorded; 0 for text given inline or with the record
	// off. RecordError says why a file was not recorded.
	RecordRun   int64
	RecordError string
}

// Bounds of what one report may hold.
const (
	// MaxFileBytes is the largest file read.
	MaxFileBytes = 256 << 20
	// MaxResults is the most results one call reads, over all its files.
	MaxResults = 250_000
	// MaxTextBytes bounds each kept text: an error message, a stack.
	// Longer ones keep their beginning and a note of the cut.
	MaxTextBytes = 16 << 10
	// MaxOutputBytes bounds a failed test's kept output, likewise.
	MaxOutputBytes = 4 << 10
)

var ansiRe = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`)

// clean removes ANSI colours and cuts s to MaxTextBytes on a character
// boundary, noting the cut.
func clean(s string) string {
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansiRe.ReplaceAllString(s, "")
	}
	return cut(s, MaxTextBytes)
}

// output is a test's output as a Result keeps it: a failed test's, cleaned
// and cut to MaxOutputBytes; none for other tests.
func output(status Status, s string) string {
	if status != Failed {
		return ""
	}
	return cut(clean(strings.TrimSpace(s)), MaxOutputBytes)
}

// cut keeps the first n bytes of s (on a character boundary) and notes
// how much was cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	kept := tool.CutText(s, n)
	return kept + "\n… (" + strconv.Itoa(len(s)-len(kept)) + " more bytes cut)"
}

// splitStack splits a failure text into its message and its stack: the
// stack begins at the first line that reads as a frame ("    at f (file:1:2)",
// "goroutine 1 [running]:", a Python "Traceback"), or is empty.
func splitStack(text string) (msg, stack string) {
	off := 0
	for line := range strings.Lines(text) {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "at ") && off > 0 || strings.HasPrefix(t, "goroutine ") && strings.HasSuffix(t, ":") ||
			strings.HasPrefix(t, "Traceback (most recent call last)") {
			return strings.TrimRight(text[:off], "\n"), strings.TrimRight(text[off:], "\n")
		}
		off += len(line)
	}
	return strings.TrimRight(text, "\n"), ""
}

// joinSuite puts an outer suite before an inner one.
func joinSuite(outer, inner string) string {
	switch {
	case outer == "":
		return inner
	case inner == "":
		return outer
	}
	return outer + " > " + inner
}

// isCtx reports whether err is a context's end.
func isCtx(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// firstLine is the first non-blank line of s, trimmed.
func firstLine(s string) string {
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// interner shares the strings a report repeats (suites, files), so that
// 10,000 tests of one suite hold one copy of its name.
type interner map[string]string

func (in interner) get(s string) string {
	if v, ok := in[s]; ok {
		return v
	}
	if len(in) < 1<<16 {
		in[s] = s
	}
	return s
}
