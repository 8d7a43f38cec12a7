package browser

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/barrhawk/barrhawk/internal/browser/browsertest"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// popupServer serves an opener page (a button calling window.open, a
// target=_blank link), the popup (which fetches /api/data as it loads and
// shows the body with the colour scheme it sees), a page with a service
// worker answering /api/data itself, and the real /api/data.
func popupServer(t *testing.T) *httptest.Server {
	return serveFiles(t, map[string]string{
		"/": `<!doctype html><title>Opener</title>
<button id="open" onclick="window.open('/popup')">Open</button> <a id="link" href="/popup" target="_blank">Link</a>`,
		"/popup": `<!doctype html><title>Popup</title><p id="out">wait</p>
<script>window.atLoad = [navigator.language, Intl.DateTimeFormat().resolvedOptions().timeZone, innerWidth];
fetch('/api/data').then((r) => r.text()).then((t) => {
  document.getElementById('out').textContent = t + ' ' + (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');
});</script>`,
		"/sw": `<!doctype html><title>Worker</title><p>worker page</p>`,
		"/sw.js": `self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(clients.claim()));
self.addEventListener('fetch', (e) => { if (new URL(e.request.url).pathname === '/api/data') e.respondWith(new Response('from-sw')); });`,
		"/api/data": "real",
	})
}

// outJS waits until the popup has shown what its fetch answered.
const outJS = `{"expression":"new Promise((r) => { const f = () => { const t = document.getElementById('out').textContent; t !== 'wait' ? r(t) : setTimeout(f, 20); }; f(); })"}`

// A page the page opens itself gets the session's routes and media
// emulation before its first request, and becomes a tab of the session.
func TestPopupsGetTheSessionsRoutesAndEmulation(t *testing.T) {
	srv := popupServer(t)
	browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)
	s.MustRun("browser_route", `{"pattern":"**/api/data","body":"mocked"}`)
	s.MustRun("browser_emulate_media", `{"colorScheme":"dark"}`)

	for i, sel := range []string{"#open", "#link"} {
		s.MustRun("browser_tabs", `{"action":"select","index":0}`)
		got := obj(t, s, "browser_click", `{"selector":"`+sel+`"}`)
		popups, _ := got["popups"].([]any)
		if len(popups) != 1 {
			t.Fatalf("click %s: want one popup in the answer, got %v", sel, got)
		}
		pop := popups[0].(map[string]any)
		if pop["tab"] != float64(i+1) || pop["var"] != fmt.Sprintf("popup%d", i+1) {
			t.Errorf("click %s: popup %v, want tab %d named popup%d", sel, pop, i+1, i+1)
		}
		tabs := obj(t, s, "browser_tabs", fmt.Sprintf(`{"action":"select","index":%d}`, i+1))["tabs"].([]any)
		if len(tabs) != i+2 {
			t.Fatalf("click %s: %d tabs, want %d: %v", sel, len(tabs), i+2, tabs)
		}
		if got := evalValue(t, s, outJS); got != "mocked dark" {
			t.Errorf("popup of %s: its fetch and colour scheme gave %q, want \"mocked dark\" (the route and the emulation of the session)", sel, got)
		}
	}
	// The popup is a tab like any other: the session's changes reach it.
	s.MustRun("browser_emulate_media", `{"colorScheme":"light"}`)
	if got := evalValue(t, s, `{"expression":"matchMedia('(prefers-color-scheme: dark)').matches"}`); got != false {
		t.Errorf("popup after emulate_media light: dark is %v", got)
	}
	// A popup that closes itself leaves the tabs; the one before it is
	// active again.
	evalValue(t, s, `{"expression":"setTimeout(() => window.close(), 10); true"}`)
	for {
		tabs := obj(t, s, "browser_tabs", `{"action":"list"}`)["tabs"].([]any)
		if len(tabs) == 3 {
			continue // not gone yet
		}
		if len(tabs) != 2 || tabs[1].(map[string]any)["active"] != true || tabs[1].(map[string]any)["var"] != "popup1" {
			t.Errorf("after the popup closed itself: %v, want page and popup1, popup1 active", tabs)
		}
		break
	}
}

