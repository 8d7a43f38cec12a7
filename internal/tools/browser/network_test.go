package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/browser/browsertest"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// mockServer answers the real responses the routes stand in front of.
func mockServer(t *testing.T) *httptest.Server {
	return serveFiles(t, map[string]string{"/": `<!doctype html><title>Net</title><h1>Net</h1>`, "/api/data": "real"})
}

// serveFiles serves files by path: .js as JavaScript, /api/... as plain
// text, the others as HTML; other paths are 404.
func serveFiles(t *testing.T, files map[string]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		switch {
		case !ok:
			http.NotFound(w, r)
			return
		case strings.HasSuffix(r.URL.Path, ".js"):
			w.Header().Set("Content-Type", "text/javascript")
		case strings.HasPrefix(r.URL.Path, "/api/"):
			w.Header().Set("Content-Type", "text/plain")
		default:
			w.Header().Set("Content-Type", "text/html")
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// fetchJS fetches url from the page and answers "status:contentType:body",
// or "failed" when the fetch fails.
func fetchJS(url string) string {
	return `{"expression":"fetch('` + url + `').then(async (r) => r.status + ':' + r.headers.get('content-type') + ':' + await r.text()).catch(() => 'failed')"}`
}

func evalValue(t *testing.T, s *tooltest.Session, args string) any {
	t.Helper()
	return obj(t, s, "browser_evaluate", args)["value"]
}

func TestRoutesOfflineAndHAR(t *testing.T) {
	srv := mockServer(t)
	browsertest.OutputDir(t)
	root := t.TempDir()
	s := tooltest.NewSession(t, Tools())
	s.Ctx = tool.WithRoots(context.Background(), []string{root})
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)
	if got := evalValue(t, s, fetchJS("/api/data")); got != "200:text/plain:real" {
		t.Fatalf("before any route: %v", got)
	}

	// A mocked 200 with its content type, then a 503 routed later wins.
	got := obj(t, s, "browser_route", `{"pattern":"**/api/*","body":"{\"ok\":true}","contentType":"application/json","headers":["X-Mock: yes"]}`)
	if r := got["route"].(map[string]any); r["action"] != "fulfill" || r["status"] != float64(200) {
		t.Errorf("route: %v", got)
	}
	if got := evalValue(t, s, fetchJS("/api/data")); got != `200:application/json:{"ok":true}` {
		t.Errorf("mocked 200: %v", got)
	}
	if got := evalValue(t, s, `{"expression":"fetch('/api/data').then((r) => r.headers.get('x-mock'))"}`); got != "yes" {
		t.Errorf("mocked header: %v", got)
	}
	s.MustRun("browser_route", `{"pattern":"**/api/data","status":503,"body":"down"}`)
	if got := evalValue(t, s, fetchJS("/api/data")); got != "503:text/plain; charset=utf-8:down" {
		t.Errorf("mocked 503 (the later route): %v", got)
	}
	// * stays within a path segment: /api/a/b is not matched by **/api/*.
	if got := evalValue(t, s, fetchJS("/api/a/b")); !strings.HasPrefix(fmt.Sprint(got), "404:") {
		t.Errorf("**/api/* matched /api/a/b: %v", got)
	}
	list := obj(t, s, "browser_route_list", `{}`)
	routes := list["routes"].([]any)
	if list["count"] != float64(2) || routes[0].(map[string]any)["hits"] != float64(2) || routes[1].(map[string]any)["hits"] != float64(1) || routes[1].(map[string]any)["status"] != float64(503) {
		t.Errorf("route list with hits: %v", tooltest.Marshal(list))
	}

	// The record marks the mocked requests, and only them.
	reqs := obj(t, s, "browser_network_requests", `{"filter":"/api/data"}`)["requests"].([]any)
	var mocked, real int
	for _, r := range reqs {
		if r.(map[string]any)["mocked"] == true {
			mocked++
		} else {
			real++
		}
	}
	if mocked != 3 || real != 1 {
		t.Errorf("network record: %d mocked, %d real, want 3 and 1: %s", mocked, real, tooltest.Marshal(reqs))
	}

	// A tab opened after the route is routed too, navigations included.
	s.MustRun("browser_route", `{"pattern":"**/fake-page","body":"<h1 id=m>Mocked page</h1>","contentType":"text/html"}`)
	s.MustRun("browser_tabs", `{"action":"new","url":"`+srv.URL+`/"}`)
	if got := evalValue(t, s, fetchJS("/api/data")); got != "503:text/plain; charset=utf-8:down" {
		t.Errorf("new tab, mocked 503: %v", got)
	}
	if got := obj(t, s, "browser_navigate", `{"url":"`+srv.URL+`/fake-page"}`); got["status"] != float64(200) || got["title"] != "" {
		t.Logf("navigate to a mocked page: %v", got)
	}
	if got := obj(t, s, "browser_get_text", `{"selector":"#m"}`); got["text"] != "Mocked page" {
		t.Errorf("mocked navigation: %v", got)
	}

	// The HAR of the tab: a real page, a mocked fetch and a mocked page.
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)
	got = obj(t, s, "browser_network_requests", `{"harPath":"out/tab.har"}`)
	harPath := filepath.Join(root, "out", "tab.har")
	if h := got["har"].(map[string]any); h["path"] != harPath || h["entries"].(float64) < 4 {
		t.Errorf("har result: %v", got["har"])
	}
	checkHAR(t, harPath, srv.URL)
	s.MustFailWith("browser_network_requests", `{"harPath":"../outside.har"}`, tool.CodeForbidden, "harPath", "outside the allowed roots")
	s.MustFailWith("browser_network_requests", `{"harPath":"/etc/barrhawk.har"}`, tool.CodeForbidden, "outside the allowed roots")

	// unroute restores the real answer; by pattern, then all.
	if got := obj(t, s, "browser_unroute", `{"pattern":"**/api/data"}`); got["removed"] != float64(1) || got["routes"] != float64(2) {
		t.Errorf("unroute one: %v", got)
	}
	if got := evalValue(t, s, fetchJS("/api/data")); got != `200:application/json:{"ok":true}` {
		t.Errorf("after removing the later route, the earlier one answers: %v", got)
	}
	if got := obj(t, s, "browser_unroute", `{}`); got["removed"] != float64(2) || got["routes"] != float64(0) {
		t.Errorf("unroute all: %v", got)
	}
	if got := evalValue(t, s, fetchJS("/api/data")); got != "200:text/plain:real" {
		t.Errorf("after unroute: %v", got)
	}

	// Offline: fetch fails in every tab, new ones too, until online.
	s.MustRun("browser_network_state_set", `{"state":"offline"}`)
	if got := evalValue(t, s, fetchJS("/api/data")); got != "failed" {
		t.Errorf("offline fetch: %v", got)
	}
	if got := evalValue(t, s, `{"expression":"navigator.onLine"}`); got != false {
		t.Errorf("offline navigator.onLine: %v", got)
	}
	s.MustRun("browser_tabs", `{"action":"select","index":0}`)
	if got := evalValue(t, s, fetchJS("/api/data")); got != "failed" {
		t.Errorf("offline fetch in the first tab: %v", got)
	}
	s.MustRun("browser_tabs", `{"action":"new"}`)
	if got := evalValue(t, s, `{"expression":"navigator.onLine"}`); got != false {
		t.Errorf("a tab opened offline: navigator.onLine %v", got)
	}
	if e := s.MustFail("browser_navigate", `{"url":"`+srv.URL+`/"}`, tool.CodeToolError); !strings.Contains(e.Message, "INTERNET_DISCONNECTED") {
		t.Errorf("navigation in a tab opened offline: %s", e.Message)
	}
	s.MustRun("browser_network_state_set", `{"state":"online"}`)
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)
	if got := evalValue(t, s, fetchJS("/api/data")); got != "200:text/plain:real" {
		t.Errorf("back online: %v", got)
	}

	// Bad input.
	s.MustFailWith("browser_route", `{"pattern":"**/api/*","status":99}`, tool.CodeInvalidArgs, "status")
	s.MustFailWith("browser_route", `{"pattern":"/api/data","status":404}`, tool.CodeInvalidArgs, "**/api/data")
	s.MustFailWith("browser_route", `{"pattern":"**/{a,{b}}","status":404}`, tool.CodeInvalidArgs, "nested")
	s.MustFailWith("browser_route", `{"pattern":"**/x","headers":["no colon"]}`, tool.CodeInvalidArgs, "Name: Value")
	s.MustFailWith("browser_route", `{"pattern":"**/x"}`, tool.CodeInvalidArgs, "status, body, contentType")
	s.MustFail("browser_network_state_set", `{"state":"flaky"}`, tool.CodeInvalidArgs)
}

