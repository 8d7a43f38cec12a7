package report

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/stats"
	"github.com/barrhawk/barrhawk/internal/testreport"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// failureTest is one failed test in a report_failures result.
type failureTest struct {
	Name       string   `json:"name"`
	Suite      string   `json:"suite,omitempty"`
	File       string   `json:"file,omitempty"`
	Retries    int      `json:"retries,omitempty"`
	DurationMs *float64 `json:"durationMs,omitempty"`
	Error      string   `json:"error,omitempty"`
	Stack      string   `json:"stack,omitempty"`
	Screenshot string   `json:"screenshot,omitempty"`
}

// failureGroup is failed tests sharing a normalised error or a suite.
type failureGroup struct {
	Key        string        `json:"key"`
	Count      int           `json:"count"`
	FirstError string        `json:"firstError"`
	Stack      string        `json:"stack,omitempty"`
	Tests      []failureTest `json:"tests"`
}

// failuresResult is what report_failures returns.
type failuresResult struct {
	Total     int                     `json:"total"`
	Failed    int                     `json:"failed"`
	GroupBy   string                  `json:"groupBy"`
	Groups    []failureGroup          `json:"groups,omitzero"`
	Failures  []failureTest           `json:"failures,omitzero"`
	RunErrors []string                `json:"runErrors,omitempty"`
	Sources   []testreport.SourceInfo `json:"sources,omitempty"`
	Report    string                  `json:"report"`
}

// noErrorKey is the group key of failures without an error message.
const noErrorKey = "(no error message)"

func reportFailures() tool.Tool {
	type args struct {
		resultsArgs
		IncludeScreenshots *bool  `json:"includeScreenshots"`
		IncludeStack       *bool  `json:"includeStack"`
		GroupBy            string `json:"groupBy"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "report_failures",
			Description: "Analyse the failed tests among results, given or read from what a test runner wrote. With groupBy error (the default), failures are grouped by " +
				"normalised error message: ANSI colours removed, UUIDs, hex values and ids (8+ characters mixing letters and " +
				"digits) replaced by <id>, numbers by <n>, whitespace collapsed, so errors differing only in numbers or ids share a " +
				"group; with suite, by suite; with none, every failure is listed on its own. Returns {total, failed, groupBy, " +
				"groups: [{key, count, firstError, stack?, tests: [{name, suite, file, retries, durationMs, screenshot?, error " +
				"(suite grouping only)}]}] (largest group first; omitted for none), failures: [{name, suite, file, retries, " +
				"durationMs, error, stack?, screenshot?}] (none only), report}. key is the normalised message or the suite name; " +
				"stack is the first stack trace in the group. report is a ready-to-paste Markdown failure report. Instead of " +
				"results, source reads what a test runner wrote (JUnit XML, TAP, go test -json, Playwright or Jest JSON: a file, " +
				"glob, directory or the text), keeping each failure's message and stack apart, its retries and its screenshot " +
				"(the first image attachment); then sources says what each file held, and runErrors lists failures outside any " +
				"test (a spec that did not load, a package that did not build), also listed in report.",
			Phrases:  []string{"why did tests fail", "why did the suite fail", "group failures by error", "triage failing tests", "failure report", "what broke in test run", "stack traces of failures", "junit failures"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(append(resultsProps(),
				schema.Boolean("includeScreenshots", "Include screenshot paths/URLs of failed tests in the result and report").Default(true),
				schema.Boolean("includeStack", "Include stack traces in the result and report").Default(true),
				schema.String("groupBy", "How to group failures: error (normalised error message), suite, or none (list each failure)").Enum("none", "error", "suite").Default("error"),
			)...),
			RequiresWorker: true,
			UsesRoots:      true,
		},
		Run: tool.Typed(func(ctx context.Context, in args, _ *tool.Call) (any, error) {
			l, err := in.load(ctx)
			if err != nil {
				return nil, err
			}
			if in.GroupBy == "" {
				in.GroupBy = "error"
			}
			switch in.GroupBy {
			case "none", "error", "suite":
			default:
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"groupBy\": expected one of \"none\", \"error\", \"suite\", got %q", in.GroupBy)
			}
			shots := in.IncludeScreenshots == nil || *in.IncludeScreenshots
			stacks := in.IncludeStack == nil || *in.IncludeStack
			res := analyseFailures(l.results, in.GroupBy, shots, stacks)
			res.Sources, res.RunErrors = l.sources, l.runErrors
			if len(res.RunErrors) > 0 {
				res.Report = strings.TrimRight(res.Report, "\n") + "\n\n## Run errors\n\n"
				for _, e := range res.RunErrors {
					res.Report += mdBlock(e) + "\n"
				}
				res.Report = strings.TrimRight(res.Report, "\n") + "\n"
			}
			return res, nil
		}),
	}
}

// analyseFailures builds the report_failures result.
func analyseFailures(results []testResult, groupBy string, shots, stacks bool) *failuresResult {
	res := &failuresResult{Total: len(results), GroupBy: groupBy}
	var failed []*testResult
	for i := range results {
		if results[i].Status == statusFailed {
			failed = append(failed, &results[i])
		}
	}
	res.Failed = len(failed)
	entry := func(r *testResult) failureTest {
		t := failureTest{Name: r.Name, Suite: r.Suite, File: r.File, Retries: r.Retries, DurationMs: r.Duration}
		if shots {
			t.Screenshot = r.Screenshot
		}
		return t
	}
	if groupBy == "none" {
		res.Failures = []failureTest{}
		for _, r := range failed {
			t := entry(r)
			t.Error = r.Error
			if stacks {
				t.Stack = r.Stack
			}
			res.Failures = append(res.Failures, t)
		}
		res.Report = res.markdown()
		return res
	}
	key := func(r *testResult) string {
		if groupBy == "error" {
			return normalizeError(r.Error)
		}
		return suiteName(r.Suite)
	}
	res.Groups = []failureGroup{}
	for _, grp := range stats.GroupBy(failed, key) {
		g := failureGroup{Key: grp.Key, Count: len(grp.Items), FirstError: grp.Items[0].Error, Tests: []failureTest{}}
		for _, r := range grp.Items {
			if stacks && g.Stack == "" {
				g.Stack = r.Stack
			}
			t := entry(r)
			if groupBy == "suite" {
				t.Error = firstLine(r.Error)
			}
			g.Tests = append(g.Tests, t)
		}
		res.Groups = append(res.Groups, g)
	}
	slices.SortStableFunc(res.Groups, func(a, b failureGroup) int { return b.Count - a.Count })
	res.Report = res.markdown()
	return res
}

var (
	ansiRe   = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`)
	uuidRe   = regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	hexRe    = regexp.MustCompile(`(?i)\b0x[0-9a-f]+\b`)
	tokenRe  = regexp.MustCompile(`[A-Za-z0-9_]+`)
	numberRe = regexp.MustCompile(`\d+(?:\.\d+)?`)
)

