package e2e

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestBrowserOverMCP: a login flow in real Chromium through the server and
// an Igor, a screenshot as MCP image content, and an Igor killed with
// SIGKILL while it holds the browser leaves no Chromium process behind.
func TestBrowserOverMCP(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			io.WriteString(w, `<!doctype html><title>Login</title><form action="/home"><label for="u">User</label><input id="u" name="u"><button>Sign in</button></form>`)
		case "/home":
			fmt.Fprintf(w, `<!doctype html><title>Home</title><h1>Welcome %s</h1>`, r.URL.Query().Get("u"))
		}
	}))
	defer srv.Close()
	s := startConfigured(t, "igors:\n  maxWorkers: 1\n  heartbeatInterval: 1s\n")
	s.mustCall("browser_navigate", map[string]any{"url": srv.URL + "/"})
	s.mustCall("browser_type", map[string]any{"selector": "role=textbox[name=\"User\"]", "text": "ada"})
	s.mustCall("browser_click", map[string]any{"selector": "text=Sign in"})
	s.mustCall("browser_wait", map[string]any{"selector": "h1"})
	if got := s.mustCall("browser_get_text", map[string]any{"selector": "h1"}); got["text"] != "Welcome ada" {
		t.Fatalf("after login: %v", got)
	}
	if got := s.mustCall("assert_url", map[string]any{"expected": "/home?u=ada", "mode": "contains"}); got["passed"] != true {
		t.Errorf("assert_url: %v", got)
	}
	if got := s.mustCall("assert_text", map[string]any{"selector": "h1", "expected": "Welcome ada", "mode": "equals"}); got["passed"] != true {
		t.Errorf("assert_text: %v", got)
	}
	if got := s.mustCall("assert_text", map[string]any{"selector": "h1", "expected": "Goodbye", "timeout": 300}); got["passed"] != false || got["actual"] != "Welcome ada" {
		t.Errorf("a failing assert_text: %v", got)
	}
	res, err := s.session.CallTool(context.Background(), callParams("browser_screenshot", map[string]any{}))
	if err != nil || res.IsError || len(res.Content) != 2 {
		t.Fatalf("screenshot: %v %+v", err, res)
	}
	img, ok := res.Content[0].(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" {
		t.Fatalf("screenshot part 0: %#v", res.Content[0])
	}
	if p, err := png.Decode(bytes.NewReader(img.Data)); err != nil || p.Bounds().Dx() != 1280 || p.Bounds().Dy() != 720 {
		t.Errorf("screenshot image: %v", err)
	}
	if meta := text(res); !strings.Contains(meta, `"width":1280`) || !strings.Contains(meta, "/home") {
		t.Errorf("screenshot metadata: %s", meta)
	}

	// worker_status shows the browser's tabs and their memory (from pongs).
	waitFor(t, "the browser in worker_status", func() bool {
		ig := s.mustCall("worker_status", nil)["pool"].(map[string]any)["igors"].([]any)[0].(map[string]any)
		return ig["browserPages"] == float64(1) && ig["browserMemory"].(float64) > 10<<20 && ig["browserMemoryPerPage"].(float64) > 0
	})

	// SIGKILL the Igor that holds the browser: its Chromium goes too.
	pids := s.igorPIDs()
	if len(pids) != 1 {
		t.Fatalf("igors: %v", pids)
	}
	var browsers []int
	for _, p := range proc.Descendants(pids[0]) {
		browsers = append(browsers, p.PID)
	}
	if len(browsers) < 2 {
		t.Fatalf("the Igor's descendants: %v (want the browser and its helpers)", browsers)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range browsers {
		for processAlive(pid) && time.Now().Before(deadline) {
			proc.ReapOrphans()
			time.Sleep(20 * time.Millisecond)
		}
		if processAlive(pid) {
			t.Errorf("browser process %d outlived its Igor", pid)
		}
	}
	// The next call gets a new Igor and a new browser; browser_close ends
	// every process of it.
	s.mustCall("browser_navigate", map[string]any{"url": srv.URL + "/"})
	igor := s.igorPIDs()[0]
	if len(proc.Descendants(igor)) == 0 {
		t.Fatal("no browser under the new Igor")
	}
	s.mustCall("browser_close", nil)
	waitFor(t, "no browser process after browser_close", func() bool { proc.ReapOrphans(); return len(proc.Descendants(igor)) == 0 })
}

