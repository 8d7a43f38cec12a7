package stats

import (
	"math"
	"slices"
	"testing"
)

func TestPercentile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		values []float64
		p      float64
		want   float64
	}{
		{nil, 50, 0},
		{[]float64{7}, 99, 7},
		{[]float64{1, 2, 3, 4}, 50, 2.5},
		{[]float64{1, 2, 3, 4}, 0, 1},
		{[]float64{1, 2, 3, 4}, 100, 4},
		{[]float64{1, 2, 3, 4}, -5, 1},
		{[]float64{1, 2, 3, 4}, 150, 4},
		{[]float64{15, 20, 35, 40, 50}, 40, 29},
		{[]float64{80, 120, 300, 340, 560}, 90, 472},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 95, 9.55},
		{[]float64{10, 20, 30, 40}, 12.5, 13.75},
	} {
		if got := Round(Percentile(tc.values, tc.p), 9); got != tc.want {
			t.Errorf("Percentile(%v, %v) = %v, want %v", tc.values, tc.p, got, tc.want)
		}
	}
	// A rank on a value gives it exactly, even where interpolating would
	// overflow.
	if got := Percentile([]float64{-1e308, 1e308}, 100); got != 1e308 {
		t.Errorf("Percentile at the top = %v, want 1e308", got)
	}
	if got := Percentile([]float64{-1e308, 1e308}, 0); got != -1e308 {
		t.Errorf("Percentile at the bottom = %v, want -1e308", got)
	}
}

func TestMedian(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sorted []float64
		want   float64
	}{
		{nil, 0}, {[]float64{3}, 3}, {[]float64{1, 3, 10}, 3}, {[]float64{1, 2, 3, 10}, 2.5},
	} {
		if got := Median(tc.sorted); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.sorted, got, tc.want)
		}
	}
}

func TestMoments(t *testing.T) {
	t.Parallel()
	// The textbook example: population σ = 2.
	x := []float64{2, 4, 4, 4, 5, 5, 7, 9}
	if got := Sum(x); got != 40 {
		t.Errorf("Sum = %v, want 40", got)
	}
	if got := Mean(x); got != 5 {
		t.Errorf("Mean = %v, want 5", got)
	}
	if got := Variance(x); got != 4 {
		t.Errorf("Variance = %v, want 4", got)
	}
	if got := StdDev(x); got != 2 {
		t.Errorf("StdDev = %v, want 2", got)
	}
	if got, ok := SampleVariance(x); !ok || math.Abs(got-32.0/7) > 1e-12 {
		t.Errorf("SampleVariance = %v, %v; want 32/7", got, ok)
	}
	if _, ok := SampleVariance([]float64{1}); ok {
		t.Error("SampleVariance of one value is ok")
	}
	for name, f := range map[string]func([]float64) float64{"Sum": Sum, "Mean": Mean, "Variance": Variance, "StdDev": StdDev} {
		if got := f(nil); got != 0 {
			t.Errorf("%s(nil) = %v, want 0", name, got)
		}
	}
}

func TestSorted(t *testing.T) {
	t.Parallel()
	x := []float64{3, -1, 2}
	if got := Sorted(x); !slices.Equal(got, []float64{-1, 2, 3}) {
		t.Errorf("Sorted = %v", got)
	}
	if !slices.Equal(x, []float64{3, -1, 2}) {
		t.Errorf("Sorted changed its argument: %v", x)
	}
}

func TestRound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		x        float64
		decimals int
		want     float64
	}{
		{1.005001, 2, 1.01}, {2.5, 0, 3}, {-2.5, 0, -3}, {0.1234, 3, 0.123}, {123.456, -1, 120},
	} {
		if got := Round(tc.x, tc.decimals); got != tc.want {
			t.Errorf("Round(%v, %d) = %v, want %v", tc.x, tc.decimals, got, tc.want)
		}
	}
	if got := Round(-0.0001, 2); math.Signbit(got) {
		t.Errorf("Round(-0.0001, 2) = %v, want 0 without sign", got)
	}
}

func TestGroupBy(t *testing.T) {
	t.Parallel()
	words := []string{"pear", "apple", "plum", "avocado", "fig", "peach"}
	got := GroupBy(words, func(w string) byte { return w[0] })
	want := []Group[byte, string]{
		{'p', []string{"pear", "plum", "peach"}},
		{'a', []string{"apple", "avocado"}},
		{'f', []string{"fig"}},
	}
	if len(got) != len(want) {
		t.Fatalf("GroupBy = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Key != want[i].Key || !slices.Equal(got[i].Items, want[i].Items) {
			t.Errorf("group %d = %c %v, want %c %v", i, got[i].Key, got[i].Items, want[i].Key, want[i].Items)
		}
	}
	if g := GroupBy([]int(nil), func(int) int { return 0 }); len(g) != 0 {
		t.Errorf("GroupBy(nil) = %v", g)
	}
}
