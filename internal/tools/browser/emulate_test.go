package browser

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/browser/browsertest"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// mediaPage colours its text by the colour scheme and hides #screen-only
// in print; a meta viewport makes a phone's layout width its own.
const mediaPage = `<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>Media</title>
<style>body { color: rgb(0, 0, 1); } @media (prefers-color-scheme: dark) { body { color: rgb(0, 0, 2); } }
@media print { #screen-only { display: none; } }</style></head>
<body><p id="screen-only">on screen</p></body></html>`

func mediaServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, mediaPage)
		case "/api/data":
			io.WriteString(w, "real")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

const (
	colorJS   = `{"expression":"getComputedStyle(document.body).color"}`
	displayJS = `{"expression":"getComputedStyle(document.getElementById('screen-only')).display"}`
)

func TestEmulateMedia(t *testing.T) {
	srv := mediaServer(t)
	browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)
	if got := evalValue(t, s, colorJS); got != "rgb(0, 0, 1)" {
		t.Fatalf("light by default: %v", got)
	}
	if got := evalValue(t, s, displayJS); got != "block" {
		t.Fatalf("screen by default: %v", got)
	}

	got := obj(t, s, "browser_emulate_media", `{"colorScheme":"dark","media":"print"}`)
	if got["code"] != "await page.emulateMedia({ colorScheme: 'dark', media: 'print' });" {
		t.Errorf("emulate_media code: %v", got["code"])
	}
	delete(got, "code")
	if tooltest.Marshal(got) != `{"emulated":{"colorScheme":"dark","contrast":null,"forcedColors":null,"media":"print","reducedMotion":null}}` {
		t.Errorf("emulate_media answer: %s", tooltest.Marshal(got))
	}
	if got := evalValue(t, s, colorJS); got != "rgb(0, 0, 2)" {
		t.Errorf("dark: %v", got)
	}
	if got := evalValue(t, s, displayJS); got != "none" {
		t.Errorf("print: %v", got)
	}
	// A tab opened later has the session's media.
	s.MustRun("browser_tabs", `{"action":"new","url":"`+srv.URL+`/"}`)
	if got := evalValue(t, s, colorJS); got != "rgb(0, 0, 2)" {
		t.Errorf("dark in a new tab: %v", got)
	}
	// null clears one; an omitted one stays.
	s.MustRun("browser_emulate_media", `{"colorScheme":null,"reducedMotion":"reduce"}`)
	if got := evalValue(t, s, colorJS); got != "rgb(0, 0, 1)" {
		t.Errorf("colorScheme null: %v", got)
	}
	if got := evalValue(t, s, displayJS); got != "none" {
		t.Errorf("media omitted stays print: %v", got)
	}
	if got := evalValue(t, s, `{"expression":"matchMedia('(prefers-reduced-motion: reduce)').matches"}`); got != true {
		t.Errorf("reduced motion: %v", got)
	}
	s.MustRun("browser_tabs", `{"action":"select","index":0}`)
	if got := evalValue(t, s, colorJS); got != "rgb(0, 0, 1)" {
		t.Errorf("the first tab follows the session: %v", got)
	}
	s.MustRun("browser_emulate_media", `{"media":null}`)
	if got := evalValue(t, s, displayJS); got != "block" {
		t.Errorf("media null: %v", got)
	}

	s.MustFailWith("browser_emulate_media", `{"colorScheme":"purple"}`, tool.CodeInvalidArgs, "colorScheme")
	s.MustFailWith("browser_emulate_media", `{}`, tool.CodeInvalidArgs, "at least one")
}

