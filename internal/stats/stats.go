// Package stats holds the descriptive statistics the tools report, so that a
// mean, a variance, a percentile or a rounded figure is computed the same way
// in every result (math_stats, report_timing, test_flaky_detect,
// test_prioritize, data_generate, ...), and GroupBy, which splits a sample
// into the groups such figures are computed per (tests by name, timings by
// suite).
//
// Functions take plain []float64 and never modify it. Those named for a
// sorted slice (Percentile, Median) expect ascending order; Sorted makes
// one.
package stats

import (
	"math"
	"slices"
)

// Method describes how Percentile interpolates, for results that state it.
const Method = "linear interpolation between closest ranks (numpy default, Excel PERCENTILE.INC)"

// Sorted returns the values of x in ascending order, in a new slice.
func Sorted(x []float64) []float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s
}

// Sum returns the sum of x, adding in order; 0 for an empty slice.
func Sum(x []float64) float64 {
	var sum float64
	for _, v := range x {
		sum += v
	}
	return sum
}

// Mean returns the arithmetic mean of x, Sum(x)/n; 0 for an empty slice.
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return Sum(x) / float64(len(x))
}

// sumSquares returns Σ(v−mean)² over x, the sum of squared deviations from
// the mean.
func sumSquares(x []float64) float64 {
	mean := Mean(x)
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return ss
}

// Variance returns the population variance of x, Σ(v−mean)²/n; 0 for an
// empty slice.
func Variance(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return sumSquares(x) / float64(len(x))
}

// SampleVariance returns the sample variance of x, Σ(v−mean)²/(n−1), the
// unbiased estimate from a sample; ok is false when x has fewer than two
// values.
func SampleVariance(x []float64) (v float64, ok bool) {
	if len(x) < 2 {
		return 0, false
	}
	return sumSquares(x) / float64(len(x)-1), true
}

// StdDev returns the population standard deviation of x, the square root of
// Variance.
func StdDev(x []float64) float64 { return math.Sqrt(Variance(x)) }

// Percentile returns the p-th percentile (0 <= p <= 100) of sorted, an
// ascending slice, by linear interpolation between the closest ranks: with n
// values the percentile sits at rank h = (n−1)·p/100 (0-based) and is
// sorted[⌊h⌋] + (h−⌊h⌋)·(sorted[⌊h⌋+1]−sorted[⌊h⌋]). This is the default of
// numpy, R (type 7) and Excel's PERCENTILE.INC (see Method); the 50th
// percentile is the usual median. A rank that falls on a value returns that
// value exactly. It returns 0 for an empty slice; p outside [0, 100] gives
// the minimum or the maximum.
func Percentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	h := float64(n-1) * p / 100
	lo := int(math.Floor(h))
	switch {
	case lo >= n-1:
		return sorted[n-1]
	case lo < 0:
		return sorted[0]
	}
	frac := h - float64(lo)
	if frac == 0 {
		return sorted[lo]
	}
	return sorted[lo] + frac*(sorted[lo+1]-sorted[lo])
}

// Median returns the median of sorted, an ascending slice: the middle value,
// or the mean of the middle two for an even count; 0 for an empty slice.
func Median(sorted []float64) float64 { return Percentile(sorted, 50) }

// Round rounds x to the given number of decimals, halves away from zero. It
// never returns -0, so that results do not show "-0".
func Round(x float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	r := math.Round(x*p) / p
	if r == 0 {
		return 0
	}
	return r
}

// Group is the items of a sample that share a key.
type Group[K comparable, T any] struct {
	Key   K
	Items []T
}

// GroupBy splits items into groups by key, the first step of per-group
// statistics (timings by suite, outcomes by test). Groups come in the order
// their keys first appear, and items keep their order within a group.
func GroupBy[K comparable, T any](items []T, key func(T) K) []Group[K, T] {
	var groups []Group[K, T]
	index := map[K]int{}
	for _, it := range items {
		k := key(it)
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, Group[K, T]{Key: k})
		}
		groups[i].Items = append(groups[i].Items, it)
	}
	return groups
}
