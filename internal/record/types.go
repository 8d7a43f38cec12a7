package record

import (
	"encoding/json"
	"time"
)

// Call is one tools/call as the record keeps it: what was called, how long
// it took and how it ended. Args are redacted and cut; the whole result is
// in [CallDetail].
type Call struct {
	ID      int64     `json:"id"`
	Time    time.Time `json:"time"`
	Session string    `json:"session,omitempty"`
	Tool    string    `json:"tool"`
	// Args is the call's arguments as JSON text, secrets masked, cut to
	// [ArgsCut] bytes (then ending in "…").
	Args       string `json:"args"`
	DurationUs int64  `json:"durationUs"`
	// Outcome is "ok" or "error".
	Outcome string `json:"outcome"`
	// Code is the error code (TIMEOUT, WORKER_DIED, ...) of a failed call.
	Code string `json:"code,omitempty"`
	// Message is the error message of a failed call, cut to [ArgsCut].
	Message     string `json:"message,omitempty"`
	Igor        string `json:"igor,omitempty"`
	ResultBytes int    `json:"resultBytes"`
}

// CallDetail is a call with its whole arguments and result (each cut to
// [ResultCut] bytes, secrets masked).
type CallDetail struct {
	Call
	FullArgs string `json:"fullArgs"`
	Result   string `json:"result"`
	// Truncated says Result was cut.
	Truncated bool `json:"truncated,omitempty"`
}

// Run kinds.
const (
	// RunSession holds the assertions and audits of one MCP session of one
	// server start.
	RunSession = "session"
	// RunReport is one test report (JUnit, TAP, go test -json, ...) read by
	// a report or analysis tool.
	RunReport = "report"
	// RunJob is one finished job of the queue.
	RunJob = "job"
)

// Run is a group of test results: a session's assertions, a report, a job.
type Run struct {
	ID      int64     `json:"id"`
	Kind    string    `json:"kind"`
	Name    string    `json:"name"`
	Session string    `json:"session,omitempty"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
	Passed  int       `json:"passed"`
	Failed  int       `json:"failed"`
	Skipped int       `json:"skipped"`
	// Source is where a report came from (its path) or the job's id.
	Source string `json:"source,omitempty"`
	// Origin is the machine, directory and CI build it was recorded on.
	Origin
}

// Test statuses.
const (
	StatusPassed  = "passed"
	StatusFailed  = "failed"
	StatusSkipped = "skipped"
	// StatusFlaky is a test that failed and then passed on retry in one run.
	StatusFlaky = "flaky"
)

// Test kinds: what produced a test result.
const (
	KindAssertion        = "assertion"         // assert_equals, assert_contains, ...
	KindBrowserAssertion = "browser_assertion" // assert_visible, assert_text, ...
	KindAccessibility    = "accessibility"     // accessibility_audit
	KindReport           = "report"            // one test case of a test report
	KindJob              = "job"               // a job's build and test commands
)

// Test is one test result: an assertion, an audit, a report's test case or
// a job.
type Test struct {
	ID    int64  `json:"id"`
	RunID int64  `json:"runId"`
	Name  string `json:"name"`
	// Suite is the test's suite or class, where it has one.
	Suite      string    `json:"suite,omitempty"`
	Kind       string    `json:"kind"`
	Tool       string    `json:"tool,omitempty"`
	Time       time.Time `json:"time"`
	Session    string    `json:"session,omitempty"`
	Status     string    `json:"status"`
	DurationMs float64   `json:"durationMs"`
	Message    string    `json:"message,omitempty"`
	// Expected and Actual are JSON values, where the test has them.
	Expected json.RawMessage `json:"expected,omitempty"`
	Actual   json.RawMessage `json:"actual,omitempty"`
	// Output is a failed test's output (stack, stdout), cut to 4 KiB.
	Output   string     `json:"output,omitempty"`
	Evidence []Evidence `json:"evidence,omitempty"`
	// CallID is the tools/call that produced it, if one did.
	CallID int64 `json:"callId,omitempty"`
}

// Evidence is a file that shows what a test saw.
type Evidence struct {
	// ID names the evidence in the dashboard's URLs (/api/evidence/{id}).
	ID int64 `json:"id"`
	// Kind is "screenshot", "log", "trace" or "file".
	Kind string `json:"kind"`
	Name string `json:"name,omitempty"`
	// Path is the file on this machine.
	Path string `json:"path"`
	// MIMEType is the file's type, as image/png.
	MIMEType string `json:"mimeType,omitempty"`
}

// Point is one test's result in its history.
type Point struct {
	Time       time.Time `json:"time"`
	RunID      int64     `json:"runId"`
	TestID     int64     `json:"testId"`
	Status     string    `json:"status"`
	DurationMs float64   `json:"durationMs"`
	// RunName is its run's name; Origin where the run was recorded (Dir
	// left out).
	RunName string `json:"runName,omitempty"`
	Origin
}

// History is the results of one test name over time, newest last.
type History struct {
	Name   string  `json:"name"`
	Points []Point `json:"points"`
	// Runs, Failures and Flips count its results, failed ones, and the
	// times its status changed between one result and the next.
	Runs     int `json:"runs"`
	Failures int `json:"failures"`
	Flips    int `json:"flips"`
	// Flakiness is Flips / (Runs - 1): 0 for a steady test, 1 for one that
	// changes every time.
	Flakiness float64 `json:"flakiness"`
}

// Bucket is the calls of one time slice, for the charts.
type Bucket struct {
	Time   time.Time `json:"time"`
	Calls  int       `json:"calls"`
	Errors int       `json:"errors"`
	// Latency percentiles, in milliseconds.
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
}

// Cuts.
const (
	// ArgsCut bounds a call's args and message in lists.
	ArgsCut = 512
	// ResultCut bounds a call's kept result and args.
	ResultCut = 64 << 10
	// OutputCut bounds a failed test's output.
	OutputCut = 4 << 10
)
