package testanalysis

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/stats"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Default weights of test_prioritize; they add up to 1.
const (
	defaultWeightFailureRate  = 0.35
	defaultWeightRecency      = 0.25
	defaultWeightFlakiness    = 0.15
	defaultWeightDuration     = 0.10
	defaultWeightChangedFiles = 0.15
)

// factorNames lists the risk factors in the order they are reported.
var factorNames = []string{"failureRate", "recency", "flakiness", "duration", "changedFiles"}

// factor is one risk factor of a ranked test.
type factor struct {
	// Value is the factor in [0,1].
	Value float64 `json:"value"`
	// Weight is the factor's weight as given (or defaulted).
	Weight float64 `json:"weight"`
	// Contribution is Value*Weight divided by the sum of the weights: the
	// contributions add up to the score.
	Contribution float64 `json:"contribution"`
}

// rankedTest is one entry of test_prioritize's ranked list.
type rankedTest struct {
	Rank        int               `json:"rank"`
	Name        string            `json:"name"`
	Score       float64           `json:"score"`
	Runs        int               `json:"runs"`
	LastStatus  string            `json:"lastStatus,omitempty"`
	AvgDuration *float64          `json:"avgDuration,omitempty"`
	Factors     map[string]factor `json:"factors"`
}

func prioritize() tool.Tool {
	type weights struct {
		FailureRate  *float64 `json:"failureRate"`
		Recency      *float64 `json:"recency"`
		Flakiness    *float64 `json:"flakiness"`
		Duration     *float64 `json:"duration"`
		ChangedFiles *float64 `json:"changedFiles"`
	}
	type args struct {
		historyArgs
		Weights weights `json:"weights"`
	}
	weight := func(name, desc string, def float64) schema.Prop {
		return schema.Number(name, desc).Min(0).Default(def)
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "test_prioritize",
			Description: "Rank tests by risk, from a CI run history (given, or the reports test runners wrote), to decide what to run first. Score = weighted mean of five " +
				"factors in [0,1]: failureRate; recency (0.5^runs since the last failure); flakiness (test_flaky_detect's score); " +
				"duration (faster ranks higher); changedFiles (covers changed files). Returns {ranked:[{rank, name, score, runs, " +
				"lastStatus, avgDuration?, factors}], weights, count, sources?}, highest score first. Instead of testHistory, " +
				"source reads the reports test runners wrote, one file a run (JUnit XML, TAP, go test -json, Playwright or " +
				"Jest JSON); their tests cover no changed files, as reports do not say. Or fromRecord reads the history BarrHawk " +
				"recorded (assertions, audits, the reports its tools read), the tests named by a glob; they cover no changed files either.",
			Phrases:  []string{"which tests to run first", "risk-based testing", "test ordering", "fail fast ordering", "test impact analysis", "tests for changed files", "regression subset"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				append(historyProps(schema.Boolean("changedFilesCovered", "True when the test exercises files changed in the change under test")),
					schema.Of("weights", "Weight of each risk factor, >= 0; omitted weights keep their defaults, and at least one must be above 0",
						schema.Object(
							weight("failureRate", "Weight of the failure rate", defaultWeightFailureRate),
							weight("recency", "Weight of how recently the test failed", defaultWeightRecency),
							weight("flakiness", "Weight of the flakiness score", defaultWeightFlakiness),
							weight("duration", "Weight of speed (fast tests first)", defaultWeightDuration),
							weight("changedFiles", "Weight of covering changed files", defaultWeightChangedFiles),
						)))...,
			),
			RequiresWorker: true,
			UsesRoots:      true,
		},
		Run: tool.Typed(func(ctx context.Context, in args, _ *tool.Call) (any, error) {
			w := map[string]float64{}
			var sum float64
			for i, p := range []*float64{in.Weights.FailureRate, in.Weights.Recency, in.Weights.Flakiness, in.Weights.Duration, in.Weights.ChangedFiles} {
				v := []float64{defaultWeightFailureRate, defaultWeightRecency, defaultWeightFlakiness, defaultWeightDuration, defaultWeightChangedFiles}[i]
				if p != nil {
					v = *p
				}
				if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"weights.%s\": expected a number >= 0, got %v", factorNames[i], v)
				}
				w[factorNames[i]] = v
				sum += v
			}
			if sum == 0 {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"weights\": every weight is 0; at least one must be above 0")
			}
			h, _, sources, err := in.load(ctx)
			if err != nil {
				return nil, err
			}
			all := make([]figures, len(h))
			fastest := math.Inf(1)
			for i, g := range h {
				all[i] = compute(g.Items)
				if d := all[i].avgDuration; d != nil {
					fastest = math.Min(fastest, *d)
				}
			}
			ranked := make([]rankedTest, len(h))
			for i, g := range h {
				name, s := g.Key, all[i]
				values := map[string]float64{
					"failureRate": s.failureRate,
					"flakiness":   s.score,
					"duration":    0.5,
				}
				if s.sinceFailure >= 0 {
					values["recency"] = math.Pow(0.5, float64(s.sinceFailure))
				}
				if s.avgDuration != nil {
					values["duration"] = (fastest + 1) / (*s.avgDuration + 1)
				}
				if s.changed {
					values["changedFiles"] = 1
				}
				t := rankedTest{Name: name, Runs: s.runs, LastStatus: s.lastStatus, AvgDuration: s.avgDuration, Factors: map[string]factor{}}
				for _, f := range factorNames {
					v := values[f]
					t.Factors[f] = factor{Value: stats.Round(v, 3), Weight: w[f], Contribution: stats.Round(v*w[f]/sum, 3)}
					t.Score += v * w[f] / sum
				}
				t.Score = stats.Round(t.Score, 3)
				ranked[i] = t
			}
			slices.SortStableFunc(ranked, func(a, b rankedTest) int {
				return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.Name, b.Name))
			})
			for i := range ranked {
				ranked[i].Rank = i + 1
			}
			out := map[string]any{"ranked": ranked, "weights": w, "count": len(ranked)}
			if sources != nil {
				out["sources"] = sources
			}
			return out, nil
		}),
	}
}
