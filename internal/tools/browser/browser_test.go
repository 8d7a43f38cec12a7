package browser

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/browser/browsertest"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestMain(m *testing.M) {
	os.Exit(browsertest.Main(m))
}

func TestFamily(t *testing.T) {
	var names []string
	for _, tl := range Tools() {
		names = append(names, tl.Name)
	}
	if len(names) != 71 {
		t.Errorf("%d tools, want 71", len(names))
	}
	tooltest.CheckFamilyIn(t, Tools(), tool.CategoryBrowser, func(n string) string {
		if strings.HasPrefix(n, "browser_session_") {
			return SessionGroup
		}
		return Group
	}, names...)
}

const app = `<!doctype html><html lang="en"><head><title>Shop</title></head><body><main>
<h1>Sign in</h1>
<form action="/home" method="get">
<label for="user">User</label><input id="user" name="user">
<label for="pw">Password</label><input id="pw" name="pw" type="password">
<select id="plan" name="plan"><option value="free">Free</option><option value="pro">Pro</option></select>
<label><input type="checkbox" id="terms" name="terms"> I agree</label>
<button type="submit" data-testid="submit-login">Sign in</button>
</form>
<button id="alert" onclick="alert('Hi there')">Alert</button>
<button id="prompt" onclick="document.getElementById('said').textContent = prompt('Name?')">Prompt</button>
<p id="said"></p>
<input type="file" id="up" onchange="document.getElementById('said').textContent = this.files[0].name + ':' + this.files[0].size">
<script>console.warn('loaded', 1); fetch('/api/ping').then(() => {});</script>
</main></body></html>`

func appServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, app)
		case "/home":
			http.SetCookie(w, &http.Cookie{Name: "who", Value: r.URL.Query().Get("user")})
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<!doctype html><title>Home</title><h1 id="hi">Hello %s (%s, terms %s)</h1>`, r.URL.Query().Get("user"), r.URL.Query().Get("plan"), r.URL.Query().Get("terms"))
		case "/whoami":
			c, err := r.Cookie("who")
			w.Header().Set("Content-Type", "text/html")
			if err != nil {
				io.WriteString(w, `<p id="who">nobody</p>`)
				return
			}
			fmt.Fprintf(w, `<p id="who">%s</p>`, c.Value)
		case "/api/ping":
			io.WriteString(w, "pong")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func obj(t *testing.T, s *tooltest.Session, name, args string) map[string]any {
	t.Helper()
	return tooltest.Object(t, s.MustRun(name, args))
}

func TestBrowserTools(t *testing.T) {
	srv := appServer(t)
	out := browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())
	got := obj(t, s, "browser_launch", `{"url":"`+srv.URL+`/"}`)
	if got["launched"] != true || got["status"] != float64(200) {
		t.Fatalf("launch: %v", got)
	}

	// A login flow by tools: type, select, check, click; then the page says who.
	// Fields by their labels too: a label stands for its field.
	s.MustRun("browser_fill_form", `{"fields":[{"selector":"text=User","value":"ada"},{"selector":"#pw","value":"secret"},{"selector":"#plan","value":"pro"},{"selector":"text=I agree","value":true}]}`)
	if e := s.MustFail("browser_fill_form", `{"fields":[{"selector":"#nobody","value":"x"}],"timeout":200}`, tool.CodeElementNotFound); !strings.HasPrefix(e.Message, "field 1: selector \"#nobody\"") {
		t.Errorf("fill_form naming the field: %s", e.Message)
	}
	got = obj(t, s, "browser_click", `{"selector":"[data-testid=submit]","selfHeal":true,"timeout":1000}`)
	if got["healed"] != true || !strings.Contains(fmt.Sprint(got["matched"]), "submit") || got["selector"] != "[data-testid=submit]" {
		t.Errorf("selfHeal: the result should say which selector matched: %v", got)
	}
	if got["element"] == nil || !strings.HasPrefix(fmt.Sprint(got["element"]), "button ") {
		t.Errorf("the result should name the element clicked: %v", got)
	}
	s.MustRun("browser_wait", `{"selector":"#hi"}`)
	if got = obj(t, s, "browser_get_text", `{"selector":"#hi"}`); got["text"] != "Hello ada (pro, terms on)" {
		t.Errorf("after login: %v", got)
	}
	if got = obj(t, s, "browser_navigate", `{"url":"`+srv.URL+`/whoami"}`); got["title"] != "" || got["status"] != float64(200) {
		t.Logf("navigate: %v", got)
	}
	if got = obj(t, s, "browser_get_text", `{"selector":"#who"}`); got["text"] != "ada" {
		t.Errorf("cookie in the default session: %v", got)
	}

	// An isolated session has no cookie; switching back finds it again.
	s.MustRun("browser_session_new", `{"id":"bob","url":"`+srv.URL+`/whoami"}`)
	if got = obj(t, s, "browser_get_text", `{"selector":"#who"}`); got["text"] != "nobody" {
		t.Errorf("isolated session sees %v", got)
	}
	s.MustRun("browser_session_switch", `{"id":"default"}`)
	list := tooltest.Marshal(s.MustRun("browser_session_list", `{}`))
	if !strings.Contains(list, `"active":false,"name":"bob"`) || !strings.Contains(list, `"active":true,"name":"default"`) {
		t.Errorf("sessions: %s", list)
	}
	s.MustFail("browser_session_switch", `{"id":"carol"}`, tool.CodeNotFound)

	// Back, forward, reload.
	if got = obj(t, s, "browser_navigate_back", `{}`); !strings.Contains(fmt.Sprint(got["url"]), "/home") {
		t.Errorf("back: %v", got)
	}
	s.MustRun("browser_navigate_forward", `{}`)
	s.MustRun("browser_reload", `{}`)

	// Screenshot: an image part of the viewport's size, and its metadata.
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)
	shot := tooltest.Marshal(s.MustRun("browser_screenshot", `{"savePath":"shots/a.png"}`))
	var content tool.Content
	if err := jsonUnmarshal(shot, &content); err != nil || len(content.Parts) != 2 || content.Parts[0].Type != "image" {
		t.Fatalf("screenshot content: %.300s %v", shot, err)
	}
	img, err := png.Decode(bytes.NewReader(content.Parts[0].Data))
	if err != nil || img.Bounds().Dx() != browser.DefaultWidth || img.Bounds().Dy() != browser.DefaultHeight {
		t.Errorf("screenshot: %v %v", img.Bounds(), err)
	}
	if !strings.Contains(content.Parts[1].Text, `"width":1280`) || !strings.Contains(content.Parts[1].Text, filepath.Join(out, "shots/a.png")) {
		t.Errorf("screenshot metadata: %s", content.Parts[1].Text)
	}
	if data, err := os.ReadFile(filepath.Join(out, "shots/a.png")); err != nil || !bytes.Equal(data, content.Parts[0].Data) {
		t.Errorf("savePath: %v", err)
	}
	s.MustFail("browser_screenshot", `{"savePath":"../escape.png"}`, tool.CodeForbidden)

	// Console and network.
	if got = obj(t, s, "browser_console_messages", `{"type":"warning"}`); !strings.Contains(tooltest.Marshal(got), `"loaded 1"`) {
		t.Errorf("console: %v", got)
	}
	if got = obj(t, s, "browser_network_requests", `{"filter":"/api/ping"}`); got["count"] == float64(0) || !strings.Contains(tooltest.Marshal(got), `"status":200`) {
		t.Errorf("network: %v", got)
	}

	// Dialogs: dismissed and recorded by default; a prompt answered.
	s.MustRun("browser_click", `{"selector":"#alert"}`)
	// Answering after the fact finds nothing open: the note says what
	// became of the dialog and how to accept the next one.
	got = obj(t, s, "browser_handle_dialog", `{"action":"accept","promptText":"Zed"}`)
	if note := fmt.Sprint(got["note"]); got["answered"] != nil || !strings.Contains(note, `the last, alert "Hi there", was dismissed`) || !strings.Contains(note, "autoRespond: true before the action") {
		t.Errorf("handle_dialog with no dialog open: %v", got)
	}
	got = obj(t, s, "browser_handle_dialog", `{"action":"accept","promptText":"Zed","autoRespond":true}`)
	if note := fmt.Sprint(got["note"]); !strings.Contains(note, "from now on dialogs are accepted") {
		t.Errorf("handle_dialog setting the rule: %v", got)
	}
	s.MustRun("browser_click", `{"selector":"#prompt"}`)
	if got = obj(t, s, "browser_get_text", `{"selector":"#said"}`); got["text"] != "Zed" {
		t.Errorf("prompt: %v", got)
	}
	if got = obj(t, s, "browser_handle_dialog", `{"action":"dismiss"}`); !strings.Contains(tooltest.Marshal(got), `"message":"Hi there"`) {
		t.Errorf("dialogs: %v", got)
	}

	// Upload.
	f := filepath.Join(t.TempDir(), "report.txt")
	os.WriteFile(f, []byte("12345"), 0o644)
	s.MustRun("browser_file_upload", `{"selector":"#up","files":["`+f+`"]}`)
	if got = obj(t, s, "browser_get_text", `{"selector":"#said"}`); got["text"] != "report.txt:5" {
		t.Errorf("upload: %v", got)
	}
	s.MustFail("browser_file_upload", `{"selector":"#user","files":["`+f+`"]}`, tool.CodeInvalidArgs)

	// Snapshot refs are selectors.
	snap := fmt.Sprint(s.MustRun("browser_snapshot", `{}`))
	i := strings.Index(snap, `button "Alert" [ref=`)
	if i < 0 {
		t.Fatalf("snapshot: %s", snap)
	}
	ref := snap[i+len(`button "Alert" [ref=`):]
	ref = ref[:strings.Index(ref, "]")]
	s.MustRun("browser_click", `{"selector":"`+ref+`"}`)

	// Not found names the closest elements.
	e := s.MustFail("browser_click", `{"selector":"#pasword","timeout":200}`, tool.CodeElementNotFound)
	if !strings.Contains(e.Message, "#pw") && !strings.Contains(e.Message, "Password") {
		t.Errorf("not found: %s", e.Message)
	}

	// Elements, evaluate, keys, scroll, resize, hover.
	if got = obj(t, s, "browser_get_elements", `{"selector":"button"}`); got["total"] != float64(3) {
		t.Errorf("elements: %v", got)
	}
	if got = obj(t, s, "browser_evaluate", `{"expression":"(a) => a.x * 2","arg":{"x":21}}`); got["value"] != float64(42) {
		t.Errorf("evaluate: %v", got)
	}
	s.MustFail("browser_evaluate", `{"expression":"throw new Error('boom')"}`, tool.CodeToolError)
	s.MustRun("browser_type", `{"selector":"#user","text":"x"}`)
	s.MustRun("browser_press_key", `{"key":"Backspace"}`)
	s.MustRun("browser_press_key", `{"key":"Control+a"}`)
	s.MustFail("browser_press_key", `{"key":"Hyper+x"}`, tool.CodeInvalidArgs)
	s.MustRun("browser_resize", `{"width":800,"height":600}`)
	if got = obj(t, s, "browser_evaluate", `{"expression":"innerWidth"}`); got["value"] != float64(800) {
		t.Errorf("resize: %v", got)
	}
	s.MustRun("browser_hover", `{"selector":"#alert"}`)
	s.MustRun("browser_scroll", `{"direction":"down","amount":100}`)
	s.MustRun("browser_select_option", `{"selector":"#plan","label":"Free"}`)
	s.MustFail("browser_select_option", `{"selector":"#plan","value":"gold"}`, tool.CodeInvalidArgs)
	s.MustRun("browser_mouse_move", `{"x":10,"y":10,"steps":3}`)
	s.MustRun("browser_mouse_click", `{"x":10,"y":10}`)
	s.MustRun("browser_mouse_wheel", `{"deltaY":50}`)
	s.MustRun("browser_mouse_drag", `{"fromX":10,"fromY":10,"toX":50,"toY":50}`)

	// PDF and tracing.
	got = obj(t, s, "browser_pdf_save", `{"path":"page.pdf"}`)
	if data, _ := os.ReadFile(filepath.Join(out, "page.pdf")); !bytes.HasPrefix(data, []byte("%PDF")) {
		t.Errorf("pdf: %v", got)
	}
	s.MustRun("browser_start_tracing", `{}`)
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)
	got = obj(t, s, "browser_stop_tracing", `{"path":"trace.json"}`)
	if data, _ := os.ReadFile(filepath.Join(out, "trace.json")); got["events"].(float64) < 10 || !bytes.HasPrefix(data, []byte(`{"traceEvents":[{`)) {
		t.Errorf("trace: %v", got)
	}

	// Tabs.
	s.MustRun("browser_tabs", `{"action":"new","url":"`+srv.URL+`/whoami"}`)
	got = obj(t, s, "browser_tabs", `{"action":"list"}`)
	if !strings.Contains(tooltest.Marshal(got), `"active":true,"index":1,"title":"","url":"`+srv.URL+`/whoami"`) {
		t.Errorf("tabs: %v", got)
	}
	s.MustRun("browser_tabs", `{"action":"close","index":1}`)
	s.MustFail("browser_tabs", `{"action":"select","index":5}`, tool.CodeInvalidArgs)

	if got = obj(t, s, "browser_close", `{}`); got["closed"] != true {
		t.Errorf("close: %v", got)
	}
	// The next call starts a new browser.
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/whoami"}`)
	_ = base64.StdEncoding
}

func jsonUnmarshal(s string, v any) error { return jsonUnmarshalBytes([]byte(s), v) }

// browser_session_list starts no browser to say there is none.
func TestSessionListStartsNoBrowser(t *testing.T) {
	t.Parallel()
	s := tooltest.NewSession(t, Tools())
	out := tooltest.Marshal(s.MustRun("browser_session_list", `{}`))
	if !strings.Contains(out, `"sessions":[]`) || !strings.Contains(out, "no browser runs") {
		t.Errorf("session list with no browser: %s", out)
	}
	if _, ok := browser.Lookup(s.Res); ok {
		t.Error("listing the sessions started a browser")
	}
}
