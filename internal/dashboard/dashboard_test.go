package dashboard

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/doctor"
	"github.com/barrhawk/barrhawk/internal/record"
)

const token = "test-token-1234"

type fixture struct {
	srv   *httptest.Server
	rec   *record.Recorder
	shots string // an evidence directory
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	store, err := record.Open(filepath.Join(t.TempDir(), "record.db"))
	if err != nil {
		t.Fatal(err)
	}
	return fixtureOn(t, store)
}

// fixtureOn is a dashboard on the record store, closed when the test ends.
func fixtureOn(t *testing.T, store *record.Store) *fixture {
	t.Helper()
	cfg := config.Default()
	cfg.Home = t.TempDir()
	cfg.Tools.EnableDynamic = false
	d, err := doctor.New(doctor.Options{Config: cfg, IgorCommand: []string{"false"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	rec := record.NewRecorder(store, record.RecorderOptions{KindOf: func(name string) string {
		if strings.HasPrefix(name, "assert_") {
			return record.KindBrowserAssertion
		}
		return ""
	}})
	shots := t.TempDir()
	s, err := New(Options{Doctor: d, Recorder: rec, Token: token, EvidenceDirs: []string{shots}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &fixture{srv: srv, rec: rec, shots: shots}
}

func (f *fixture) do(t *testing.T, method, path string, body io.Reader, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestNeedsAToken(t *testing.T) {
	if _, err := New(Options{Doctor: &doctor.Doctor{}, Recorder: &record.Recorder{}, Token: ""}); err == nil {
		t.Error("a dashboard without a token")
	}
	f := newFixture(t)
	for _, path := range []string{"/", "/app.js", "/api/calls", "/api/events"} {
		if resp, body := f.do(t, "GET", path, nil); resp.StatusCode != 401 || !strings.Contains(body, "printed on stderr") {
			t.Errorf("GET %s without the token: %d %s", path, resp.StatusCode, body)
		}
	}
	if resp, _ := f.do(t, "GET", "/api/calls", nil, "Authorization", "Bearer wrong"); resp.StatusCode != 401 {
		t.Errorf("a wrong bearer token: %d", resp.StatusCode)
	}
	if resp, _ := f.do(t, "GET", "/?token=wrong", nil); resp.StatusCode != 401 {
		t.Errorf("a wrong token in the URL: %d", resp.StatusCode)
	}
	// The URL's token becomes an HttpOnly, SameSite=Strict cookie, and the
	// address loses it.
	resp, _ := f.do(t, "GET", "/?token="+token, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("opening the URL: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	c := resp.Cookies()
	if len(c) != 1 || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode || c[0].Value != token {
		t.Fatalf("the cookie: %+v", c)
	}
	if resp, body := f.do(t, "GET", "/", nil, "Cookie", c[0].Name+"="+c[0].Value); resp.StatusCode != 200 || !strings.Contains(body, "app.js") {
		t.Errorf("the page with the cookie: %d %.200s", resp.StatusCode, body)
	}
	if resp, _ := f.do(t, "GET", "/api/calls", nil, "Authorization", "Bearer "+token); resp.StatusCode != 200 {
		t.Errorf("a bearer token: %d", resp.StatusCode)
	}
}

func TestStateChangesOnlyFromItsOwnOrigin(t *testing.T) {
	f := newFixture(t)
	host := strings.TrimPrefix(f.srv.URL, "http://")
	body := func() io.Reader { return strings.NewReader(`{"snapshot":""}`) }
	auth := []string{"Authorization", "Bearer " + token}
	for _, h := range [][]string{
		{}, // no origin at all
		{"Origin", "http://evil.example"},
		{"Origin", "http://" + host, "Sec-Fetch-Site", "cross-site"},
	} {
		resp, text := f.do(t, "POST", "/api/rollback", body(), append(auth, h...)...)
		if resp.StatusCode != 403 || !strings.Contains(text, "refused") {
			t.Errorf("POST with %v: %d %s", h, resp.StatusCode, text)
		}
	}
	// From its own origin the request is heard (and its bad body named).
	resp, text := f.do(t, "POST", "/api/rollback", body(), append(auth, "Origin", "http://"+host)...)
	if resp.StatusCode != 400 || !strings.Contains(text, `{\"snapshot\": \"<id>\"}`) {
		t.Errorf("POST from its own origin: %d %s", resp.StatusCode, text)
	}
}

func TestAPI(t *testing.T) {
	f := newFixture(t)
	auth := []string{"Authorization", "Bearer " + token}
	shot := filepath.Join(f.shots, "fail.png")
	outside := filepath.Join(t.TempDir(), "secret.png")
	if os.WriteFile(shot, []byte("\x89PNG fake"), 0o644) != nil || os.WriteFile(outside, []byte("secret"), 0o644) != nil {
		t.Fatal("writing the evidence files")
	}
	now := time.Now()
	for range 3 {
		f.rec.Call(record.Entry{Start: now, Tool: "hash_text", Args: json.RawMessage(`{"text":"x"}`), Value: json.RawMessage(`{"hash":"y"}`)})
	}
	f.rec.Call(record.Entry{Start: now, Tool: "assert_text", Args: json.RawMessage(`{"selector":"h1","expected":"a"}`), Value: json.RawMessage(`{"passed":false,"screenshot":"` + shot + `"}`)})
	f.rec.Call(record.Entry{Start: now, Tool: "assert_text", Args: json.RawMessage(`{"selector":"h2","expected":"a"}`), Value: json.RawMessage(`{"passed":false,"screenshot":"` + outside + `"}`)})
	f.rec.Flush(context.Background())

	_, body := f.do(t, "GET", "/api/calls?limit=2", nil, auth...)
	var page struct {
		Calls []record.Call `json:"calls"`
		Next  int64         `json:"next"`
	}
	if json.Unmarshal([]byte(body), &page) != nil || len(page.Calls) != 2 || page.Next == 0 {
		t.Fatalf("a page of calls: %s", body)
	}
	for _, bad := range []string{"/api/calls?limit=x", "/api/calls?outcome=maybe", "/api/calls/0", "/api/runs?before=-1"} {
		if resp, text := f.do(t, "GET", bad, nil, auth...); resp.StatusCode != 400 || !strings.Contains(text, "want") {
			t.Errorf("GET %s: %d %s", bad, resp.StatusCode, text)
		}
	}
	for _, missing := range []string{"/api/calls/999", "/api/runs/999", "/api/runs/999/junit", "/api/evidence/999", "/api/nothing"} {
		if resp, _ := f.do(t, "GET", missing, nil, auth...); resp.StatusCode != 404 {
			t.Errorf("GET %s: %d", missing, resp.StatusCode)
		}
	}
	_, body = f.do(t, "GET", "/api/runs/1", nil, auth...)
	var run struct {
		Tests []record.Test `json:"tests"`
	}
	if json.Unmarshal([]byte(body), &run) != nil || len(run.Tests) != 2 || len(run.Tests[0].Evidence) != 1 {
		t.Fatalf("the run: %s", body)
	}
	// Evidence is served from where evidence is written, nowhere else.
	resp, img := f.do(t, "GET", "/api/evidence/"+itoa(run.Tests[0].Evidence[0].ID), nil, auth...)
	if resp.StatusCode != 200 || img != "\x89PNG fake" || resp.Header.Get("Content-Type") != "image/png" {
		t.Errorf("the screenshot: %d %q %s", resp.StatusCode, img, resp.Header.Get("Content-Type"))
	}
	if resp, text := f.do(t, "GET", "/api/evidence/"+itoa(run.Tests[1].Evidence[0].ID), nil, auth...); resp.StatusCode != 404 || strings.Contains(text, "secret\"") || !strings.Contains(text, "outside") {
		t.Errorf("evidence outside the directories: %d %s", resp.StatusCode, text)
	}
	resp, xml := f.do(t, "GET", "/api/runs/1/junit", nil, auth...)
	if resp.StatusCode != 200 || !strings.Contains(xml, "<testcase") || !strings.Contains(resp.Header.Get("Content-Disposition"), "barrhawk-run-1.xml") {
		t.Errorf("junit: %d %.200s", resp.StatusCode, xml)
	}
	resp, html := f.do(t, "GET", "/api/runs/1/report.html", nil, auth...)
	if resp.StatusCode != 200 || !strings.Contains(html, "data:image/png;base64,") || !strings.Contains(html, "outside") {
		t.Errorf("the HTML report inlines the screenshot it may read and notes the one it may not: %d", resp.StatusCode)
	}
	_, body = f.do(t, "GET", "/api/stats?minutes=5", nil, auth...)
	if !strings.Contains(body, `"calls":5`) {
		t.Errorf("stats: %s", body)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// A page following the events gets a call within a flush of its end, and
// the front's events as they are emitted.
func TestLiveEvents(t *testing.T) {
	f := newFixture(t)
	req, _ := http.NewRequest("GET", f.srv.URL+"/api/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	rd := bufio.NewReader(resp.Body)
	f.rec.Call(record.Entry{Start: time.Now(), Tool: "hash_text", Args: json.RawMessage(`{"text":"live"}`), Value: json.RawMessage(`{}`)})
	go f.rec.Run(ctx)
	var saw []string
	for len(saw) < 1 {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended: %v (saw %v)", err, saw)
		}
		if strings.HasPrefix(line, "event: ") {
			ev := strings.TrimSpace(strings.TrimPrefix(line, "event: "))
			data, _ := rd.ReadString('\n')
			if ev == "call" && strings.Contains(data, `live`) {
				saw = append(saw, ev)
			}
		}
	}
}
