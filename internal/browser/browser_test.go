package browser

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"time"

	"github.com/chromedp/chromedp"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// TestMain makes this test binary able to become the browser too (Launch
// starts os.Executable() with the browser's path in the environment).
func TestMain(m *testing.M) {
	ExecIfBrowserStart()
	os.Exit(m.Run())
}

const loginPage = `<!doctype html><html lang="en"><head><title>Login</title></head><body>
<main><h1>Sign in</h1>
<form id="f" action="/welcome" method="get">
<label for="email">Email</label><input id="email" name="email" type="email">
<label>Password <input id="pw" name="pw" type="password"></label>
<button type="submit" data-testid="login-button">Sign in</button>
<button type="button" disabled id="off">Disabled</button>
</form>
<button id="hello" onclick="console.log('hello', 42); document.getElementById('out').textContent = 'clicked'">Say hello</button>
<button id="ask" onclick="document.getElementById('out').textContent = String(confirm('Sure?'))">Ask</button>
<div id="late"></div><p id="out"></p>
<script>setTimeout(() => { document.getElementById('late').innerHTML = '<a href="/welcome">Late link</a>'; }, 300);</script>
</main></body></html>`

func server(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/":
			io.WriteString(w, loginPage)
		case "/welcome":
			fmt.Fprintf(w, `<!doctype html><title>Welcome</title><h1>Welcome, %s</h1>`, r.URL.Query().Get("email"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestEngine(t *testing.T) {
	ctx, p := launched(t, 60*time.Second)
	srv := server(t)
	if status, err := p.Navigate(ctx, srv.URL+"/"); err != nil || status != 200 {
		t.Fatalf("navigate: %d %v", status, err)
	}
	if _, err := p.Type(ctx, "#email", "ada@example.com", true, false, FindOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Type(ctx, "role=textbox[name=\"Password\"]", "pw", false, false, FindOptions{}); err != nil {
		t.Fatal(err)
	}
	// The late link appears after 300 ms: the wait finds it.
	if _, err := p.Find(ctx, "text=Late link", FindOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Click(ctx, "#hello", ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if s, err := p.Text(ctx, "#out", FindOptions{}); err != nil || s != "clicked" {
		t.Errorf("text after click: %q %v", s, err)
	}
	// Healing: a wrong id finds the button by its data-testid.
	pr, err := p.Find(ctx, "#login-button", FindOptions{Heal: true, Timeout: time.Second})
	if err != nil || pr.Matched != `[data-testid="login-button"]` {
		t.Errorf("heal: %+v %v", pr, err)
	}
	// Not found: the candidates are named.
	_, err = p.Click(ctx, "#login-btn", ClickOptions{FindOptions: FindOptions{Timeout: 300 * time.Millisecond}})
	if err == nil || !strings.Contains(err.Error(), "ELEMENT_NOT_FOUND") || !strings.Contains(err.Error(), "login-button") {
		t.Errorf("not found: %v", err)
	}
	_, err = p.Click(ctx, "#off", ClickOptions{FindOptions: FindOptions{Timeout: 300 * time.Millisecond}})
	if err == nil || !strings.Contains(err.Error(), "disabled") {
		t.Errorf("disabled: %v", err)
	}
	snap, err := p.Snapshot(ctx, "", false, 100_000)
	if err != nil || !strings.Contains(snap.Text, `button "Sign in"`) || !strings.Contains(snap.Text, `heading "Sign in" [level=1]`) {
		t.Fatalf("snapshot: %+v %v", snap, err)
	}
	ref := ""
	for _, line := range strings.Split(snap.Text, "\n") {
		if strings.Contains(line, `button "Say hello"`) {
			ref = line[strings.Index(line, "[ref=")+5 : len(line)-1]
		}
	}
	if _, err := p.Click(ctx, ref, ClickOptions{}); err != nil {
		t.Errorf("click by ref %q: %v", ref, err)
	}
	png1, err := p.Screenshot(ctx, false, "", FindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(png1))
	if err != nil || img.Bounds().Dx() != DefaultWidth || img.Bounds().Dy() != DefaultHeight {
		t.Errorf("screenshot: %v %v", img.Bounds(), err)
	}
	// A dialog is dismissed by default, and recorded.
	if _, err := p.Click(ctx, "#ask", ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if s, _ := p.Text(ctx, "#out", FindOptions{}); s != "false" {
		t.Errorf("confirm dismissed: %q", s)
	}
	if c := p.Console(); len(c) == 0 || !strings.Contains(c[0].Text, "hello 42") {
		t.Errorf("console: %+v", c)
	}
	if pr, err := p.Find(ctx, "role=button[name=\"Sign in\"]", FindOptions{}); err != nil || pr.Element != `button "Sign in"` {
		t.Fatalf("role=button[name=\"Sign in\"]: %+v %v", pr, err)
	}
	// The heading says "Sign in" too; the click goes to the button.
	if _, err := p.Click(ctx, "text=Sign in", ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if u, _ := p.URL(ctx); strings.Contains(u, "/welcome") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if s, err := p.Text(ctx, "h1", FindOptions{}); err != nil || s != "Welcome, ada@example.com" {
		t.Errorf("after login: %q %v", s, err)
	}
	if reqs := p.Requests(); len(reqs) < 2 {
		t.Errorf("requests: %+v", reqs)
	}
}

// An idle browser closes itself; the next use starts another.
func TestIdleBrowserCloses(t *testing.T) {
	Configure(true, "", 300*time.Millisecond)
	defer Configure(true, "", 0)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res := tool.NewResources()
	defer res.CloseAll()
	b, err := Get(ctx, res)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !b.isClosed() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !b.isClosed() {
		t.Fatal("the idle browser is still open")
	}
	b2, err := Get(ctx, res)
	if err != nil || b2 == b || b2.isClosed() {
		t.Fatalf("after idling: %v %v", b2 == b, err)
	}
	if _, err := b2.Active(); err != nil {
		t.Fatal(err)
	}
}

// Without a browser, launching says how to get one.
func TestLaunchWithoutABrowser(t *testing.T) {
	t.Setenv(ChromiumEnv, "/nonexistent/chromium")
	_, err := Launch(context.Background(), Options{Headless: true})
	if err == nil || !strings.Contains(err.Error(), ChromiumEnv+"=/nonexistent/chromium names no file") || !strings.Contains(err.Error(), "apt-get install chromium") {
		t.Fatalf("launch without a browser: %v", err)
	}
	t.Setenv(ChromiumEnv, t.TempDir())
	if _, err = Launch(context.Background(), Options{Headless: true}); err == nil || !strings.Contains(err.Error(), "not an executable file") {
		t.Fatalf("launch with a directory for the browser: %v", err)
	}
	t.Setenv(ChromiumEnv, "")
	t.Setenv("PATH", t.TempDir())
	_, err = Launch(context.Background(), Options{Headless: true})
	if err == nil || !strings.Contains(err.Error(), "apt-get install chromium") || !strings.Contains(err.Error(), ChromiumEnv) {
		t.Fatalf("launch with no browser on PATH: %v", err)
	}
}

// Idle tabs are closed, except each session's first tab and its active one.
func TestIdleTabsEvicted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := Launch(ctx, Options{Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	idle, _, err := b.NewTab(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.NewTab(ctx); err != nil { // the active one
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if n := b.evictIdleTabs(20 * time.Millisecond); n != 1 {
		t.Fatalf("evicted %d tabs, want 1", n)
	}
	tabs := b.ListTabs(ctx)
	if len(tabs) != 2 || !tabs[1].Active || b.PageCount() != 2 || b.Evicted() != 1 {
		t.Errorf("after eviction: %+v", tabs)
	}
	if idle.ctx.Err() == nil {
		t.Error("the evicted tab's target is still open")
	}
	if _, err := idle.URL(ctx); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("an action on an evicted tab: %v", err)
	}
	// A tab in use is kept.
	used, _, _ := b.NewTab(ctx)
	if err := b.SelectTab(0); err != nil {
		t.Fatal(err)
	}
	// Wide margins: on a loaded machine the use itself may take a while.
	time.Sleep(600 * time.Millisecond)
	if _, err := used.URL(ctx); err != nil {
		t.Fatal(err)
	}
	if n := b.evictIdleTabs(400 * time.Millisecond); n != 1 { // tab 1, not the one just used
		t.Errorf("evicted %d, want 1 (the idle one)", n)
	}
	if got := b.ListTabs(ctx); len(got) != 2 {
		t.Errorf("tabs: %+v", got)
	}
}

// TestChromedpInternals: popup.go reaches two unexported fields of the
// pinned chromedp (Target.browser, Context.targetMu); an upgrade that
// renames or retypes them fails here, before any popup is left paused.
func TestChromedpInternals(t *testing.T) {
	tt := reflect.TypeFor[chromedp.Target]()
	if f, ok := tt.FieldByName("browser"); !ok || f.Type.Kind() != reflect.Pointer {
		t.Errorf("chromedp.Target has no pointer field browser (got %v): popup.go's release cannot route a paused page's command", f.Type)
	}
	ct := reflect.TypeFor[chromedp.Context]()
	if f, ok := ct.FieldByName("targetMu"); !ok || f.Type != reflect.TypeFor[sync.Mutex]() {
		t.Errorf("chromedp.Context has no sync.Mutex targetMu (got %v): popup.go's targetOf cannot read the Target safely", f.Type)
	}
}
