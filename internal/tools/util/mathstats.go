package util

import (
	"context"
	"math"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/stats"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// defaultPercentiles are the percentiles math_stats reports when none are asked for.
var defaultPercentiles = []float64{25, 50, 75, 90, 95, 99}

// spread is a statistic computed both over the population and as a sample
// estimate; Sample is null for a single value.
type spread struct {
	Population float64  `json:"population"`
	Sample     *float64 `json:"sample"`
}

// description is the result of math_stats.
type description struct {
	Count            int                `json:"count"`
	Sum              float64            `json:"sum"`
	Mean             float64            `json:"mean"`
	Median           float64            `json:"median"`
	Mode             []float64          `json:"mode"`
	ModeFrequency    int                `json:"modeFrequency"`
	Min              float64            `json:"min"`
	Max              float64            `json:"max"`
	Range            float64            `json:"range"`
	Variance         spread             `json:"variance"`
	StdDev           spread             `json:"stdDev"`
	Percentiles      map[string]float64 `json:"percentiles"`
	PercentileMethod string             `json:"percentileMethod"`
}

func mathStats() tool.Tool {
	type args struct {
		Data        []float64 `json:"data"`
		Percentiles []float64 `json:"percentiles"`
	}
	zero, hundred := 0.0, 100.0
	pctItems := &jsonschema.Schema{Type: "number", Minimum: &zero, Maximum: &hundred}
	return tool.Tool{
		Def: tool.Def{
			Name: "math_stats",
			Description: "Descriptive statistics of a list of numbers. Returns {count, sum, mean, median, " +
				"mode (the values occurring most often, ascending; empty when no value repeats), modeFrequency, min, max, range, " +
				"variance and stdDev as {population, sample} (sample divides by n-1 and is null for a single value), " +
				"percentiles (object keyed by percentile, e.g. {\"50\": 3, \"99.9\": 7.2}), percentileMethod}. " +
				"Percentiles use linear interpolation between closest ranks (numpy's default, Excel PERCENTILE.INC): " +
				"rank h = p/100 × (n−1) in the sorted data, value = x[⌊h⌋] + (h−⌊h⌋) × (x[⌊h⌋+1] − x[⌊h⌋]).",
			Phrases:  []string{"average", "median", "standard deviation", "stddev", "percentile of numbers", "p95 of latencies", "p99 of values", "min max mean", "variance", "summary statistics"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.Array("data", "The numbers to describe", schema.NumberItems()).Min(1).Required(),
				schema.Array("percentiles", "Percentiles to compute, each from 0 to 100; [] for none", pctItems).Default(defaultPercentiles),
			),
			RequiresWorker: true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			if len(in.Data) == 0 {
				return nil, invalid("data", "expected at least 1 number, got none")
			}
			pcts := in.Percentiles
			if pcts == nil {
				pcts = defaultPercentiles
			}
			for i, p := range pcts {
				if !(p >= 0 && p <= 100) {
					return nil, invalid("percentiles["+strconv.Itoa(i)+"]", "expected a number from 0 to 100, got %v", p)
				}
			}
			return describe(in.Data, pcts)
		}),
	}
}

func describe(data, pcts []float64) (*description, error) {
	x := stats.Sorted(data)
	n := len(x)
	s := &description{Count: n, Min: x[0], Max: x[n-1], Percentiles: map[string]float64{}, PercentileMethod: "linear"}
	s.Range = s.Max - s.Min
	s.Sum = stats.Sum(x)
	s.Mean = stats.Mean(x)
	s.Variance.Population = stats.Variance(x)
	s.StdDev.Population = math.Sqrt(s.Variance.Population)
	if v, ok := stats.SampleVariance(x); ok {
		sd := math.Sqrt(v)
		s.Variance.Sample, s.StdDev.Sample = &v, &sd
	}
	s.Median = stats.Median(x)
	for _, p := range pcts {
		s.Percentiles[strconv.FormatFloat(p, 'f', -1, 64)] = stats.Percentile(x, p)
	}
	// Mode: the sorted data holds equal values in runs.
	s.Mode = []float64{}
	for i := 0; i < n; {
		j := i
		for j < n && x[j] == x[i] {
			j++
		}
		switch run := j - i; {
		case run > s.ModeFrequency:
			s.ModeFrequency, s.Mode = run, []float64{x[i]}
		case run == s.ModeFrequency:
			s.Mode = append(s.Mode, x[i])
		}
		i = j
	}
	if s.ModeFrequency == 1 {
		s.Mode = []float64{}
	}
	for _, v := range []float64{s.Sum, s.Mean, s.Range, s.Variance.Population} {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, invalid("data", "values too large: sum, range or variance overflows a 64-bit float (max about 1.8e308)")
		}
	}
	for _, v := range s.Percentiles {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, invalid("data", "values too large: percentile interpolation overflows a 64-bit float")
		}
	}
	return s, nil
}