// TestDynamicToolBrowser: a dynamic tool with the browser permission drives
// a page through ctx.browser; one without it is refused with FORBIDDEN.
func TestDynamicToolBrowser(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><title>Greeter</title><input id="name"><button onclick="document.getElementById('out').textContent = 'Hi ' + document.getElementById('name').value">Greet</button><p id="out"></p>`)
	}))
	defer srv.Close()
	s := start(t)
	code := `const status = await ctx.browser.navigate(args.url);
await ctx.browser.type('#name', 'Ada');
await ctx.browser.click('text=Greet');
const png = await ctx.browser.screenshot();
return { status, text: await ctx.browser.text('#out'), title: await ctx.browser.title(), sum: await ctx.browser.evaluate('1 + 2'), png: png.length > 100 };`
	args := map[string]any{"name": "greet_page", "description": "Greets on a page", "permissions": []string{"browser"},
		"schema": map[string]any{"type": "object", "properties": map[string]any{"url": map[string]any{"type": "string", "description": "Page"}}, "required": []string{"url"}},
		"code":   code}
	s.mustCall("dynamic_tool_create", args)
	got := s.mustCall("greet_page", map[string]any{"url": srv.URL})
	if got["status"] != float64(200) || got["text"] != "Hi Ada" || got["title"] != "Greeter" || got["sum"] != float64(3) || got["png"] != true {
		t.Errorf("greet_page: %v", got)
	}
	// ctx.browser speaks the same selectors, and a bad one is named.
	args["name"], args["code"] = "greet_playwright", `await ctx.browser.navigate(args.url);
await ctx.browser.type('role=textbox >> nth=0', 'Grace');
await ctx.browser.click('button:has-text("greet")');
const text = await ctx.browser.text('p:visible');
try { await ctx.browser.click('button:has-text("greet"'); } catch (e) { return { text, bad: String(e.message || e) }; }
return { text };`
	s.mustCall("dynamic_tool_create", args)
	got = s.mustCall("greet_playwright", map[string]any{"url": srv.URL})
	if got["text"] != "Hi Grace" || !strings.Contains(fmt.Sprint(got["bad"]), `argument "selector"`) || !strings.Contains(fmt.Sprint(got["bad"]), "a ( is not closed") {
		t.Errorf("greet_playwright: %v", got)
	}
	args["name"], args["permissions"], args["code"] = "greet_sneaky", []string{}, code
	s.mustCall("dynamic_tool_create", args)
	out, isErr := s.call("greet_sneaky", map[string]any{"url": srv.URL})
	if !isErr || !strings.Contains(out, "FORBIDDEN") || !strings.Contains(out, `permissions: ["browser"]`) {
		t.Errorf("without the permission: %s", out)
	}
}

// browserPIDs lists the processes under an Igor (its browser's), read
// from /proc.
func browserPIDs(t *testing.T, igor int) []int {
	t.Helper()
	var pids []int
	for _, p := range proc.Descendants(igor) {
		if p.State != 'Z' {
			pids = append(pids, p.PID)
		}
	}
	if len(pids) < 2 {
		t.Fatalf("the Igor %d's processes: %v (want the browser and its helpers)", igor, pids)
	}
	return pids
}

// TestBrowserGoneWithItsIgor: an Igor shut down by worker_restart, and the
// Igors of a server whose client went away, take their Chromium with them
// (every process, found by a scan of /proc); before that, dialogs, upload,
// console and network capture work through MCP, and bad input gets clear
// errors.
func TestBrowserGoneWithItsIgor(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			io.WriteString(w, `<!doctype html><title>Files</title><input type="file" id="up" onchange="document.getElementById('out').textContent = this.files[0].name">
<button id="ask" onclick="document.getElementById('out').textContent = prompt('Name?')">Ask</button><p id="out"></p>
<script>console.warn('ready', 7); fetch('/api/items?x=1');</script>`)
		case "/api/items":
			w.WriteHeader(http.StatusTeapot)
		}
	}))
	defer srv.Close()
	s := startConfigured(t, "igors:\n  maxWorkers: 1\n  heartbeatInterval: 1s\n")
	s.mustCall("browser_navigate", map[string]any{"url": srv.URL + "/"})

	f := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(f, []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.mustCall("browser_file_upload", map[string]any{"selector": "#up", "files": []string{f}})
	if got := s.mustCall("browser_get_text", map[string]any{"selector": "#out"}); got["text"] != "notes.txt" {
		t.Errorf("upload: %v", got)
	}
	if got := s.mustCall("browser_console_messages", map[string]any{"type": "warning"}); got["count"] != float64(1) || !strings.Contains(fmt.Sprint(got["messages"]), "ready 7") {
		t.Errorf("console: %v", got)
	}
	if got := s.mustCall("browser_network_requests", map[string]any{"filter": "/api/items", "status": 418}); got["count"] != float64(1) {
		t.Errorf("network: %v", got)
	}
	s.mustCall("browser_handle_dialog", map[string]any{"action": "accept", "promptText": "Ada", "autoRespond": true})
	s.mustCall("browser_click", map[string]any{"selector": "#ask"})
	if got := s.mustCall("browser_get_text", map[string]any{"selector": "#out"}); got["text"] != "Ada" {
		t.Errorf("prompt answered: %v", got)
	}
	for _, c := range []struct {
		name    string
		args    map[string]any
		mention string
	}{
		{"browser_navigate", map[string]any{"url": "localhost:3000"}, `did you mean "http://localhost:3000"`},
		{"browser_navigate", map[string]any{"url": 42}, `"url"`},
		{"browser_navigate", map[string]any{"url": "http://" + freePort(t) + "/"}, "nothing listens at"},
		{"browser_click", map[string]any{"selector": "#nope", "timeout": 200}, `ELEMENT_NOT_FOUND: selector "#nope"`},
		{"browser_screenshot", map[string]any{"savePath": "../../x.png"}, "FORBIDDEN"},
		{"browser_resize", map[string]any{"width": -1, "height": 400}, `argument "width"`},
	} {
		out, isErr := s.call(c.name, c.args)
		if !isErr || !strings.Contains(out, c.mention) {
			t.Errorf("%s %v: %s", c.name, c.args, out)
		}
	}

	// worker_restart: the Igor closes its browser as it shuts down.
	browsers := browserPIDs(t, s.igorPIDs()[0])
	s.mustCall("worker_restart", nil)
	for _, pid := range browsers {
		waitGone(t, pid)
	}
	// The client goes away: the server ends, its Igor too, and the browser.
	s.mustCall("browser_navigate", map[string]any{"url": srv.URL + "/"})
	browsers = browserPIDs(t, s.igorPIDs()[0])
	s.stop()
	for _, pid := range browsers {
		waitGone(t, pid)
	}
}

// TestBrowserAcrossIgors: with several Igors under round-robin, the
// browser calls after a navigate find its page (they run on the Igor
// holding the browser), and a parallel swarm of browser calls spreads over
// the Igors, each with its own Chromium.
func TestBrowserAcrossIgors(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>Page</title><h1>at %s</h1>`, r.URL.Path)
	}))
	defer srv.Close()
	s := startWith(t, []string{"--max-igors", "3"}, "igors:\n  heartbeatInterval: 1s\n")
	// Every Igor busy, twice: the pool starts all three.
	for range 2 {
		var wg sync.WaitGroup
		for range 6 {
			wg.Go(func() { s.call("wait_ms", map[string]any{"ms": 300}) })
		}
		wg.Wait()
	}
	if n := len(s.igorPIDs()); n < 2 {
		t.Fatalf("want several Igors before the test, have %d", n)
	}
	s.mustCall("browser_navigate", map[string]any{"url": srv.URL + "/first"})
	for i := range 6 {
		if got := s.mustCall("browser_get_text", map[string]any{"selector": "h1"}); got["text"] != "at /first" {
			t.Fatalf("read %d after the navigate: %v", i, got)
		}
	}
	var subtasks []any
	for i := range 3 {
		subtasks = append(subtasks, map[string]any{"id": fmt.Sprint("s", i), "tool": "browser_navigate", "args": map[string]any{"url": fmt.Sprintf("%s/swarm/%d", srv.URL, i)}})
	}
	got := s.mustCall("swarm_run", map[string]any{"strategy": "parallel", "subtasks": subtasks})
	if got["status"] != "succeeded" {
		t.Fatalf("swarm: %v", got)
	}
	if igors := got["igors"].([]any); len(igors) < 2 {
		t.Errorf("want the browser subtasks spread over the Igors, got %v", igors)
	}
	// worker_status shows each Igor's goroutines, from its pongs.
	waitFor(t, "goroutines in worker_status", func() bool {
		for _, ig := range s.mustCall("worker_status", nil)["pool"].(map[string]any)["igors"].([]any) {
			if n, _ := ig.(map[string]any)["goroutines"].(float64); n < 1 {
				return false
			}
		}
		return true
	})
}