// A popup of a session emulating a locale, a time zone, a viewport and a
// position has them from its first script, a target=_blank link's popup
// (which has no renderer until it navigates) as well.
func TestPopupsOfAnEmulatingSession(t *testing.T) {
	srv := popupServer(t)
	browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())
	s.MustRun("browser_session_new", `{"id":"tokyo","url":"`+srv.URL+`/","locale":"de-DE","timezoneId":"Asia/Tokyo","viewport":{"width":390,"height":700},"geolocation":{"latitude":35.68,"longitude":139.69},"permissions":["geolocation"]}`)
	s.MustRun("browser_click", `{"selector":"#link"}`)
	s.MustRun("browser_tabs", `{"action":"select","index":1}`)
	// The viewport holds from the popup's first script. A target=_blank
	// popup has no renderer while it is paused, and the locale and time
	// zone, which its renderer applies, can come a moment after its first
	// script on a loaded machine (docs/browser.md): they are checked as
	// the popup has them once loaded.
	if got := tooltest.Marshal(evalValue(t, s, `{"expression":"window.atLoad[2]"}`)); got != `390` {
		t.Errorf("the popup's first script saw a %s px viewport, want 390", got)
	}
	now := `{"expression":"[navigator.language, Intl.DateTimeFormat().resolvedOptions().timeZone, innerWidth]"}`
	if got := tooltest.Marshal(evalValue(t, s, now)); got != `["de-DE","Asia/Tokyo",390]` {
		t.Errorf("the popup has %s, want [\"de-DE\",\"Asia/Tokyo\",390]", got)
	}
	pos := evalValue(t, s, `{"expression":"new Promise((r) => navigator.geolocation.getCurrentPosition((p) => r([p.coords.latitude, p.coords.longitude]), (e) => r('error: ' + e.message)))"}`)
	if got := tooltest.Marshal(pos); got != `[35.68,139.69]` {
		t.Errorf("the popup's position: %s", got)
	}
}

// While routes are active the page's requests go around its service
// worker, so a route answers them as it would without one.
func TestRoutesBypassTheServiceWorker(t *testing.T) {
	srv := popupServer(t)
	browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/sw"}`)
	controlled := evalValue(t, s, `{"expression":"navigator.serviceWorker.register('/sw.js').then(() => navigator.serviceWorker.ready).then(() => navigator.serviceWorker.controller ? true : new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', () => r(true))))"}`)
	if controlled != true {
		t.Fatalf("the service worker does not control the page: %v", controlled)
	}
	fetchData := `{"expression":"fetch('/api/data').then((r) => r.text())"}`
	if got := evalValue(t, s, fetchData); got != "from-sw" {
		t.Fatalf("without routes the worker answers: got %q, want from-sw", got)
	}
	s.MustRun("browser_route", `{"pattern":"**/api/data","body":"mocked"}`)
	if got := evalValue(t, s, fetchData); got != "mocked" {
		t.Errorf("with a route: got %q, want mocked (the worker's answer escaped the route)", got)
	}
	s.MustRun("browser_unroute", `{}`)
	if got := evalValue(t, s, fetchData); got != "from-sw" {
		t.Errorf("after unroute the worker answers again: got %q", got)
	}
}

func TestRetarget(t *testing.T) {
	for code, want := range map[string]string{
		"await page.goto('https://h/page.html');":                 "await popup1.goto('https://h/page.html');",
		"await expect(page.getByText(\"page.x\")).toBeVisible();": "await expect(popup1.getByText(\"page.x\")).toBeVisible();",
		"const p1 = await p1Promise; mypage.x; a.page.b":          "const p1 = await p1Promise; mypage.x; a.page.b",
		"await page.evaluate(() => 'it\\'s page.x');":             "await popup1.evaluate(() => 'it\\'s page.x');",
	} {
		if got := retarget(code, "popup1"); got != want {
			t.Errorf("retarget(%q) = %q, want %q", code, got, want)
		}
	}
}
