package browser

import (
	"fmt"
	"io"
	"net"
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

// widgets is a page whose handlers write what the mouse and keyboard did
// into #log, so each input tool's effect can be checked.
const widgets = `<!doctype html><html lang="en"><head><title>Widgets</title></head><body style="margin:0">
<div id="pad" style="position:absolute;left:0;top:0;width:300px;height:200px;background:#eee"
  onmousemove="log('move ' + event.clientX + ',' + event.clientY)"
  onmousedown="log('down ' + event.clientX + ',' + event.clientY + ' b' + event.button)"
  onmouseup="log('up ' + event.clientX + ',' + event.clientY)"
  ondblclick="log('dbl')" oncontextmenu="log('context'); return false"></div>
<div style="position:absolute;top:220px">
<input id="a" onkeydown="log('key ' + event.key + (event.ctrlKey ? ' ctrl' : ''))"><input id="b" onfocus="log('focus b')">
<button id="confirm" onclick="log('confirm ' + confirm('Delete?'))">Delete</button>
<div id="src" draggable="true" ondragstart="event.dataTransfer.setData('text/plain', 'card')" style="width:60px;height:40px;background:red">card</div>
<p>Move <b>this</b> card to the bin below.</p>
<div id="spacer" style="height:900px"></div>
<div id="bin" style="width:120px;height:60px;background:blue" ondragover="event.preventDefault()" ondrop="event.preventDefault(); log('drop ' + event.dataTransfer.getData('text/plain'))"></div>
<pre id="log"></pre>
</div>
<script>function log(s) { document.getElementById('log').textContent += s + '\n'; }
window.addEventListener('wheel', () => log('wheel'), {passive: true});
console.log('state', {a: 1, list: [1, 2]}, 'x');</script>
</body></html>`

func widgetServer(t *testing.T) *httptest.Server {
	big := &strings.Builder{}
	big.WriteString(`<!doctype html><title>Big</title><main>`)
	for i := range 6000 {
		fmt.Fprintf(big, `<p>Row %d <a href="/r/%d">open row %d</a> <button>Delete %d</button></p>`, i, i, i, i)
	}
	wide := &strings.Builder{}
	wide.WriteString(`<!doctype html><title>宽</title><main>`)
	for i := range 8000 {
		fmt.Fprintf(wide, `<p>第%d行：这是一个很长的中文句子，用来测试快照的字节上限。</p>`, i)
	}
	stop := make(chan struct{}) // ends the answers that never come
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/":
			io.WriteString(w, widgets)
		case "/slow": // its image never loads
			io.WriteString(w, `<!doctype html><title>Slow</title><h1>Slow page</h1><img src="/never.png" alt="never">`)
		case "/never.png", "/stuck":
			select {
			case <-stop:
			case <-r.Context().Done():
			}
		case "/big":
			io.WriteString(w, big.String())
		case "/wide":
			io.WriteString(w, wide.String())
		case "/empty500": // an API's error: a status, no body
			w.WriteHeader(http.StatusInternalServerError)
		case "/nocontent":
			w.WriteHeader(http.StatusNoContent)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) })
	return srv
}

// logText is the page's #log.
func logText(t *testing.T, s *tooltest.Session) string {
	t.Helper()
	return fmt.Sprint(obj(t, s, "browser_evaluate", `{"expression":"document.getElementById('log').textContent"}`)["value"])
}

func clearLog(t *testing.T, s *tooltest.Session) {
	t.Helper()
	s.MustRun("browser_evaluate", `{"expression":"document.getElementById('log').textContent = ''"}`)
}

