package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestWorkerStatusShowsTabsAtOnce: worker_status shows an Igor's browser
// tabs as the last browser call left them, with no pong in between
// (heartbeats are 10 minutes apart here): a dynamic tool driving
// ctx.browser starts the browser, tabs and sessions open and close, and
// browser_close ends them all.
func TestWorkerStatusShowsTabsAtOnce(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><title>Page</title><h1>Page</h1>`)
	}))
	defer srv.Close()
	s := startConfigured(t, "igors:\n  maxWorkers: 1\n  heartbeatInterval: 10m\n")
	igor := func() map[string]any {
		igors := s.mustCall("worker_status", nil)["pool"].(map[string]any)["igors"].([]any)
		if len(igors) != 1 {
			t.Fatalf("igors: %v", igors)
		}
		return igors[0].(map[string]any)
	}
	want := func(after string, pages float64) {
		t.Helper()
		if ig := igor(); ig["browserPages"] != pages {
			t.Errorf("after %s, worker_status shows %v browser pages, want %v", after, ig["browserPages"], pages)
		}
	}
	s.mustCall("dynamic_tool_create", map[string]any{"name": "open_page", "description": "Opens a page", "permissions": []string{"browser"},
		"schema": map[string]any{"type": "object", "properties": map[string]any{"url": map[string]any{"type": "string", "description": "Page"}}, "required": []string{"url"}},
		"code":   `return { status: await ctx.browser.navigate(args.url) };`})
	s.mustCall("open_page", map[string]any{"url": srv.URL})
	want("a dynamic tool started the browser", 1)
	if ig := igor(); ig["browserMemory"].(float64) <= 0 {
		t.Errorf("worker_status shows no browser memory: %v", ig)
	}
	s.mustCall("browser_tabs", map[string]any{"action": "new", "url": srv.URL})
	want("browser_tabs new", 2)
	s.mustCall("browser_session_new", map[string]any{"id": "bob", "url": srv.URL})
	want("browser_session_new", 3)
	s.mustCall("browser_get_text", map[string]any{"selector": "h1"})
	want("a browser call that opened no tab", 3)
	s.mustCall("browser_session_switch", map[string]any{"id": "default"})
	s.mustCall("browser_tabs", map[string]any{"action": "close", "index": 1})
	want("browser_tabs close", 2)
	s.mustCall("browser_close", nil)
	want("browser_close", 0)
	s.mustCall("browser_navigate", map[string]any{"url": srv.URL})
	want("browser_navigate started a browser again", 1)
}
