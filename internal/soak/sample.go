package soak

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/proc"
)

// Series is one figure sampled over the run, with what counts as growth.
type Series struct {
	Name, Unit string
	// PerHour is the growth per hour (least-squares slope over the second
	// half of a run) beyond which a long run fails.
	PerHour float64
	// Rel and Abs are the short run's margin: the median of its last third
	// may exceed the median of its middle third by Rel of it plus Abs.
	Rel, Abs float64
}

// The series sampled, in the order of Sample.V. Processes are told apart by
// where they sit in the server's tree: the front is the server's process,
// an Igor a barrhawk child of it, a browser a child of an Igor (with its
// own children: renderers, GPU and utility processes, and the crash
// handlers the front adopts), an upstream anything else under the front
// (server-everything's node).
//
// Each Igor runs a browser of its own, and which Igor a browser call
// reaches is the round-robin's choice, so 0, 1 or 2 browsers run at a
// sample: the browsers' figures are per running browser, which does not
// jump with their number, beside the number itself. Browser memory is PSS
// (proportional set size): Chromium's processes share most of their pages,
// which RSS would count once in each.
const (
	frontRSS = iota
	frontFDs
	frontGoroutines
	igorRSS
	igorFDs
	igorThreads
	igorGoroutines
	browsers
	browserPSS
	browserProcs
	browserFDs
	upstreamRSS
	upstreamFDs
	processes
	homeDisk
	tmpDisk
	nSeries
)

// AllSeries are the series, indexed by the constants above. The hourly
// thresholds are several times the noise a 10-minute run shows on a
// healthy server (docs/PERFORMANCE.md); the short run's margins are wide
// enough for GC cycles, tabs and Chromium's own start and stop.
var AllSeries = [nSeries]Series{
	frontRSS:        {Name: "front RSS", Unit: "MiB", PerHour: 20, Rel: 0.25, Abs: 16},
	frontFDs:        {Name: "front fds", PerHour: 50, Rel: 0.25, Abs: 25},
	frontGoroutines: {Name: "front goroutines", PerHour: 100, Rel: 0.25, Abs: 50},
	igorRSS:         {Name: "Igors RSS (sum)", Unit: "MiB", PerHour: 100, Rel: 0.25, Abs: 32},
	igorFDs:         {Name: "Igors fds (sum)", PerHour: 50, Rel: 0.25, Abs: 25},
	igorThreads:     {Name: "Igors threads (sum)", PerHour: 50, Rel: 0.25, Abs: 16},
	igorGoroutines:  {Name: "Igors goroutines (sum)", PerHour: 100, Rel: 0.25, Abs: 50},
	browsers:        {Name: "browsers running", PerHour: 10, Rel: 0, Abs: 2},
	browserPSS:      {Name: "browser PSS, per browser", Unit: "MiB", PerHour: 1000, Rel: 0.5, Abs: 64},
	browserProcs:    {Name: "browser processes, per browser", PerHour: 10, Rel: 0.25, Abs: 4},
	browserFDs:      {Name: "browser fds, per browser", PerHour: 100, Rel: 0.5, Abs: 50},
	upstreamRSS:     {Name: "upstream RSS", Unit: "MiB", PerHour: 40, Rel: 0.25, Abs: 32},
	upstreamFDs:     {Name: "upstream fds", PerHour: 50, Rel: 0.25, Abs: 25},
	processes:       {Name: "processes besides browsers", PerHour: 10, Rel: 0, Abs: 3},
	homeDisk:        {Name: "BARRHAWK_HOME disk", Unit: "MiB", PerHour: 50, Rel: 0.25, Abs: 8},
	tmpDisk:         {Name: "TMPDIR disk", Unit: "MiB", PerHour: 50, Rel: 0.5, Abs: 32},
}

// Sample is the series at one time.
type Sample struct {
	At time.Duration // since the load started
	V  [nSeries]float64
}

