package util

import (
	"math"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestMathStats(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		// The textbook example: population σ = 2.
		{`{"data":[2,4,4,4,5,5,7,9],"percentiles":[0,25,50,75,100]}`, `{"count":8,"sum":40,"mean":5,"median":4.5,
			"mode":[4],"modeFrequency":3,"min":2,"max":9,"range":7,
			"variance":{"population":4,"sample":4.571428571428571},"stdDev":{"population":2,"sample":2.138089935299395},
			"percentiles":{"0":2,"25":4,"50":4.5,"75":5.5,"100":9},"percentileMethod":"linear"}`},
		// A single value: no sample statistics, no mode (nothing repeats).
		{`{"data":[42],"percentiles":[50,99]}`, `{"count":1,"sum":42,"mean":42,"median":42,"mode":[],"modeFrequency":1,
			"min":42,"max":42,"range":0,"variance":{"population":0,"sample":null},"stdDev":{"population":0,"sample":null},
			"percentiles":{"50":42,"99":42},"percentileMethod":"linear"}`},
		// Unsorted input, negatives, two modes, odd count.
		{`{"data":[3,-1,3,-1,10],"percentiles":[]}`, `{"count":5,"sum":14,"mean":2.8,"median":3,"mode":[-1,3],"modeFrequency":2,
			"min":-1,"max":10,"range":11,"variance":{"population":16.16,"sample":20.2},
			"stdDev":{"population":4.019950248448356,"sample":4.494441010848846},"percentiles":{},"percentileMethod":"linear"}`},
		// Interpolated and fractional percentiles: ranks h = p/100 × 3.
		{`{"data":[10,20,30,40],"percentiles":[10,12.5,50,90]}`, `{"count":4,"sum":100,"mean":25,"median":25,"mode":[],"modeFrequency":1,
			"min":10,"max":40,"range":30,"variance":{"population":125,"sample":166.66666666666666},
			"stdDev":{"population":11.180339887498949,"sample":12.909944487358056},
			"percentiles":{"10":13,"12.5":13.75,"50":25,"90":37},"percentileMethod":"linear"}`},
	} {
		tooltest.WantJSON(t, "math_stats"+tc.args, run(t, "math_stats", tc.args), tc.want)
	}
}

func TestMathStatsDefaultPercentiles(t *testing.T) {
	t.Parallel()
	// 1..101: the p-th percentile is exactly p+1.
	data := make([]int, 101)
	for i := range data {
		data[i] = i + 1
	}
	got := run(t, "math_stats", tooltest.Marshal(map[string]any{"data": data}))
	tooltest.WantJSON(t, "default percentiles", got["percentiles"], `{"25":26,"50":51,"75":76,"90":91,"95":96,"99":100}`)
	subset(t, "1..101", got, `{"count":101,"sum":5151,"mean":51,"median":51,"min":1,"max":101,"range":100}`)
}

func TestMathStatsPrecision(t *testing.T) {
	t.Parallel()
	got := run(t, "math_stats", `{"data":[0.1,0.2,0.3],"percentiles":[95]}`)
	for k, want := range map[string]float64{"mean": 0.2, "sum": 0.6, "median": 0.2} {
		if g := got[k].(float64); math.Abs(g-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, g, want)
		}
	}
	if g := got["percentiles"].(map[string]any)["95"].(float64); math.Abs(g-0.29) > 1e-12 {
		t.Errorf("p95 = %v, want 0.29", g)
	}
	if g := got["variance"].(map[string]any)["sample"].(float64); math.Abs(g-0.01) > 1e-12 {
		t.Errorf("sample variance = %v, want 0.01", g)
	}
}

func TestMathStatsBadInput(t *testing.T) {
	t.Parallel()
	checkBad(t, []badInput{
		{"math_stats", `{}`, []string{`"data"`, "required"}},
		{"math_stats", `{"data":[]}`, []string{`"data"`, "at least 1"}},
		{"math_stats", `{"data":[1,"2"]}`, []string{`"data[1]"`, "expected number"}},
		{"math_stats", `{"data":[1,null]}`, []string{`"data[1]"`, "expected number"}},
		{"math_stats", `{"data":"1,2,3"}`, []string{`"data"`, "expected array"}},
		{"math_stats", `{"data":[1],"percentiles":[50,101]}`, []string{`"percentiles[1]"`, "<= 100"}},
		{"math_stats", `{"data":[1],"percentiles":[-0.5]}`, []string{`"percentiles[0]"`, ">= 0"}},
		{"math_stats", `{"data":[1],"percentiles":50}`, []string{`"percentiles"`, "expected array"}},
		{"math_stats", `{"data":[1e308,-1e308]}`, []string{`"data"`, "too large"}},
		{"math_stats", `{"data":[1e308,1e308]}`, []string{`"data"`, "too large"}},
	})
}