// checkHAR reads the HAR the tools wrote: HAR 1.2 with the real page and
// the mocked answers, bodies included.
func checkHAR(t *testing.T, path, base string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read the HAR: %v", err)
	}
	var har struct {
		Log struct {
			Version string `json:"version"`
			Creator struct {
				Name string `json:"name"`
			} `json:"creator"`
			Entries []struct {
				StartedDateTime string `json:"startedDateTime"`
				Request         struct {
					Method  string `json:"method"`
					URL     string `json:"url"`
					Headers []struct{ Name, Value string }
				} `json:"request"`
				Response struct {
					Status  int `json:"status"`
					Headers []struct{ Name, Value string }
					Content struct {
						MimeType string `json:"mimeType"`
						Text     string `json:"text"`
					} `json:"content"`
				} `json:"response"`
				Timings *struct {
					Send, Wait, Receive float64
				} `json:"timings"`
				Mocked bool `json:"_mocked"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(data, &har); err != nil {
		t.Fatalf("the HAR is not JSON: %v\n%.500s", err, data)
	}
	if har.Log.Version != "1.2" || har.Log.Creator.Name != "BarrHawk" {
		t.Errorf("HAR log: version %q, creator %q", har.Log.Version, har.Log.Creator.Name)
	}
	want := map[string]bool{}
	for _, e := range har.Log.Entries {
		if e.StartedDateTime == "" || e.Timings == nil || e.Request.Method == "" || len(e.Request.Headers) == 0 {
			t.Errorf("incomplete entry: %+v", e)
		}
		switch {
		case e.Request.URL == base+"/api/data" && e.Mocked && e.Response.Status == 503 && e.Response.Content.Text == "down":
			want["mocked 503"] = true
		case e.Request.URL == base+"/fake-page" && e.Mocked && e.Response.Status == 200 && e.Response.Content.MimeType == "text/html" && strings.Contains(e.Response.Content.Text, "Mocked page"):
			want["mocked page"] = true
		case e.Request.URL == base+"/" && !e.Mocked && e.Response.Status == 200 && strings.Contains(e.Response.Content.Text, "<h1>Net</h1>") && len(e.Response.Headers) > 0:
			want["real page"] = true
		}
	}
	for _, k := range []string{"mocked 503", "mocked page", "real page"} {
		if !want[k] {
			t.Errorf("the HAR has no %s entry:\n%.3000s", k, data)
		}
	}
}
