package soak

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/testsupport/lockedbuf"
	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
)

// bin is the barrhawk binary built for this test run.
var bin string

func TestMain(m *testing.M) { testbin.Main(m, &bin) }

// TestSoakShort is the soak's short form: 30 s of the same mixed load as
// scripts/soak's 10 minutes (quick tools, browser tabs, SQLite
// connections, a hosted server-everything, dynamic tools, HTTP sessions
// coming and going and abandoned) against a real `barrhawk serve --http`,
// sampled a second after each sample, between browser cycles (about 20
// samples); nothing it holds may grow, and nothing may outlive it.
//
// It does not fit a slope, as the long form does: 30 s is mostly warm-up
// (Igors and browsers starting, heaps growing to their working size, the
// record filling to its bound), and half a MiB over 15 s is 120 MiB an
// hour. It compares the median of the last third of the samples with the
// median of the middle third, the first third being warm-up: medians pass
// over the single samples that catch a GC cycle or a browser starting,
// and the margins (Series.Rel and Abs, a quarter to a half plus a few
// dozen fds or goroutines or MiB) are generous, so that a heap settling
// or a machine busy with other tests does not fail it: what fails it is
// what is kept per call or per session (about 20 KiB per call, an fd or
// two goroutines per session: ten seconds bring some 1,500 calls and 40
// sessions). Slower growth is for scripts/soak's ten minutes to find.
func TestSoakShort(t *testing.T) {
	if _, err := browser.Find(); err != nil {
		t.Fatalf("the soak drives a browser: %v", err)
	}
	everything := filepath.Join(testbin.MCPServers(t, ".bin/mcp-server-everything"), ".bin", "mcp-server-everything")
	var log lockedbuf.Buffer
	o := Options{Bin: bin, Everything: everything, Dir: t.TempDir(), Duration: 30 * time.Second, Interval: time.Second,
		SessionIdle: 3 * time.Second, RecordCalls: 1000, Log: &log}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, o)
	if err != nil {
		t.Fatalf("soak: %v\nserver log:\n%s", err, log.String())
	}
	var report strings.Builder
	WriteLoads(&report, res.Loads)
	fmt.Fprintf(&report, "%d samples; medians of the middle and last thirds, and what the last may reach:\n", len(res.Samples))
	for _, s := range res.Stats {
		fmt.Fprintf(&report, "%-32s %8.1f %8.1f  ≤ %.1f %s\n", s.Name, s.Middle, s.End, s.Middle*(1+s.Rel)+s.Abs, s.Unit)
	}
	t.Log("\n" + report.String())
	for _, l := range res.Loads {
		// Each kind of load must work, or it measures nothing: a few
		// failures are allowed (a tab to close may be in the other Igor's
		// browser six times running).
		if cycles, errs := l.Counts(); cycles == 0 || errs > cycles/5 {
			t.Errorf("%s: %d cycles done, %d failed: %v", l.Name, cycles, errs, l.FirstErrors)
		}
	}
	for _, s := range res.Stats {
		if !s.Settled() {
			t.Errorf("%s grows: median %.1f%s in the middle third, %.1f in the last (allowed: %.1f)",
				s.Name, s.Middle, s.Unit, s.End, s.Middle*(1+s.Rel)+s.Abs)
		}
	}
	for _, p := range res.Stray {
		t.Errorf("process %d (%s) outlived the server", p.PID, p.Comm)
	}
}

// The fit and the medians on samples whose answer is known.
func TestSummarize(t *testing.T) {
	var samples []Sample
	for i := range 60 {
		s := Sample{At: time.Duration(i) * time.Minute}
		s.V[frontRSS] = 100 + float64(i)/2 // 30 MiB an hour
		s.V[frontFDs] = float64(40 + i%2)  // flat, with noise
		samples = append(samples, s)
	}
	stats := Summarize(samples)
	if rss := stats[frontRSS]; rss.Slope < 29.99 || rss.Slope > 30.01 || rss.SlopeErr > 1e-9 || !rss.Grows() || rss.First != 100 || rss.Max != 129.5 {
		t.Errorf("front RSS: %+v", rss)
	}
	if fds := stats[frontFDs]; fds.Grows() || fds.Slope > 1 || fds.Slope < -1 || fds.Middle != 40.5 || !fds.Settled() {
		t.Errorf("front fds: %+v", fds)
	}
}
