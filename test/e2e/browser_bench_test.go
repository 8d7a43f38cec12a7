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
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><title>t</title><button id="b" onclick="document.getElementById('o').textContent='done'">Go</button><p id="o"></p>`)
	}))
	defer srv.Close()
	s := startConfigured(b, "igors:\n  maxWorkers: 1\n  heartbeatInterval: 1s\n")
	ctx := context.Background()
	call := func(name string, args map[string]any) {
		res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %v", name, err, res)
		}
	}
	call("browser_navigate", map[string]any{"url": srv.URL})
	var lat []time.Duration
	for b.Loop() {
		t0 := time.Now()
		call("browser_navigate", map[string]any{"url": srv.URL})
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
		call("browser_tabs", map[string]any{"action": "new", "url": srv.URL})
	}
	four := status()
	if four["browserPages"] != float64(4) {
		b.Fatalf("tabs: %v", four)
	}
	b.ReportMetric((four["browserMemory"].(float64)-one["browserMemory"].(float64))/3/(1<<20), "added-MiB/tab")
}