// sampleUntil samples srv o.Interval after the last sample (and between
// browser cycles) until ctx ends, appending to res.Samples, and fails if
// the server exits.
func sampleUntil(ctx context.Context, srv *server, o Options, res *Result) error {
	start := time.Now()
	c := &client{url: srv.url}
	defer c.close()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-srv.done:
			return errGone
		case <-time.After(o.Interval):
		}
		srv.quiet.Lock()
		s, err := sample(ctx, srv, c)
		srv.quiet.Unlock()
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		s.At = time.Since(start)
		res.Samples = append(res.Samples, s)
		if o.Log != nil {
			fmt.Fprintf(o.Log, "soak %4.0fs: front %.0f MiB %v fds %v goroutines, Igors %.0f MiB, %v browsers of %.0f MiB, %v other processes, home %.1f MiB\n",
				s.At.Seconds(), s.V[frontRSS], s.V[frontFDs], s.V[frontGoroutines], s.V[igorRSS], s.V[browsers], s.V[browserPSS], s.V[processes], s.V[homeDisk])
		}
	}
}

// sample reads the server's process tree from /proc, its goroutines from
// worker_status (on c) and the disk under its home and TMPDIR.
func sample(ctx context.Context, srv *server, c *client) (Sample, error) {
	var s Sample
	front := srv.cmd.Process.Pid
	res, err := c.call(ctx, "worker_status", nil)
	if err != nil {
		return s, fmt.Errorf("soak: sampling the front's goroutines: %w", err)
	}
	g, ig, err := goroutines(res.StructuredContent)
	if err != nil {
		return s, err
	}
	s.V[frontGoroutines], s.V[igorGoroutines] = g, ig
	s.V[frontRSS] = mib(proc.RSS(front))
	s.V[frontFDs] = float64(fds(front))
	const (
		igor = iota + 1
		browser
		upstream
	)
	kind := map[int]int{} // pid → what it is
	for _, p := range proc.Descendants(front) {
		if p.State == 'Z' {
			continue
		}
		switch parent := kind[p.PPID]; {
		case parent == igor:
			kind[p.PID] = browser
			s.V[browsers]++
		case parent == browser:
			kind[p.PID] = browser
		case p.PPID == front && p.Comm == "barrhawk":
			kind[p.PID] = igor
		case p.PPID == front && strings.HasPrefix(p.Comm, "chrom"):
			// Chromium's crash handler leaves its parent, and the front,
			// a subreaper, adopts it.
			kind[p.PID] = browser
		default:
			kind[p.PID] = upstream
		}
		switch kind[p.PID] {
		case igor:
			s.V[igorRSS] += mib(proc.RSS(p.PID))
			s.V[igorFDs] += float64(fds(p.PID))
			s.V[igorThreads] += threads(p.PID)
		case browser:
			s.V[browserPSS] += mib(proc.PSS(p.PID))
			s.V[browserFDs] += float64(fds(p.PID))
			s.V[browserProcs]++
			continue
		case upstream:
			s.V[upstreamRSS] += mib(proc.RSS(p.PID))
			s.V[upstreamFDs] += float64(fds(p.PID))
		}
		s.V[processes]++
	}
	if n := s.V[browsers]; n > 0 {
		s.V[browserPSS] /= n
		s.V[browserFDs] /= n
		s.V[browserProcs] /= n
	}
	s.V[homeDisk] = mib(du(srv.home))
	s.V[tmpDisk] = mib(du(srv.tmp))
	return s, nil
}

// goroutines are the front's goroutines (health.goroutines) and the sum
// of its Igors' (pool.igors[].goroutines, from their last pongs) of a
// worker_status answer.
func goroutines(status any) (front, igors float64, err error) {
	st, _ := status.(map[string]any)
	h, _ := st["health"].(map[string]any)
	front, ok := h["goroutines"].(float64)
	if !ok {
		return 0, 0, fmt.Errorf("soak: worker_status has no health.goroutines (a barrhawk older than the soak?): %.200v", st["health"])
	}
	pool, _ := st["pool"].(map[string]any)
	list, _ := pool["igors"].([]any)
	for _, ig := range list {
		n, _ := ig.(map[string]any)["goroutines"].(float64)
		igors += n
	}
	return front, igors, nil
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// fds counts pid's open files.
func fds(pid int) int {
	ents, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	return len(ents)
}

// threads is the Threads line of /proc/PID/status.
func threads(pid int) float64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return float64(n)
		}
	}
	return 0
}

// du is the size of the files under dir (files that vanish while it walks
// are skipped).
func du(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
