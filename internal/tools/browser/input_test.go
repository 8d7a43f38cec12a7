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

// inputPage has checkboxes and radios of every kind, one whose click is
// refused, an input counting its key events, a form, and a pad logging
// the mouse.
const inputPage = `<!doctype html><html lang="en"><head><title>Input</title></head><body style="margin:0">
<div id="pad" style="width:300px;height:100px;background:#eee"
  onmousedown="log('down ' + event.clientX + ',' + event.clientY + ' b' + event.button + ' buttons' + event.buttons + (event.shiftKey ? ' shift' : ''))"
  onmouseup="log('up ' + event.clientX + ',' + event.clientY + ' b' + event.button)"></div>
<label><input type="checkbox" id="news"> Newsletter</label>
<input type="checkbox" id="terms" checked><label for="terms">Terms</label>
<input type="checkbox" id="locked" onclick="event.preventDefault()"><label for="locked">Locked</label>
<input type="radio" name="plan" id="free" checked><label for="free">Free</label>
<input type="radio" name="plan" id="pro"><label for="pro">Pro</label>
<div role="checkbox" id="aria" aria-checked="false" tabindex="0" onclick="this.setAttribute('aria-checked', this.getAttribute('aria-checked') === 'true' ? 'false' : 'true')">Dark mode</div>
<button id="plain">Plain</button>
<form action="/done" method="get"><input id="q" name="q"><button>Go</button></form>
<input id="other">
<pre id="log"></pre>
<script>
function log(s) { document.getElementById('log').textContent += s + '\n'; }
window.counts = {keydown: 0, keypress: 0, input: 0, keyup: 0};
const q = document.getElementById('q');
for (const t of Object.keys(counts)) q.addEventListener(t, () => counts[t]++);
document.getElementById('other').addEventListener('keydown', (e) => log('key ' + e.key + (e.shiftKey ? ' shift' : '')));
</script></body></html>`

func inputServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/done" {
			fmt.Fprintf(w, `<!doctype html><title>Done</title><p id="q">searched %s</p>`, r.URL.Query().Get("q"))
			return
		}
		io.WriteString(w, inputPage)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestCheckAndUncheck(t *testing.T) {
	srv := inputServer(t)
	browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)
	checked := func(id string) any { return eval(t, s, "document.getElementById('"+id+"').checked") }

	// A checkbox by its wrapping label's text, then by id: changed, then a no-op.
	if got := obj(t, s, "browser_check", `{"selector":"text=Newsletter"}`); got["changed"] != true || got["checked"] != true || checked("news") != true {
		t.Errorf("check by label: %v", got)
	}
	if got := obj(t, s, "browser_check", `{"selector":"#news"}`); got["changed"] != false || !strings.Contains(fmt.Sprint(got["note"]), "already checked") || checked("news") != true {
		t.Errorf("check of a checked box: %v (it must stay checked)", got)
	}
	if got := obj(t, s, "browser_uncheck", `{"selector":"#terms"}`); got["changed"] != true || checked("terms") != false {
		t.Errorf("uncheck: %v", got)
	}
	if got := obj(t, s, "browser_uncheck", `{"selector":"#terms"}`); got["changed"] != false || checked("terms") != false {
		t.Errorf("uncheck of an unchecked box: %v", got)
	}

	// Radios: checking one unchecks the other; unchecking one is an error.
	if got := obj(t, s, "browser_check", `{"selector":"#pro"}`); got["changed"] != true || checked("pro") != true || checked("free") != false {
		t.Errorf("check a radio: %v", got)
	}
	s.MustFailWith("browser_uncheck", `{"selector":"#pro"}`, tool.CodeToolError, "did not uncheck", "radio")

	// A click the page refuses.
	s.MustFailWith("browser_check", `{"selector":"#locked"}`, tool.CodeToolError, "did not check", "still unchecked")

	// An ARIA checkbox.
	if got := obj(t, s, "browser_check", `{"selector":"role=checkbox[name=\"Dark mode\"]"}`); got["changed"] != true || got["kind"] != "checkbox" {
		t.Errorf("check an ARIA checkbox: %v", got)
	}
	if v := eval(t, s, "document.getElementById('aria').getAttribute('aria-checked')"); v != "true" {
		t.Errorf("aria-checked: %v", v)
	}
	if got := obj(t, s, "browser_check", `{"selector":"#aria"}`); got["changed"] != false {
		t.Errorf("check a checked ARIA checkbox: %v", got)
	}

	// Not a checkbox.
	s.MustFailWith("browser_check", `{"selector":"#plain"}`, tool.CodeInvalidArgs, "not a checkbox")
}

