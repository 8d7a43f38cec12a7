package e2e

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkBrowserLaunch: browser_launch to a ready browser (Chromium
// started, first tab open), through the MCP front and an Igor.
func BenchmarkBrowserLaunch(b *testing.B) {
	s := start(b)
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: "browser_launch", Arguments: map[string]any{}}
	if _, err := s.session.CallTool(ctx, params); err != nil { // the Igor
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := s.session.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
}

// BenchmarkBrowserActions: navigate + click + get_text on a local page,
// each through the MCP front, once the browser runs; reported per action
// too. Memory per page: see worker_status's browserMemoryPerPage, reported
// here as browser-MiB.
func BenchmarkBrowserActions(b *testing.B) {
	s, url, call := browserBench(b, `<!doctype html><title>t</title><button id="b" onclick="document.getElementById('o').textContent='done'">Go</button><p id="o"></p>`)
	var lat []time.Duration
	for b.Loop() {
		t0 := time.Now()
		call("browser_navigate", map[string]any{"url": url})
		call("browser_click", map[string]any{"selector": "#b"})
		call("browser_get_text", map[string]any{"selector": "#o"})
		lat = append(lat, time.Since(t0)/3)
	}
	reportLatencies(b, lat)
	b.StopTimer()
	status := func() map[string]any {
		time.Sleep(1200 * time.Millisecond) // a pong with the browser's memory
		return s.mustCall("worker_status", nil)["pool"].(map[string]any)["igors"].([]any)[0].(map[string]any)
	}
	one := status()
	b.ReportMetric(one["browserMemoryPerPage"].(float64)/(1<<20), "browser-MiB/page")
	// What one more tab on the page costs: three more, measured together.
	for range 3 {
		call("browser_tabs", map[string]any{"action": "new", "url": url})
	}
	four := status()
	if four["browserPages"] != float64(4) {
		b.Fatalf("tabs: %v", four)
	}
	b.ReportMetric((four["browserMemory"].(float64)-one["browserMemory"].(float64))/3/(1<<20), "added-MiB/tab")
}

// BenchmarkBrowserClick is one browser_click through the front, by CSS and
// by a snapshot ref (whose answer's code names the element by a locator
// generated in the same look at the page): what code generation costs.
func BenchmarkBrowserClick(b *testing.B) {
	_, _, call := browserBench(b, `<!doctype html><title>t</title><ul><li>a</li><li>b</li></ul><button id="b" onclick="document.getElementById('o').textContent+='x'">Go</button><p id="o"></p>`)
	call("browser_snapshot", map[string]any{})
	for _, sel := range []string{"#b", "e3"} {
		b.Run(sel, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				t0 := time.Now()
				call("browser_click", map[string]any{"selector": sel})
				lat = append(lat, time.Since(t0))
			}
			reportLatencies(b, lat)
		})
	}
}

// browserBench serves page, starts a server with one Igor and opens the
// page in its browser; call fails the benchmark on an error.
func browserBench(b *testing.B, page string) (s *server, url string, call func(name string, args map[string]any)) {
	b.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, page)
	}))
	b.Cleanup(srv.Close)
	s = startConfigured(b, "igors:\n  maxWorkers: 1\n  heartbeatInterval: 1s\n")
	call = func(name string, args map[string]any) {
		res, err := s.session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %v", name, err, res)
		}
	}
	call("browser_navigate", map[string]any{"url": srv.URL})
	return s, srv.URL, call
}
