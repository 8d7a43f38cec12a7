package testreport

import (
	"cmp"
	"io"
	"strings"
)

// Playwright's JSON reporter writes {config, suites, errors, stats}:
// suites nest (a spec file, then its describe blocks), each with specs,
// each spec with one test per project, each test with one result per
// attempt (retry 0, 1, ...). A test is one result: its status is the
// test's (expected: passed, or skipped when it was meant to skip;
// unexpected: failed; flaky: passed, failed before; skipped), its
// duration, error and output the final attempt's, its earlier attempts
// kept with their errors, and its attachments (screenshots, traces) those
// of every attempt, the final one's first. Its suite is the project, the
// spec file and the describe blocks; top-level errors (a spec that did
// not load) are run errors. The suites are read a spec at a time, in the
// reporter's order (a suite's title before its specs).

type pwError struct {
	Message string `json:"message"`
	Stack   string `json:"stack"`
	Value   string `json:"value"`
}

type pwResult struct {
	Status      string     `json:"status"`
	Duration    *float64   `json:"duration"`
	Retry       int        `json:"retry"`
	Error       *pwError   `json:"error"`
	Errors      []pwError  `json:"errors"`
	Stdout      []pwStdout `json:"stdout"`
	Stderr      []pwStdout `json:"stderr"`
	Attachments []struct {
		Name        string `json:"name"`
		ContentType string `json:"contentType"`
		Path        string `json:"path"`
	} `json:"attachments"`
}

type pwStdout struct {
	Text string `json:"text"`
}

type pwSpec struct {
	Title string `json:"title"`
	File  string `json:"file"`
	Line  int    `json:"line"`
	Tests []struct {
		ExpectedStatus string `json:"expectedStatus"`
		Status         string `json:"status"`
		ProjectName    string `json:"projectName"`
		Annotations    []struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		} `json:"annotations"`
		Results []pwResult `json:"results"`
	} `json:"tests"`
}

func parsePlaywright(p *parser, r io.Reader) error {
	w := newJSONWalk(p, r)
	err := w.object("the Playwright report", func(key string) error {
		switch key {
		case "suites":
			return w.array("suites", func() error { return pwSuite(w, nil) })
		case "errors":
			var errs []pwError
			if err := w.decode(&errs, "errors"); err != nil {
				return err
			}
			for _, e := range errs {
				p.rep.Errors = append(p.rep.Errors, clean(cmp.Or(e.Message, e.Value, e.Stack)))
			}
			return nil
		case "stats":
			var st struct {
				StartTime string `json:"startTime"`
			}
			if err := w.decode(&st, "stats"); err != nil {
				return err
			}
			p.rep.Started = parseStamp(st.StartTime)
			return nil
		}
		return w.skip(key)
	})
	if err != nil {
		return err
	}
	return w.end("the Playwright report")
}

// pwSuite reads one suite; path holds the titles of the suites around it.
func pwSuite(w *jsonWalk, path []string) error {
	var title string
	return w.object("a suite", func(key string) error {
		switch key {
		case "title":
			return w.decode(&title, "a suite's title")
		case "specs":
			here := append(path[:len(path):len(path)], title)
			return w.array("specs", func() error {
				var s pwSpec
				if err := w.decode(&s, "a spec"); err != nil {
					return err
				}
				return pwSpecResults(w.p, &s, here)
			})
		case "suites":
			here := append(path[:len(path):len(path)], title)
			return w.array("suites", func() error { return pwSuite(w, here) })
		}
		return w.skip(key)
	})
}

// pwSpecResults adds a spec's tests, one per project.
func pwSpecResults(p *parser, s *pwSpec, path []string) error {
	for _, t := range s.Tests {
		suite := strings.Join(nonEmpty(append([]string{t.ProjectName}, path...)), " > ")
		res := Result{Name: s.Title, Suite: suite, File: s.File, Line: s.Line}
		n := len(t.Results)
		var final *pwResult
		if n > 0 {
			final = &t.Results[n-1]
		}
		switch t.Status {
		case "expected":
			res.Status = Passed
			if t.ExpectedStatus == "skipped" || final != nil && final.Status == "skipped" {
				res.Status = Skipped
			}
		case "unexpected":
			res.Status = Failed
		case "flaky":
			res.Status, res.Flaky = Passed, true
		case "skipped":
			res.Status = Skipped
		default:
			// No test status (an old reporter): the final attempt's.
			res.Status = Skipped
			if final != nil {
				switch final.Status {
				case "passed":
					res.Status = Passed
				case "failed", "timedOut", "interrupted":
					res.Status = Failed
				}
			}
		}
		for i := range t.Results {
			a := &t.Results[i]
			msg, stack := pwErrorText(a)
			if i < n-1 {
				res.Attempts = append(res.Attempts, Attempt{Status: pwStatus(a.Status), DurationMs: deref(a.Duration), HasDuration: a.Duration != nil, Error: msg, Stack: stack})
				continue
			}
			if a.Duration != nil {
				res.DurationMs, res.HasDuration = *a.Duration, true
			}
			if res.Status == Failed {
				res.Error, res.Stack, res.Kind = msg, stack, "failure"
				if a.Status == "timedOut" && res.Error == "" {
					res.Error = "timed out"
				}
			}
			var out strings.Builder
			for _, o := range a.Stdout {
				out.WriteString(o.Text)
			}
			for _, o := range a.Stderr {
				out.WriteString(o.Text)
			}
			res.Output = output(res.Status, out.String())
		}
		res.Retries = max(0, n-1)
		// Attachments: the final attempt's, then the earlier ones'
		// (a flaky test's screenshot is its failed attempt's).
		for i := n - 1; i >= 0; i-- {
			for _, at := range t.Results[i].Attachments {
				if at.Path != "" {
					res.Attachments = append(res.Attachments, Attachment{Name: at.Name, Path: at.Path, ContentType: at.ContentType})
				}
			}
		}
		if res.Status == Skipped {
			for _, an := range t.Annotations {
				if an.Type == "skip" || an.Type == "fixme" {
					res.Error = clean(cmp.Or(an.Description, an.Type))
				}
			}
		}
		if err := p.add(res); err != nil {
			return err
		}
	}
	return nil
}

// pwErrorText is an attempt's error message and stack: the stack keeps
// only the frames, the message being said apart.
func pwErrorText(a *pwResult) (msg, stack string) {
	e := a.Error
	if e == nil && len(a.Errors) > 0 {
		e = &a.Errors[0]
	}
	if e == nil {
		return "", ""
	}
	msg = cmp.Or(e.Message, e.Value)
	stack = e.Stack
	if msg != "" {
		stack = strings.TrimPrefix(stack, msg)
	} else {
		msg, stack = splitStack(stack)
	}
	return clean(strings.TrimSpace(msg)), clean(strings.Trim(stack, "\n"))
}

func pwStatus(s string) Status {
	switch s {
	case "passed":
		return Passed
	case "skipped":
		return Skipped
	}
	return Failed
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

func nonEmpty(s []string) []string {
	out := s[:0:0]
	for _, v := range s {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}