func TestKeyboardTools(t *testing.T) {
	srv := inputServer(t)
	browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)

	// One keydown, keypress, input and keyup per character.
	got := obj(t, s, "browser_press_sequentially", `{"selector":"#q","text":"héllo w"}`)
	if got["typed"] != float64(7) {
		t.Errorf("press_sequentially: %v", got)
	}
	if v := tooltest.Marshal(eval(t, s, "counts")); v != `{"input":7,"keydown":7,"keypress":7,"keyup":7}` {
		t.Errorf("key events per character: %s", v)
	}
	if v := eval(t, s, "document.getElementById('q').value"); v != "héllo w" {
		t.Errorf("typed value: %v", v)
	}
	// Into the focused element, with a delay, then submit.
	s.MustRun("browser_press_sequentially", `{"text":"!","delay":20,"submit":true}`)
	s.MustRun("browser_wait", `{"selector":"text=searched"}`)
	if got := obj(t, s, "browser_get_text", `{"selector":"#q"}`); got["text"] != "searched héllo w!" {
		t.Errorf("submit: %v", got)
	}

	// Shift held: capitals, and the page sees shiftKey.
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)
	s.MustRun("browser_click", `{"selector":"#other"}`)
	if got := obj(t, s, "browser_keydown", `{"key":"Shift"}`); tooltest.Marshal(got["held"]) != `["Shift"]` {
		t.Errorf("keydown Shift: %v", got)
	}
	s.MustRun("browser_press_sequentially", `{"text":"ab1"}`)
	if got := obj(t, s, "browser_keyup", `{"key":"Shift"}`); tooltest.Marshal(got["held"]) != `[]` {
		t.Errorf("keyup Shift: %v", got)
	}
	s.MustRun("browser_press_sequentially", `{"text":"c"}`)
	if v := eval(t, s, "document.getElementById('other').value"); v != "AB!c" {
		t.Errorf("typed with Shift held: %q", v)
	}
	if v := fmt.Sprint(eval(t, s, "document.getElementById('log').textContent")); !strings.Contains(v, "key Shift shift\nkey A shift\nkey B shift\nkey ! shift\nkey c\n") {
		t.Errorf("the page's key events: %q", v)
	}
	// keydown of a letter types it; an unknown key is named.
	s.MustRun("browser_keydown", `{"key":"x"}`)
	s.MustRun("browser_keyup", `{"key":"x"}`)
	if v := eval(t, s, "document.getElementById('other').value"); v != "AB!cx" {
		t.Errorf("keydown x: %q", v)
	}
	s.MustFailWith("browser_keydown", `{"key":"Hyperdrive"}`, tool.CodeInvalidArgs, "Hyperdrive", "ArrowLeft")
}

func TestMouseDownUp(t *testing.T) {
	srv := inputServer(t)
	browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)
	s.MustRun("browser_mouse_move", `{"x":40,"y":30}`)
	if got := obj(t, s, "browser_mouse_down", `{}`); got["x"] != float64(40) || got["button"] != "left" {
		t.Errorf("mouse_down: %v", got)
	}
	s.MustRun("browser_mouse_move", `{"x":60,"y":50}`)
	s.MustRun("browser_mouse_up", `{}`)
	s.MustRun("browser_keydown", `{"key":"Shift"}`)
	s.MustRun("browser_mouse_down", `{"button":"right"}`)
	s.MustRun("browser_mouse_up", `{"button":"right"}`)
	s.MustRun("browser_keyup", `{"key":"Shift"}`)
	want := "down 40,30 b0 buttons1\nup 60,50 b0\ndown 60,50 b2 buttons2 shift\nup 60,50 b2\n"
	if v := eval(t, s, "document.getElementById('log').textContent"); v != want {
		t.Errorf("mouse events:\n%q\nwant\n%q", v, want)
	}
}

func TestFind(t *testing.T) {
	srv := inputServer(t)
	browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)

	got := obj(t, s, "browser_find", `{"text":"dark MODE"}`)
	results, _ := got["results"].([]any)
	if got["matches"] != float64(1) || len(results) != 1 {
		t.Fatalf("find text: %v", got)
	}
	r := results[0].(map[string]any)
	if !strings.Contains(fmt.Sprint(r["text"]), `checkbox "Dark mode"`) || r["ref"] == "" || r["above"] == "" || r["below"] == "" {
		t.Errorf("a match with its ref and context: %v", r)
	}
	// The ref is a selector browser_click takes.
	s.MustRun("browser_click", `{"selector":"`+fmt.Sprint(r["ref"])+`"}`)
	if v := eval(t, s, "document.getElementById('aria').getAttribute('aria-checked')"); v != "true" {
		t.Errorf("the click on the found ref did not reach the element: %v", v)
	}

	// A regex, with flags; a limit; nothing found.
	got = obj(t, s, "browser_find", `{"regex":"/^\\s*- checkbox \"(news|terms)/i"}`)
	if got["matches"] != float64(2) {
		t.Errorf("find regex: %v", got)
	}
	if got = obj(t, s, "browser_find", `{"regex":"checkbox","limit":1}`); got["shown"] != float64(1) || got["matches"].(float64) < 4 || got["note"] == nil {
		t.Errorf("find with a limit: %v", got)
	}
	if got = obj(t, s, "browser_find", `{"text":"no such words"}`); got["matches"] != float64(0) || got["note"] == nil {
		t.Errorf("find nothing: %v", got)
	}

	// Far smaller than the snapshot.
	snap := fmt.Sprint(s.MustRun("browser_snapshot", `{}`))
	if f := tooltest.Marshal(s.MustRun("browser_find", `{"text":"Pro"}`)); len(f) >= len(snap) {
		t.Errorf("find answered %d bytes, the snapshot is %d", len(f), len(snap))
	}

	s.MustFailWith("browser_find", `{"regex":"(unclosed"}`, tool.CodeInvalidArgs, `"(unclosed"`, "missing closing )")
	s.MustFailWith("browser_find", `{}`, tool.CodeInvalidArgs, "text", "regex")
	s.MustFailWith("browser_find", `{"text":"a","regex":"b"}`, tool.CodeInvalidArgs, "one of them")
}
