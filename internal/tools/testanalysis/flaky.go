package testanalysis

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

const (
	defaultFlakinessThreshold = 0.1
	defaultMinRuns            = 3
)

// flakyTest is one entry of test_flaky_detect's flakyTests.
type flakyTest struct {
	Name          string   `json:"name"`
	Runs          int      `json:"runs"`
	Passes        int      `json:"passes"`
	Failures      int      `json:"failures"`
	Skipped       int      `json:"skipped"`
	RetriedPasses int      `json:"retriedPasses"`
	FailureRate   float64  `json:"failureRate"`
	Flips         int      `json:"flips"`
	Score         float64  `json:"score"`
	AvgDuration   *float64 `json:"avgDuration,omitempty"`
}

func flakyDetect() tool.Tool {
	type args struct {
		historyArgs
		FlakinessThreshold *float64 `json:"flakinessThreshold"`
		MinRuns            *int     `json:"minRuns"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "test_flaky_detect",
			Description: "Find flaky tests in a CI run history, given or read from the reports test runners wrote: tests that both passed and failed (or passed only after " +
				"retries) across runs. For each test it counts runs (skipped ones included), passes, failures and flips, and scores flakiness in " +
				"[0,1]: " + flakinessFormula + ". A test is flaky when its score is at least flakinessThreshold and it " +
				"has a retried pass (it failed, then passed on a retry within one run: flaky whatever its number of runs), " +
				"or it has at least minRuns passed or failed runs with both outcomes; otherwise it is stable, or short of " +
				"data. Returns {flakyTests:[{name, runs, passes, failures, skipped, retriedPasses, failureRate, flips, " +
				"score, avgDuration?}] sorted by score (highest first), stableTests (count), consistentlyFailing " +
				"(names of stable tests that failed every run), insufficientData (names with fewer than minRuns " +
				"runs), summary (one sentence), sources? (what each report file of source held)}. Instead of " +
				"testHistory, source reads the reports test runners wrote, one file a run (JUnit XML, TAP, go test " +
				"-json, Playwright or Jest JSON), with their retries (Playwright's, Surefire's flakyFailure, Jest's); or fromRecord reads the history " +
				"BarrHawk recorded (assertions, audits, the reports its tools read), the tests named by a glob.",
			Phrases:  []string{"flakes", "intermittent failures", "tests that sometimes fail", "unstable tests", "passes on retry", "nondeterministic tests", "quarantine candidates"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(append(historyProps(schema.String("runId", "Identifier of the CI run (informational)")),
				schema.Number("flakinessThreshold", "Smallest flakiness score for a test with both outcomes to be reported flaky").
					Min(0).Max(1).Default(defaultFlakinessThreshold),
				schema.Integer("minRuns", "Fewest passed or failed runs (skipped runs do not count) a test needs to be judged; a test with a retried pass needs none").
					Min(1).Default(defaultMinRuns),
			)...),
			RequiresWorker: true,
			UsesRoots:      true,
		},
		Run: tool.Typed(func(ctx context.Context, in args, _ *tool.Call) (any, error) {
			threshold, minRuns := defaultFlakinessThreshold, defaultMinRuns
			if in.FlakinessThreshold != nil {
				threshold = *in.FlakinessThreshold
			}
			if in.MinRuns != nil {
				minRuns = *in.MinRuns
			}
			if threshold < 0 || threshold > 1 {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"flakinessThreshold\": expected 0 to 1, got %v", threshold)
			}
			if minRuns < 1 {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"minRuns\": expected at least 1, got %d", minRuns)
			}
			h, results, sources, err := in.load(ctx)
			if err != nil {
				return nil, err
			}
			flaky := []flakyTest{}
			failing, insufficient := []string{}, []string{}
			stable := 0
			for _, g := range h {
				name, s := g.Key, compute(g.Items)
				enough := s.passes+s.failures >= minRuns
				switch {
				case (s.retriedPasses > 0 || enough && s.passes > 0 && s.failures > 0) && s.score >= threshold:
					flaky = append(flaky, flakyTest{
						Name: name, Runs: s.runs, Passes: s.passes, Failures: s.failures, Skipped: s.skipped,
						RetriedPasses: s.retriedPasses, FailureRate: s.failureRate, Flips: s.flips, Score: s.score,
						AvgDuration: s.avgDuration,
					})
				case !enough:
					insufficient = append(insufficient, name)
				default:
					stable++
					if s.passes == 0 {
						failing = append(failing, name)
					}
				}
			}
			slices.SortStableFunc(flaky, func(a, b flakyTest) int {
				return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(b.Failures, a.Failures), strings.Compare(a.Name, b.Name))
			})
			slices.Sort(insufficient)
			slices.Sort(failing)
			out := map[string]any{
				"flakyTests":          flaky,
				"stableTests":         stable,
				"consistentlyFailing": failing,
				"insufficientData":    insufficient,
				"summary":             flakySummary(len(h), results, flaky, stable, failing, insufficient, minRuns),
			}
			if sources != nil {
				out["sources"] = sources
			}
			return out, nil
		}),
	}
}

func flakySummary(tests, runs int, flaky []flakyTest, stable int, failing, insufficient []string, minRuns int) string {
	if tests == 0 {
		return "No test runs given."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s: %d flaky", plural(tests, "test"), plural(runs, "result"), len(flaky))
	if len(flaky) > 0 {
		fmt.Fprintf(&b, " (most flaky: %s, score %v)", flaky[0].Name, flaky[0].Score)
	}
	fmt.Fprintf(&b, ", %d stable", stable)
	if len(failing) > 0 {
		fmt.Fprintf(&b, " (%d of them failing every run)", len(failing))
	}
	if len(insufficient) > 0 {
		fmt.Fprintf(&b, ", %d with fewer than %s", len(insufficient), plural(minRuns, "run"))
	}
	b.WriteString(".")
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
