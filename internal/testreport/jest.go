package testreport

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"
)

// Jest's --json output is {numTotalTests, ..., startTime, testResults}:
// one entry a test file (name is its path), each with assertionResults,
// one a test (ancestorTitles, title, status, duration in ms,
// failureMessages, invocations: how many times it ran under
// jest.retryTimes, retryReasons: the earlier attempts' failures). A
// status pending, skipped or disabled is skipped; todo is pending. A file
// that failed to run (a syntax error, a failing import) is a run error.
// The entries are read one assertion at a time.

type jestAssertion struct {
	AncestorTitles  []string `json:"ancestorTitles"`
	Title           string   `json:"title"`
	Status          string   `json:"status"`
	Duration        *float64 `json:"duration"`
	FailureMessages []string `json:"failureMessages"`
	Invocations     int      `json:"invocations"`
	RetryReasons    []string `json:"retryReasons"`
	Location        *struct {
		Line int `json:"line"`
	} `json:"location"`
}

func parseJest(p *parser, r io.Reader) error {
	w := newJSONWalk(p, r)
	err := w.object("the Jest report", func(key string) error {
		switch key {
		case "testResults":
			return w.array("testResults", func() error { return jestFile(w) })
		case "startTime":
			var ms float64
			if err := w.decode(&ms, "startTime"); err != nil {
				return err
			}
			if ms > 0 {
				p.rep.Started = time.UnixMilli(int64(ms)).UTC()
			}
			return nil
		}
		return w.skip(key)
	})
	if err != nil {
		return err
	}
	return w.end("the Jest report")
}

// jestFile reads one test file's entry. Its results are added when it
// ends, as its name may follow them.
func jestFile(w *jsonWalk) error {
	var (
		results       []Result
		name, message string
		status        string
		execError     struct {
			Message string `json:"message"`
			Stack   string `json:"stack"`
		}
	)
	err := w.object("a testResults entry", func(key string) error {
		switch key {
		case "assertionResults":
			return w.array("assertionResults", func() error {
				var a jestAssertion
				off := w.dec.InputOffset()
				if err := w.decode(&a, "an assertion result"); err != nil {
					return err
				}
				r, err := jestResult(&a)
				if err != nil {
					return w.fail(off+1, "%v", err)
				}
				results = append(results, r)
				return nil
			})
		case "name":
			return w.decode(&name, "a test file's name")
		case "message":
			return w.decode(&message, "a test file's message")
		case "status":
			return w.decode(&status, "a test file's status")
		case "testExecError":
			return w.decode(&execError, "testExecError")
		}
		return w.skip(key)
	})
	if err != nil {
		return err
	}
	for _, r := range results {
		r.File = name
		if err := w.p.add(r); err != nil {
			return err
		}
	}
	if status == "failed" && len(results) == 0 {
		why := cmp.Or(execError.Message, message, "it failed to run")
		w.p.rep.Errors = append(w.p.rep.Errors, clean(fmt.Sprintf("test file %s failed to run: %s", name, strings.TrimSpace(why))))
	}
	return nil
}

// jestResult turns an assertion result into a Result.
func jestResult(a *jestAssertion) (Result, error) {
	r := Result{Name: a.Title, Suite: strings.Join(a.AncestorTitles, " > ")}
	switch a.Status {
	case "passed", "focused":
		r.Status = Passed
	case "failed":
		r.Status = Failed
	case "pending", "skipped", "disabled":
		r.Status = Skipped
	case "todo":
		r.Status = Pending
	default:
		return r, fmt.Errorf("the test %q has status %q; expected passed, failed, pending, skipped, disabled or todo", a.Title, a.Status)
	}
	if a.Duration != nil {
		r.DurationMs, r.HasDuration = *a.Duration, true
	}
	if a.Location != nil {
		r.Line = a.Location.Line
	}
	if r.Status == Failed {
		msg, stack := splitStack(strings.Join(a.FailureMessages, "\n\n"))
		r.Error, r.Stack, r.Kind = clean(msg), clean(stack), "failure"
	}
	if a.Invocations > 1 {
		r.Retries = a.Invocations - 1
		r.Flaky = r.Status == Passed
		for i := range r.Retries {
			at := Attempt{Status: Failed}
			if i < len(a.RetryReasons) {
				msg, stack := splitStack(a.RetryReasons[i])
				at.Error, at.Stack = clean(msg), clean(stack)
			}
			r.Attempts = append(r.Attempts, at)
		}
	}
	return r, nil
}
