package soak

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
)

// Stat summarizes one series over a run.
type Stat struct {
	Series
	First, Last, Max float64
	// Slope is the growth per hour, a least-squares fit over the second
	// half of the run (the first is warm-up), and SlopeErr its standard
	// error: the noise the fit could not tell from growth.
	Slope, SlopeErr float64
	// Middle and End are the medians of the middle and last thirds.
	Middle, End float64
}

// Grows says the series grew by more than its PerHour threshold, by more
// than twice the slope's standard error: growth the samples' noise does
// not explain (a sawtooth sampled at random phases, such as an upstream
// restarted now and then, can tilt a fit over minutes either way).
func (s Stat) Grows() bool { return s.Slope > s.PerHour && s.Slope > 2*s.SlopeErr }

// Settled says the series' last third stayed within the short run's
// margin of its middle third.
func (s Stat) Settled() bool { return s.End <= s.Middle*(1+s.Rel)+s.Abs }

// Summarize computes each series' Stat.
func Summarize(samples []Sample) []Stat {
	out := make([]Stat, nSeries)
	n := len(samples)
	for i := range out {
		st := Stat{Series: AllSeries[i]}
		if n == 0 {
			out[i] = st
			continue
		}
		ys := make([]float64, n)
		for j, s := range samples {
			ys[j] = s.V[i]
		}
		st.First, st.Last, st.Max = ys[0], ys[n-1], slices.Max(ys)
		st.Slope, st.SlopeErr = slope(samples[n/2:], i)
		st.Middle, st.End = median(ys[n/3:2*n/3]), median(ys[2*n/3:])
		out[i] = st
	}
	return out
}

// slope fits series i of samples to a line, in units per hour, with the
// standard error of the slope.
func slope(samples []Sample, i int) (perHour, stderr float64) {
	n := float64(len(samples))
	if n < 3 {
		return 0, 0
	}
	var mx, my float64
	for _, s := range samples {
		mx += s.At.Hours()
		my += s.V[i]
	}
	mx, my = mx/n, my/n
	var sxx, sxy float64
	for _, s := range samples {
		dx := s.At.Hours() - mx
		sxx += dx * dx
		sxy += dx * (s.V[i] - my)
	}
	if sxx == 0 {
		return 0, 0
	}
	b := sxy / sxx
	var rss float64
	for _, s := range samples {
		r := s.V[i] - my - b*(s.At.Hours()-mx)
		rss += r * r
	}
	return b, math.Sqrt(rss / (n - 2) / sxx)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Sorted(slices.Values(v))
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// WriteTable writes the stats as a Markdown table: first, last and max,
// the growth per hour over the second half and its threshold.
func WriteTable(w io.Writer, stats []Stat) {
	fmt.Fprintln(w, "| series | first | last | max | growth per hour (± std. error) | fails above | |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- |")
	for _, s := range stats {
		unit := ""
		if s.Unit != "" {
			unit = " " + s.Unit
		}
		verdict := "ok"
		if s.Grows() {
			verdict = "**GROWS**"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %+.1f ± %.1f%s/h | %g%s/h | %s |\n", s.Name,
			num(s.First)+unit, num(s.Last)+unit, num(s.Max)+unit, s.Slope, s.SlopeErr, unit, s.PerHour, unit, verdict)
	}
}

// num prints a figure with one decimal when it has one.
func num(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// WriteLoads writes each load's cycles and errors, with its first errors.
func WriteLoads(w io.Writer, loads []*LoadStats) {
	for _, l := range loads {
		cycles, errs := l.Counts()
		fmt.Fprintf(w, "%-20s %6d cycles, %d failed", l.Name, cycles, errs)
		l.mu.Lock()
		for _, what := range slices.Sorted(maps.Keys(l.Notes)) {
			fmt.Fprintf(w, ", %d %s", l.Notes[what], what)
		}
		fmt.Fprintln(w)
		for _, e := range l.FirstErrors {
			fmt.Fprintf(w, "    %s\n", e)
		}
		l.mu.Unlock()
	}
}
