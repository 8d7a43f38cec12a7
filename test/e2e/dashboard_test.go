package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/testreport"
)

// dashboardLine is the line serve prints with the dashboard's URL.
var dashboardLine = regexp.MustCompile(`BarrHawk dashboard: (http://\S+\?token=\S+)`)

// dashboardURL waits for the line serve prints with the dashboard's URL.
func dashboardURL(t *testing.T, s *server) string {
	t.Helper()
	for range 200 {
		if m := dashboardLine.FindStringSubmatch(s.stderr.String()); m != nil {
			return m[1]
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("serve printed no dashboard URL; stderr:\n%s", s.stderr.String())
	return ""
}

// dashGet fetches a dashboard path with the token.
func dashGet(t testing.TB, base, token, path string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// headlessPage launches a headless Chromium, closed when the test ends,
// and returns its page.
func headlessPage(ctx context.Context, tb testing.TB) *browser.Page {
	tb.Helper()
	br, err := browser.Launch(ctx, browser.Options{Headless: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { br.Close() })
	p, err := br.Active()
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// The dashboard as a new user meets it: served by serve --dashboard,
// opened in a real Chromium by the URL serve printed, following calls,
// Igors and test runs live, and keeping the runs for the next start.
func TestDashboard(t *testing.T) {
	t.Parallel()
	s := startWith(t, []string{"--dashboard", "127.0.0.1:0"}, "", "BARRHAWK_MAX_IGORS=2")
	open := dashboardURL(t, s)
	u, err := url.Parse(open)
	if err != nil {
		t.Fatal(err)
	}
	token := u.Query().Get("token")
	base := "http://" + u.Host

	// Without the token, nothing; with it but from another origin, no
	// state changes.
	for _, path := range []string{"/", "/api/calls", "/api/runs", "/app.js"} {
		if code, body := dashGet(t, base, "", path); code != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d %s", path, code, body)
		}
	}
	if code, _ := dashGet(t, base, "", "/?token=wrong"); code != http.StatusUnauthorized {
		t.Errorf("a wrong token in the URL: %d", code)
	}
	req, _ := http.NewRequest("POST", base+"/api/rollback", strings.NewReader(`{"snapshot":"x"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Origin", "http://evil.example")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a POST from another origin: %v %v", resp.StatusCode, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	p := headlessPage(ctx, t)
	wait := func(sel string, d time.Duration) {
		t.Helper()
		if _, err := p.Find(ctx, sel, browser.FindOptions{Timeout: d, State: "attached"}); err != nil {
			html, _ := p.Evaluate(ctx, "document.body.innerText.slice(0, 3000)", nil)
			t.Fatalf("the dashboard shows no %s: %v\npage text: %s", sel, err, html)
		}
	}
	if _, err := p.Navigate(ctx, open); err != nil {
		t.Fatal(err)
	}
	if cur, _ := p.URL(ctx); strings.Contains(cur, "token=") {
		t.Errorf("the token stays in the address bar: %s", cur)
	}
	if _, err := p.Navigate(ctx, base+"/#/calls"); err != nil {
		t.Fatal(err)
	}
	wait(`#live:text("live")`, 10*time.Second)

	// A call made now shows in the open page, without a reload.
	probe := fmt.Sprintf("live-probe-%d", time.Now().UnixNano())
	called := time.Now()
	s.mustCall("hash_text", map[string]any{"text": probe})
	wait(`#calls-table tr[data-call-id] td.args:has-text("`+probe+`")`, 10*time.Second)
	t.Logf("the call showed in the page %v after it was sent", time.Since(called).Round(time.Millisecond))
	if txt, err := p.Text(ctx, `#calls-table tr[data-call-id]:has-text("`+probe+`") .outcome`, browser.FindOptions{}); err != nil || txt != "ok" {
		t.Errorf("the call's outcome: %q %v", txt, err)
	}
	// A failed call shows as one, with its code; the filter finds it.
	if _, isErr := s.call("hash_text", map[string]any{}); !isErr {
		t.Fatal("hash_text without text succeeded")
	}
	wait(`#calls-table tr[data-call-id]:has-text("INVALID_ARGS") .outcome:has-text("error")`, 10*time.Second)

	// Kill an Igor: the page shows it crashed and its replacement.
	if _, err := p.Navigate(ctx, base+"/#/igors"); err != nil {
		t.Fatal(err)
	}
	wait(`#igors-table tr[data-igor-id]`, 10*time.Second)
	pids := s.igorPIDs()
	if len(pids) == 0 {
		t.Fatal("no Igor")
	}
	victim := pids[0]
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wait(`#igor-events li:has-text("igor:crashed")`, 15*time.Second)
	s.mustCall("hash_text", map[string]any{"text": "after the crash"}) // a replacement runs it
	wait(`#igor-events li:has-text("igor:spawned")`, 15*time.Second)
	pidsShown := func() string {
		v, _ := p.Evaluate(ctx, `[...document.querySelectorAll('#igors-table tr[data-igor-id] .pid')].map(td => td.textContent.trim()).join(' ')`, nil)
		var s string
		_ = json.Unmarshal(v, &s)
		return s
	}
	deadline := time.Now().Add(15 * time.Second)
	for shown := pidsShown(); ; shown = pidsShown() {
		if shown != "" && !strings.Contains(" "+shown+" ", fmt.Sprintf(" %d ", victim)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Igors page still shows the killed Igor %d: %q", victim, shown)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// A failing browser assertion: in the test runs, with its screenshot,
	// and in the exported JUnit file.
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><title>Shop</title><h1>Welcome back</h1>`)
	}))
	defer site.Close()
	s.mustCall("browser_navigate", map[string]any{"url": site.URL})
	res := s.mustCall("assert_text", map[string]any{"selector": "h1", "expected": "Goodbye", "timeout": 200})
	if res["passed"] != false || res["screenshot"] == nil {
		t.Fatalf("the failing assertion: %v", res)
	}
	shot := res["screenshot"].(string)
	if png, err := os.ReadFile(shot); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("the failure's screenshot %s: %v", shot, err)
	}
	// An assertion named by the agent is recorded under its name.
	s.mustCall("assert_text", map[string]any{"selector": "h1", "expected": "Welcome", "testName": "greets the shopper"})
	if _, err := p.Navigate(ctx, base+"/#/runs"); err != nil {
		t.Fatal(err)
	}
	wait(`#runs-table tr[data-run-id]`, 10*time.Second)
	if _, err := p.Click(ctx, `#runs-table tr[data-run-id]`, browser.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	failed := `#run-detail div.test[data-status="failed"]:has-text("Goodbye")`
	wait(failed, 10*time.Second)
	wait(`#run-detail div.test[data-status="passed"]:has-text("greets the shopper")`, 10*time.Second)
	wait(failed+` img.evidence`, 10*time.Second)
	loaded, err := p.Evaluate(ctx, `(async () => { const img = document.querySelector('#run-detail div.test[data-status="failed"] img.evidence'); if (!img.complete) await new Promise(r => img.onload = img.onerror = r); return img.naturalWidth; })()`, nil)
	if err != nil || string(loaded) == "0" {
		t.Errorf("the screenshot did not load in the page: %s %v", loaded, err)
	}
	href, err := p.Evaluate(ctx, `document.querySelector('#export-junit').getAttribute('href')`, nil)
	if err != nil {
		t.Fatal(err)
	}
	var junitPath string
	_ = json.Unmarshal(href, &junitPath)
	code, xml := dashGet(t, base, token, junitPath)
	if code != 200 {
		t.Fatalf("GET %s: %d %s", junitPath, code, xml)
	}
	rep, err := testreport.Parse(ctx, bytes.NewReader(xml), "run.xml", testreport.JUnit)
	if err != nil {
		t.Fatalf("the exported JUnit does not read: %v\n%s", err, xml)
	}
	var sawFailure bool
	for _, r := range rep.Results {
		if r.Status == testreport.Failed && strings.Contains(r.Name, "Goodbye") {
			sawFailure = true
			if len(r.Attachments) == 0 || r.Attachments[0].Path != shot {
				t.Errorf("the failure's attachments: %+v, want %s", r.Attachments, shot)
			}
		}
	}
	if !sawFailure {
		t.Errorf("the exported JUnit has no failed assert_text:\n%s", xml)
	}
	code, html := dashGet(t, base, token, strings.TrimSuffix(junitPath, "/junit")+"/report.html")
	if code != 200 || !bytes.Contains(html, []byte("data:image/png;base64,")) {
		t.Errorf("the HTML report: %d, inline screenshot %v", code, bytes.Contains(html, []byte("data:image/png;base64,")))
	}
	// A job: in the jobs page with its log followed live, and once it
	// has failed, in the runs.
	job := s.mustCall("task_submit", map[string]any{"repo": spawnRepo(t), "test": []string{"echo job-says-hello; sleep 1; echo job-says-bye; exit 3"}})
	jobID := int64(job["id"].(float64))
	if _, err := p.Navigate(ctx, base+"/#/jobs"); err != nil {
		t.Fatal(err)
	}
	row := fmt.Sprintf(`#jobs-table tr[data-job-id="%d"]`, jobID)
	wait(row, 15*time.Second)
	if _, err := p.Click(ctx, row, browser.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	wait(`#job-log:has-text("job-says-hello")`, 15*time.Second)
	wait(`#job-log:has-text("job-says-bye")`, 15*time.Second)
	for deadline := time.Now().Add(20 * time.Second); ; {
		_, body := dashGet(t, base, token, "/api/runs?kind=job")
		if bytes.Contains(body, []byte(fmt.Sprintf(`"source":"%d"`, jobID))) && bytes.Contains(body, []byte(`"failed":1`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the failed job is not in the runs: %s", body)
		}
		time.Sleep(200 * time.Millisecond)
	}

	_, runsBody := dashGet(t, base, token, "/api/runs?kind=session")
	s.stop()

	// A second start shows the runs of the first.
	s2 := startWith(t, []string{"--dashboard", "127.0.0.1:0"}, "", "BARRHAWK_HOME="+s.home+"/.barrhawk")
	u2, _ := url.Parse(dashboardURL(t, s2))
	var first struct {
		Runs []struct {
			ID int64 `json:"id"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(runsBody, &first); err != nil || len(first.Runs) == 0 {
		t.Fatalf("runs of the first start: %s", runsBody)
	}
	code, again := dashGet(t, "http://"+u2.Host, u2.Query().Get("token"), fmt.Sprintf("/api/runs/%d", first.Runs[0].ID))
	if code != 200 || !bytes.Contains(again, []byte("Goodbye")) {
		t.Errorf("the second start does not show the first's run: %d %.300s", code, again)
	}
}