// normalizeError reduces an error message to what similar errors share, so
// that "Timeout 5000ms exceeded (req 9f8e7d6c5b4a)" and "Timeout 3000ms
// exceeded (req 0a1b2c3d4e5f)" group together.
func normalizeError(msg string) string {
	s := ansiRe.ReplaceAllString(msg, "")
	s = uuidRe.ReplaceAllString(s, "<id>")
	s = hexRe.ReplaceAllString(s, "<id>")
	s = tokenRe.ReplaceAllStringFunc(s, func(tok string) string {
		if len(tok) >= 8 && strings.ContainsFunc(tok, unicode.IsDigit) && strings.ContainsFunc(tok, unicode.IsLetter) {
			return "<id>"
		}
		return tok
	})
	s = numberRe.ReplaceAllString(s, "<n>")
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return noErrorKey
	}
	return s
}

// markdown renders the failure report.
func (res *failuresResult) markdown() string {
	var b strings.Builder
	b.WriteString("# Failure report\n\n")
	if res.Failed == 0 {
		fmt.Fprintf(&b, "No failed tests (%s).\n", plural(res.Total, "result", "results"))
		return b.String()
	}
	if res.GroupBy == "none" {
		fmt.Fprintf(&b, "%d of %s failed.\n", res.Failed, plural(res.Total, "test", "tests"))
		for i, t := range res.Failures {
			fmt.Fprintf(&b, "\n## %d. %s\n\n", i+1, mdTest(t.Name, t.Suite))
			writeTestDetails(&b, t)
			writeError(&b, t.Error)
			writeStack(&b, t.Stack)
		}
		return strings.TrimRight(b.String(), "\n") + "\n"
	}
	fmt.Fprintf(&b, "%d of %s failed, in %s (grouped by %s).\n", res.Failed, plural(res.Total, "test", "tests"), plural(len(res.Groups), "group", "groups"), res.GroupBy)
	for i, g := range res.Groups {
		title := mdCell(g.Key)
		if res.GroupBy == "error" {
			title = mdCode(truncate(g.Key, 100))
		}
		fmt.Fprintf(&b, "\n## %d. %s (%s)\n\n", i+1, title, plural(g.Count, "test", "tests"))
		writeError(&b, g.FirstError)
		for _, t := range g.Tests {
			suite := t.Suite
			if res.GroupBy == "suite" {
				suite = "" // the heading names it
			}
			b.WriteString("- " + mdTest(t.Name, suite))
			if t.File != "" {
				b.WriteString(" in " + mdCode(t.File))
			}
			if t.Retries > 0 {
				b.WriteString(", after " + plural(t.Retries, "retry", "retries"))
			}
			if res.GroupBy == "suite" && t.Error != "" {
				b.WriteString(": " + mdCode(t.Error))
			}
			if t.Screenshot != "" {
				b.WriteString(" [screenshot](<" + t.Screenshot + ">)")
			}
			b.WriteString("\n")
		}
		if g.Stack != "" {
			b.WriteString("\n")
			writeStack(&b, g.Stack)
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// writeTestDetails writes the file, retries and screenshot of a failure.
func writeTestDetails(b *strings.Builder, t failureTest) {
	var lines []string
	if t.File != "" {
		lines = append(lines, "- File: "+mdCode(t.File))
	}
	if t.Retries > 0 {
		lines = append(lines, "- Retries: "+fmt.Sprint(t.Retries))
	}
	if t.Screenshot != "" {
		lines = append(lines, "- Screenshot: [screenshot](<"+t.Screenshot+">)")
	}
	if len(lines) > 0 {
		b.WriteString(strings.Join(lines, "\n") + "\n\n")
	}
}

// writeError writes an error message as a code block.
func writeError(b *strings.Builder, msg string) {
	if strings.TrimSpace(msg) == "" {
		b.WriteString("_No error message._\n\n")
		return
	}
	b.WriteString(mdBlock(ansiRe.ReplaceAllString(msg, "")) + "\n")
}

// writeStack writes a collapsible stack trace.
func writeStack(b *strings.Builder, stack string) {
	if stack == "" {
		return
	}
	b.WriteString("<details><summary>Stack trace</summary>\n\n" + mdBlock(ansiRe.ReplaceAllString(stack, "")) + "\n</details>\n")
}

// truncate shortens s to at most n runes, marking the cut with "…".
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