// TestBrowserInputsAndEdges checks what each input tool does to the page,
// dialogs left open, drag and drop, the snapshot's cap, and bad input.
func TestBrowserInputsAndEdges(t *testing.T) {
	srv := widgetServer(t)
	out := browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)

	// Mouse: a move in steps, a right click, a double click, a drag.
	s.MustRun("browser_mouse_move", `{"x":100,"y":50,"steps":4}`)
	if l := logText(t, s); strings.Count(l, "move ") != 4 || !strings.Contains(l, "move 100,50") {
		t.Errorf("mouse_move in 4 steps: %q", l)
	}
	clearLog(t, s)
	s.MustRun("browser_mouse_click", `{"x":20,"y":30,"button":"right"}`)
	s.MustRun("browser_mouse_click", `{"x":20,"y":30,"clickCount":2}`)
	if l := logText(t, s); !strings.Contains(l, "down 20,30 b2") || !strings.Contains(l, "context") || !strings.Contains(l, "dbl") {
		t.Errorf("mouse_click: %q", l)
	}
	clearLog(t, s)
	s.MustRun("browser_mouse_drag", `{"fromX":10,"fromY":10,"toX":200,"toY":150,"steps":3}`)
	if l := logText(t, s); !strings.HasPrefix(l, "down 10,10 b0") || !strings.Contains(l, "up 200,150") {
		t.Errorf("mouse_drag: %q", l)
	}
	clearLog(t, s)
	s.MustRun("browser_hover", `{"selector":"#pad","position":{"x":7,"y":9}}`)
	if l := logText(t, s); !strings.Contains(l, "move 7,9") {
		t.Errorf("hover at a position: %q", l)
	}
	clearLog(t, s)
	s.MustRun("browser_mouse_wheel", `{"deltaY":300}`)
	// The page scrolls after the wheel event, as with a real wheel.
	if got := obj(t, s, "browser_evaluate", `{"expression":"new Promise((ok) => { const t0 = Date.now(); const f = () => scrollY > 0 || Date.now() - t0 > 2000 ? ok(scrollY) : setTimeout(f, 20); f(); })"}`); got["value"].(float64) <= 0 || !strings.Contains(logText(t, s), "wheel") {
		t.Errorf("mouse_wheel: scrollY %v, log %q", got["value"], logText(t, s))
	}
	if got := obj(t, s, "browser_scroll", `{"direction":"top"}`); got["scrollY"] != float64(0) {
		t.Errorf("scroll to the top: %v", got)
	}

	// Keyboard: keys reach the focused element; Tab moves the focus.
	clearLog(t, s)
	s.MustRun("browser_click", `{"selector":"#a"}`)
	s.MustRun("browser_press_key", `{"key":"ArrowDown"}`)
	s.MustRun("browser_press_key", `{"key":"Control+a"}`)
	s.MustRun("browser_press_key", `{"key":"Tab"}`)
	if l := logText(t, s); !strings.Contains(l, "key ArrowDown") || !strings.Contains(l, "key a ctrl") || !strings.Contains(l, "focus b") {
		t.Errorf("press_key: %q", l)
	}

	// A dialog left open: the click that opened it returns and names it;
	// other actions say to answer it; handle_dialog answers it.
	clearLog(t, s)
	s.MustRun("browser_handle_dialog", `{"action":"dismiss","autoRespond":false}`)
	got := obj(t, s, "browser_click", `{"selector":"#confirm"}`)
	if d, _ := got["dialog"].(map[string]any); d["message"] != "Delete?" || d["type"] != "confirm" {
		t.Fatalf("a click opening a dialog: %v", got)
	}
	e := s.MustFail("browser_get_text", `{"selector":"#log"}`, tool.CodeToolError)
	if !strings.Contains(e.Message, `"Delete?"`) || !strings.Contains(e.Message, "browser_handle_dialog") {
		t.Errorf("an action under an open dialog: %s", e.Message)
	}
	got = obj(t, s, "browser_handle_dialog", `{"action":"accept"}`)
	if a, _ := got["answered"].(map[string]any); a["answered"] != "accepted" {
		t.Errorf("handle_dialog: %v", got)
	}
	if l := logText(t, s); !strings.Contains(l, "confirm true") {
		t.Errorf("the confirm's answer: %q", l)
	}
	s.MustRun("browser_handle_dialog", `{"action":"dismiss","autoRespond":true}`)

	// HTML5 drag and drop onto a target below the fold, in a viewport
	// holding both once scrolled.
	clearLog(t, s)
	s.MustRun("browser_resize", `{"width":600,"height":1300}`)
	s.MustRun("browser_drag", `{"source":"#src","target":"#bin","targetPosition":{"x":10,"y":10}}`)
	if l := logText(t, s); !strings.Contains(l, "drop card") {
		t.Errorf("drag and drop: %q", l)
	}
	s.MustRun("browser_resize", `{"width":600,"height":300}`)
	e = s.MustFail("browser_drag", `{"source":"#src","target":"#bin"}`, tool.CodeToolError)
	if !strings.Contains(e.Message, "do not fit in the 600x300 viewport") {
		t.Errorf("a drag that cannot fit: %s", e.Message)
	}
	s.MustRun("browser_resize", `{"width":1280,"height":720}`)

	// Console objects are shown by their preview.
	if got := obj(t, s, "browser_console_messages", `{"filter":"state"}`); !strings.Contains(tooltest.Marshal(got), `state {a: 1, list: Array(2)} x`) {
		t.Errorf("console preview: %v", got)
	}

	// The snapshot keeps the text around inline elements.
	snap := fmt.Sprint(s.MustRun("browser_snapshot", `{}`))
	if !strings.Contains(snap, `text "Move this card to the bin below."`) {
		t.Errorf("snapshot text: %s", snap)
	}

	// Nothing like the selector: the error lists elements to act on.
	e = s.MustFail("browser_click", `{"selector":"text=Quantum flux","timeout":200}`, tool.CodeElementNotFound)
	if !strings.Contains(e.Message, `"text=Quantum flux"`) || !strings.Contains(e.Message, "#confirm") {
		t.Errorf("not found, nothing alike: %s", e.Message)
	}

	// A full-page screenshot is taller than the viewport.
	shot := tooltest.Marshal(s.MustRun("browser_screenshot", `{"fullPage":true}`))
	var content tool.Content
	if err := jsonUnmarshal(shot, &content); err != nil || len(content.Parts) != 2 || !strings.Contains(content.Parts[1].Text, `"width":1280`) || strings.Contains(content.Parts[1].Text, `"height":720`) {
		t.Errorf("full page screenshot: %.300s %v", content.Parts[1].Text, err)
	}
	e = s.MustFail("browser_type", `{"selector":"#confirm","text":"x"}`, tool.CodeInvalidArgs)
	if !strings.Contains(e.Message, "<button>") || !strings.Contains(e.Message, "takes no typed text") {
		t.Errorf("typing into a button: %s", e.Message)
	}

	// A large page: the snapshot is cut under the bound, with a note; a page
	// of three-byte characters is cut by bytes too.
	for _, path := range []string{"/big", "/wide"} {
		s.MustRun("browser_navigate", `{"url":"`+srv.URL+path+`"}`)
		snap = fmt.Sprint(s.MustRun("browser_snapshot", `{}`))
		if len(snap) > 100_000 || !strings.Contains(snap, "[snapshot cut at") || !strings.Contains(snap, "pass root") {
			t.Errorf("%s: snapshot of %d bytes, ends %q", path, len(snap), snap[max(0, len(snap)-200):])
		}
	}
	e = s.MustFail("browser_screenshot", `{"fullPage":true}`, tool.CodeToolError)
	if !strings.Contains(e.Message, "px tall") {
		t.Errorf("a page too tall for one image: %s", e.Message)
	}
	snap = fmt.Sprint(s.MustRun("browser_snapshot", `{"root":"xpath=//p[3]"}`))
	if strings.Contains(snap, "cut at") || !strings.Contains(snap, "第2行") {
		t.Errorf("snapshot of one part: %s", snap)
	}
	// Its text comes in parts under the result bound, each saying where
	// the next begins.
	got = obj(t, s, "browser_get_text", `{}`)
	part1 := fmt.Sprint(got["text"])
	if b := len(tooltest.Marshal(got)); b > 100_000 || got["length"] == nil || !strings.Contains(fmt.Sprint(got["note"]), "pass offset 20000") {
		t.Errorf("get_text of a long page: %d bytes of JSON, length %v, note %v", b, got["length"], got["note"])
	}
	got = obj(t, s, "browser_get_text", `{"offset":20000}`)
	if got["offset"] != float64(20000) || !strings.HasPrefix(fmt.Sprint(got["text"]), string([]rune(fmt.Sprint(obj(t, s, "browser_get_text", `{"offset":19990,"maxLength":20}`)["text"]))[10:])) || part1 == got["text"] {
		t.Errorf("get_text's next part: offset %v, text %.60q", got["offset"], got["text"])
	}

	// Bad input, each with what would be right.
	for _, c := range []struct{ args, code, mention string }{
		{`{"url":"localhost:3000/x"}`, tool.CodeInvalidArgs, `did you mean "http://localhost:3000/x"`},
		{`{"url":"not a url"}`, tool.CodeInvalidArgs, "absolute URL"},
		{`{"url":"http://` + deadAddr(t) + `/"}`, tool.CodeToolError, "nothing listens at"},
		{`{"url":"http://no-such-host.invalid/"}`, tool.CodeToolError, "does not resolve"},
		{`{"url":"example.com:8080/x"}`, tool.CodeInvalidArgs, `did you mean "http://example.com:8080/x"`},
		{`{"url":"ftp://files.example.com/a"}`, tool.CodeInvalidArgs, "does not open ftp: URLs"},
		{`{"url":"javascript:alert(1)"}`, tool.CodeInvalidArgs, "does not open javascript: URLs"},
	} {
		e := s.MustFail("browser_navigate", c.args, c.code)
		if !strings.Contains(e.Message, c.mention) {
			t.Errorf("navigate %s: %s", c.args, e.Message)
		}
	}
	// The tab shows the error page; a screenshot says so; back works.
	e = s.MustFail("browser_screenshot", `{}`, tool.CodeToolError)
	if !strings.Contains(e.Message, "error page") {
		t.Errorf("screenshot of the error page: %s", e.Message)
	}
	// An error status with an empty body is the server's answer, as a
	// 404 page is: its status, under the address asked for.
	got = obj(t, s, "browser_navigate", `{"url":"`+srv.URL+`/empty500"}`)
	if got["status"] != float64(500) || got["url"] != srv.URL+"/empty500" || !strings.Contains(fmt.Sprint(got["note"]), "empty body") {
		t.Errorf("navigate to a 500 with no body: %v", got)
	}
	if e := s.MustFail("browser_navigate", `{"url":"`+srv.URL+`/nocontent"}`, tool.CodeToolError); !strings.Contains(e.Message, "answered 204 (no content)") {
		t.Errorf("navigate to a 204: %s", e.Message)
	}
	// A page whose image never loads is kept at the timeout, with a note;
	// a server that never answers is a TIMEOUT; the tab is usable after.
	// (2 s: on a loaded machine the page may not have asked for its
	// image yet half a second in.)
	got = obj(t, s, "browser_navigate", `{"url":"`+srv.URL+`/slow","timeout":2000}`)
	if note := fmt.Sprint(got["note"]); got["status"] != float64(200) || got["title"] != "Slow" || !strings.Contains(note, "load event had not come") || !strings.Contains(note, "/never.png") {
		t.Errorf("navigate to a page still loading: %v", got)
	}
	e = s.MustFail("browser_navigate", `{"url":"`+srv.URL+`/stuck","timeout":500}`, tool.CodeTimeout)
	if !strings.Contains(e.Message, "no answer within 500ms") || !strings.Contains(e.Message, "still shows "+srv.URL+"/slow") {
		t.Errorf("navigate to a stuck server: %s", e.Message)
	}
	if got = obj(t, s, "browser_get_text", `{"selector":"h1"}`); got["text"] != "Slow page" {
		t.Errorf("the tab after a stuck navigation: %v", got)
	}
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)
	s.MustRun("browser_screenshot", `{}`)
	for _, c := range []struct{ name, args, code, mention string }{
		{"browser_resize", `{"width":-5,"height":400}`, tool.CodeInvalidArgs, "width"},
		{"browser_resize", `{"width":"wide","height":400}`, tool.CodeInvalidArgs, "width"},
		{"browser_click", `{"selector":"#nope","timeout":-1}`, tool.CodeInvalidArgs, "timeout"},
		{"browser_click", `{}`, tool.CodeInvalidArgs, "selector"},
		{"browser_click", `{"selector":"#[bad"}`, tool.CodeInvalidArgs, "the [ of an attribute is not closed"},
		{"browser_click", `{"selector":"role=button[name=]"}`, tool.CodeInvalidArgs, "has no value after ="},
		{"browser_screenshot", `{"savePath":"../out.png"}`, tool.CodeForbidden, "outside"},
		{"browser_screenshot", `{"savePath":"/etc/out.png"}`, tool.CodeForbidden, "outside"},
		{"browser_screenshot", `{"savePath":"."}`, tool.CodeForbidden, "outside"},
		{"browser_pdf_save", `{"path":"x.pdf","format":"A3"}`, tool.CodeInvalidArgs, "format"},
		{"browser_session_new", `{"id":"w","headless":false}`, tool.CodeInvalidArgs, "headless"},
		{"browser_tabs", `{"action":"select"}`, tool.CodeInvalidArgs, "index"},
		{"browser_tabs", `{"action":"close","index":0}`, tool.CodeInvalidArgs, "tab 0"},
		{"browser_file_upload", `{"selector":"#a","files":["/no/such/file"]}`, tool.CodeNotFound, "/no/such/file"},
		{"browser_select_option", `{"selector":"#a","value":"x"}`, tool.CodeInvalidArgs, "not a select"},
		{"browser_stop_tracing", `{"path":"t.json"}`, tool.CodeInvalidArgs, "browser_start_tracing"},
	} {
		e := s.MustFail(c.name, c.args, c.code)
		if !strings.Contains(e.Message, c.mention) {
			t.Errorf("%s %s: %s", c.name, c.args, e.Message)
		}
	}

	// savePath: a link inside the directory leading out is refused before
	// anything is made through it; a directory is not a file name.
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(out, "link")); err != nil {
		t.Fatal(err)
	}
	s.MustFail("browser_screenshot", `{"savePath":"link/deep/x.png"}`, tool.CodeForbidden)
	if _, err := os.Stat(filepath.Join(outside, "deep")); err == nil {
		t.Error("a directory was made through the link before the refusal")
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(out, "file.png")); err != nil {
		t.Fatal(err)
	}
	s.MustFail("browser_screenshot", `{"savePath":"file.png"}`, tool.CodeForbidden)
	os.MkdirAll(filepath.Join(out, "dir.png"), 0o755)
	s.MustFail("browser_screenshot", `{"savePath":"dir.png"}`, tool.CodeInvalidArgs)
	// A relative configured directory works as the absolute one.
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, out)
	if err != nil {
		t.Fatal(err)
	}
	browser.Configure(true, rel+"/", 0)
	got = tooltest.Object(t, tooltest.JSON(t, tooltest.Marshal(s.MustRun("browser_screenshot", `{"savePath":"rel/a.png"}`))))
	browser.Configure(true, out, 0)
	if _, err := os.Stat(filepath.Join(out, "rel", "a.png")); err != nil {
		t.Errorf("savePath under a relative screenshotDir: %v (%v)", err, got)
	}
}

// deadAddr is a loopback address nothing listens on.
func deadAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