func TestSessionEmulation(t *testing.T) {
	srv := mediaServer(t)
	browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())

	// A phone: its width, touch and user agent, in later tabs too.
	s.MustRun("browser_session_new", `{"id":"phone","device":"iPhone 13","url":"`+srv.URL+`/"}`)
	phone := `{"expression":"[innerWidth, 'ontouchstart' in window, navigator.maxTouchPoints > 0, navigator.userAgent, devicePixelRatio]"}`
	check := func(where string) {
		t.Helper()
		v := evalValue(t, s, phone).([]any)
		if v[0] != float64(390) || v[1] != true || v[2] != true || !strings.Contains(fmt.Sprint(v[3]), "iPhone") || v[4] != float64(3) {
			t.Errorf("iPhone 13 %s: innerWidth, ontouchstart, maxTouchPoints > 0, userAgent, devicePixelRatio = %v", where, v)
		}
	}
	check("in the session's first tab")
	s.MustRun("browser_tabs", `{"action":"new","url":"`+srv.URL+`/"}`)
	check("in a tab opened later")
	// Resizing keeps the device's touch and scale.
	s.MustRun("browser_resize", `{"width":400,"height":700}`)
	if v := evalValue(t, s, phone).([]any); v[0] != float64(400) || v[2] != true || v[4] != float64(3) {
		t.Errorf("resized phone: %v", v)
	}

	// Locale and time zone change Intl and Date.
	s.MustRun("browser_session_new", `{"id":"tokyo","locale":"de-DE","timezoneId":"Asia/Tokyo","viewport":{"width":600,"height":500},"url":"`+srv.URL+`/"}`)
	intl := `{"expression":"[new Intl.NumberFormat().format(1234.5), Intl.DateTimeFormat().resolvedOptions().timeZone, new Date(0).getHours(), navigator.language, innerWidth]"}`
	if got := tooltest.Marshal(evalValue(t, s, intl)); got != `["1.234,5","Asia/Tokyo",9,"de-DE",600]` {
		t.Errorf("locale and time zone: %s", got)
	}

	// Geolocation with its permission answers navigator.geolocation.
	s.MustRun("browser_session_new", `{"id":"berlin","geolocation":{"latitude":52.52,"longitude":13.405,"accuracy":10},"permissions":["geolocation"],"url":"`+srv.URL+`/"}`)
	geo := `{"expression":"new Promise((r) => navigator.geolocation.getCurrentPosition((p) => r([p.coords.latitude, p.coords.longitude, p.coords.accuracy]), (e) => r('error ' + e.code + ': ' + e.message)))"}`
	if got := tooltest.Marshal(evalValue(t, s, geo)); got != `[52.52,13.405,10]` {
		t.Errorf("geolocation: %s", got)
	}

	// Colour scheme and offline from the start.
	s.MustRun("browser_session_new", `{"id":"dark","colorScheme":"dark","url":"`+srv.URL+`/"}`)
	if got := evalValue(t, s, colorJS); got != "rgb(0, 0, 2)" {
		t.Errorf("session colorScheme dark: %v", got)
	}
	s.MustRun("browser_session_new", `{"id":"off","offline":true}`)
	if got := evalValue(t, s, `{"expression":"navigator.onLine"}`); got != false {
		t.Errorf("session offline: navigator.onLine %v", got)
	}
	// Other sessions keep their own state: the phone is still online and light.
	s.MustRun("browser_session_switch", `{"id":"phone"}`)
	if got := evalValue(t, s, fetchJS("/api/data")); !strings.HasPrefix(fmt.Sprint(got), "200:") {
		t.Errorf("another session's offline leaked: %v", got)
	}

	// Bad input names what was wrong.
	e := s.MustFailWith("browser_session_new", `{"id":"x","device":"iPhone 99"}`, tool.CodeInvalidArgs, "device", "iPhone 99", `"iPhone`)
	if !strings.Contains(e.Message, "closest") {
		t.Errorf("unknown device: %s", e.Message)
	}
	s.MustFailWith("browser_session_new", `{"id":"x","permissions":["geolocaton"]}`, tool.CodeInvalidArgs, "permissions", "geolocation")
	s.MustFailWith("browser_session_new", `{"id":"x","timezoneId":"Mars/Olympus"}`, tool.CodeInvalidArgs, "timezoneId", "Mars/Olympus")
	s.MustFail("browser_session_new", `{"id":"x","colorScheme":"purple"}`, tool.CodeInvalidArgs)
	s.MustFail("browser_session_new", `{"id":"x","geolocation":{"latitude":91,"longitude":0}}`, tool.CodeInvalidArgs)
}
