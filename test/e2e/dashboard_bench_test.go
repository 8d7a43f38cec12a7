package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/record"
)

// fillRecord writes n calls (of 20 tools, one in ten failed) into the
// record of state, as the front's recorder would.
func fillRecord(b *testing.B, state string, n int) {
	b.Helper()
	store, err := record.Open(filepath.Join(state, "record.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	rec := record.NewRecorder(store, record.RecorderOptions{})
	t0 := time.Now().Add(-time.Hour)
	for i := range n {
		e := record.Entry{Start: t0.Add(time.Duration(i) * 30 * time.Millisecond), Duration: time.Duration(200+i%5000) * time.Microsecond,
			Tool: fmt.Sprintf("tool_%02d", i%20), Args: json.RawMessage(fmt.Sprintf(`{"text":"call %d"}`, i)), Value: json.RawMessage(`{"hash":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}`), Igor: "igor-1"}
		if i%10 == 0 {
			e.Value, e.Code, e.Message = nil, "TIMEOUT", "took too long"
		}
		rec.Call(e)
		if i%10_000 == 9_999 {
			rec.Flush(context.Background())
		}
	}
	rec.Flush(context.Background())
}

// BenchmarkDashboardLoad100k: the dashboard's calls page opened in
// Chromium, from navigation to the first rows shown, with 100,000 calls in
// the record; and the API requests behind the pages, each timed on its own.
func BenchmarkDashboardLoad100k(b *testing.B) {
	home := b.TempDir()
	state := filepath.Join(home, ".barrhawk")
	fillRecord(b, state, 100_000)
	s := startWith(b, []string{"--dashboard", "127.0.0.1:0"}, "", "BARRHAWK_HOME="+state, "BARRHAWK_LOG_LEVEL=error")
	open := ""
	for range 200 {
		if m := dashboardLine.FindStringSubmatch(s.stderr.String()); m != nil {
			open = m[1]
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if open == "" {
		b.Fatal("no dashboard URL")
	}
	u, _ := url.Parse(open)
	base, token := "http://"+u.Host, u.Query().Get("token")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	p := headlessPage(ctx, b)
	if _, err := p.Navigate(ctx, open); err != nil {
		b.Fatal(err)
	}
	api := map[string]string{
		"calls":        "/api/calls",
		"calls-tool":   "/api/calls?tool=tool_07",
		"calls-errors": "/api/calls?outcome=error",
		"calls-page50": "", // filled below: the 50th page back
		"overview":     "/api/overview",
		"stats-60min":  "/api/stats?minutes=60",
	}
	var before int64
	for range 50 {
		_, body := dashGet(b, base, token, fmt.Sprintf("/api/calls?before=%d", before))
		var page struct{ Next int64 }
		_ = json.Unmarshal(body, &page)
		before = page.Next
	}
	api["calls-page50"] = fmt.Sprintf("/api/calls?before=%d", before)
	var loads []time.Duration
	timings := map[string]time.Duration{}
	n := 0
	for b.Loop() {
		t0 := time.Now()
		if _, err := p.Navigate(ctx, fmt.Sprintf("%s/?load=%d#/calls", base, n)); err != nil {
			b.Fatal(err)
		}
		if _, err := p.Find(ctx, `#calls-table tr[data-call-id]`, browser.FindOptions{Timeout: 30 * time.Second, State: "attached"}); err != nil {
			b.Fatal(err)
		}
		loads = append(loads, time.Since(t0))
		for name, path := range api {
			t1 := time.Now()
			if code, body := dashGet(b, base, token, path); code != 200 {
				b.Fatalf("%s: %d %s", path, code, body)
			}
			timings[name] += time.Since(t1)
		}
		n++
	}
	reportLatencies(b, loads)
	for name, d := range timings {
		b.ReportMetric(float64(d.Microseconds())/float64(n)/1000, name+"-ms")
	}
}

// cpuTime is the CPU a process has spent (user + system), from
// /proc/PID/stat, at the kernel's 10 ms tick.
func cpuTime(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // from field 3, state
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// BenchmarkRecordingOverhead: the same tools/call on two servers, one
// keeping the record (the default) and one with dashboard.record off, in
// interleaved rounds of 2,000 calls from the raw client; it reports each
// one's latency and the front's CPU per call (its flusher included).
func BenchmarkRecordingOverhead(b *testing.B) {
	cfg := filepath.Join(b.TempDir(), "barrhawk.yaml")
	if err := os.WriteFile(cfg, []byte("dashboard:\n  record: false\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	servers := []struct {
		name      string
		c         *rawClient
		wall, cpu time.Duration
	}{{name: "recorded", c: startRaw(b)}, {name: "unrecorded", c: startRaw(b, "BARRHAWK_CONFIG="+cfg)}}
	const params = `{"name":"hash_text","arguments":{"text":"hello","algorithm":"sha256"}}`
	const round = 2000
	for _, s := range servers {
		for range 200 {
			s.c.rpc(b, "tools/call", params)
		}
	}
	n := 0
	for b.Loop() {
		for i := range servers {
			s := &servers[i]
			pid := s.c.cmd.Process.Pid
			c0, t0 := cpuTime(b, pid), time.Now()
			for range round {
				s.c.rpc(b, "tools/call", params)
			}
			time.Sleep(300 * time.Millisecond) // the flusher's turn, counted with the calls
			s.wall += time.Since(t0) - 300*time.Millisecond
			s.cpu += cpuTime(b, pid) - c0
		}
		n += round
	}
	for _, s := range servers {
		b.ReportMetric(float64(s.wall.Nanoseconds())/float64(n)/1000, s.name+"-µs/call")
		b.ReportMetric(float64(s.cpu.Nanoseconds())/float64(n)/1000, s.name+"-front-cpu-µs/call")
	}
}
