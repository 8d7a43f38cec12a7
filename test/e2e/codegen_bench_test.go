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

// BenchmarkBrowserClick is one browser_click through the front, by CSS and
// by a snapshot ref (whose answer's code names the element by a locator
// generated in the same look at the page): what code generation costs.
func BenchmarkBrowserClick(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><title>t</title><ul><li>a</li><li>b</li></ul><button id="b" onclick="document.getElementById('o').textContent+='x'">Go</button><p id="o"></p>`)
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
