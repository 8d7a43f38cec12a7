package browserassert

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
	browsertools "github.com/barrhawk/barrhawk/internal/tools/browser"
)

func TestMain(m *testing.M) {
	browser.ExecIfBrowserStart()
	os.Exit(m.Run())
}

// faulty has one planted fault per rule, each on an element with a known
// selector; clean has none.
const faulty = `<!doctype html><html><head></head><body>
<h2 id="h2first">Section</h2>
<h4 id="skip">Skipped level</h4>
<img id="noalt" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<input id="nolabel" placeholder="Your name">
<p id="faint" style="color: #bbb; background: #fff">Faint text</p>
<button id="empty"></button>
<a id="emptylink" href="/x"></a>
<span id="dup">one</span><span id="dup">two</span>
<div id="tab" tabindex="3">tab</div>
<iframe id="frame" srcdoc="<p>x</p>"></iframe>
<div id="badrole" role="buttn">x</div>
</body></html>`

const clean = `<!doctype html><html lang="en"><head><title>Clean</title></head><body>
<header><nav><a href="/a">Home</a></nav></header>
<main><h1>Title</h1><h2>Part</h2><h3>Sub</h3>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="A dot"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="">
<label for="n">Name</label><input id="n"><label>Email <input type="email"></label><input aria-label="Search">
<p style="color: #333; background: #fff">Readable text</p>
<button>Save</button><button aria-label="Close">×</button><a href="/b"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Profile"></a>
<div tabindex="0" role="button">Focusable</div><iframe title="Preview" srcdoc="<p>x</p>"></iframe>
</main><footer>© us</footer></body></html>`

const shop = `<!doctype html><html lang="en"><title>Shop</title><main><h1>Cart</h1>
<ul><li class="item">a</li><li class="item">b</li></ul><a id="next" href="/pay" aria-expanded="false">Pay</a>
<p id="status" hidden>Saved</p><button onclick="setTimeout(() => { document.getElementById('status').hidden = false; document.querySelector('ul').insertAdjacentHTML('beforeend', '<li class=item>c</li>'); }, 300)" id="save">Save</button></main></html>`

func pages(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, map[string]string{"/faulty": faulty, "/clean": clean, "/shop": shop}[r.URL.Path])
	}))
	t.Cleanup(srv.Close)
	return srv
}

func session(t *testing.T) *tooltest.Session {
	return tooltest.NewSession(t, append(Tools(), browsertools.Tools()...))
}

func TestAudit(t *testing.T) {
	t.Parallel()
	srv := pages(t)
	s := session(t)
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/faulty"}`)
	got := tooltest.Object(t, s.MustRun("accessibility_audit", `{}`))
	found := map[string]bool{}
	for _, v := range got["violations"].([]any) {
		m := v.(map[string]any)
		found[fmt.Sprint(m["rule"], " ", m["selector"])] = true
		if m["impact"] == "" || m["wcag"] == "" || m["message"] == "" {
			t.Errorf("violation without impact, wcag or message: %v", m)
		}
	}
	for _, want := range []string{"image-alt #noalt", "label #nolabel", "color-contrast #faint", "heading-order #skip", "page-has-heading-one html",
		"landmark-one-main html", `duplicate-id [id="dup"]`, "button-name #empty", "link-name #emptylink", "html-has-lang html",
		"document-title html", "tabindex #tab", "frame-title #frame", "aria-valid-role #badrole"} {
		if !found[want] {
			keys := make([]string, 0, len(found))
			for k := range found {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			t.Errorf("the audit missed %q; found %v", want, keys)
		}
	}
	if got["summary"].(map[string]any)["critical"].(float64) < 4 {
		t.Errorf("summary: %v", got["summary"])
	}
	// minImpact and rules narrow it.
	got = tooltest.Object(t, s.MustRun("accessibility_audit", `{"minImpact":"critical"}`))
	for _, v := range got["violations"].([]any) {
		if v.(map[string]any)["impact"] != "critical" {
			t.Errorf("minImpact critical let through %v", v)
		}
	}
	got = tooltest.Object(t, s.MustRun("accessibility_audit", `{"rules":["image-alt"]}`))
	if got["count"] != float64(1) {
		t.Errorf("rules: %v", got)
	}
	s.MustFail("accessibility_audit", `{"rules":["nope"]}`, tool.CodeInvalidArgs)
	// The scope is a selector as every browser tool takes it.
	got = tooltest.Object(t, s.MustRun("accessibility_audit", `{"selector":"role=button","rules":["button-name","image-alt"]}`))
	if got["count"] != float64(1) || !strings.Contains(fmt.Sprint(got["violations"]), "#empty") {
		t.Errorf("audit of role=button: %v", got["violations"])
	}
	e := s.MustFail("accessibility_audit", `{"selector":"role=[name=x]"}`, tool.CodeInvalidArgs)
	if !strings.Contains(e.Message, "the role is missing") || strings.Contains(e.Message, "<anonymous>") {
		t.Errorf("audit of a malformed selector: %s", e.Message)
	}
	s.MustFail("accessibility_audit", `{"selector":"#nothing"}`, tool.CodeElementNotFound)

	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/clean"}`)
	got = tooltest.Object(t, s.MustRun("accessibility_audit", `{}`))
	if got["count"] != float64(0) {
		t.Errorf("the clean page has violations: %v", got["violations"])
	}
}

func TestAssertions(t *testing.T) {
	t.Parallel()
	srv := pages(t)
	s := session(t)
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/shop"}`)
	check := func(name, args string, passed bool, mentions ...string) {
		t.Helper()
		got := tooltest.Object(t, s.MustRun(name, args))
		if got["passed"] != passed {
			t.Errorf("%s(%s): passed %v, want %v: %v", name, args, got["passed"], passed, got)
		}
		for _, m := range mentions {
			if !strings.Contains(fmt.Sprint(got["message"]), m) {
				t.Errorf("%s(%s): message %q lacks %q", name, args, got["message"], m)
			}
		}
	}
	check("assert_title", `{"expected":"Shop"}`, true)
	check("assert_title", `{"expected":"Cart","timeout":200}`, false, `"Shop"`, `"Cart"`)
	check("assert_url", `{"expected":"/shop","mode":"contains"}`, true)
	check("assert_url", `{"expected":"/shop$","mode":"matches"}`, true)
	// equals a path: the page's origin is implied, the query counts.
	check("assert_url", `{"expected":"/shop"}`, true)
	check("assert_url", `{"expected":"/shop?x=1","timeout":200}`, false, "/shop")
	check("assert_url", `{"expected":"/sho","timeout":200}`, false, "/shop")
	check("assert_url", `{"expected":"/pay","mode":"contains","timeout":200}`, false, "/shop")
	check("assert_count", `{"selector":".item","equals":2}`, true)
	check("assert_count", `{"selector":".item","min":5,"timeout":200}`, false, "matches 2 elements", "at least 5")
	check("assert_hidden", `{"selector":"#status"}`, true)
	check("assert_visible", `{"selector":"#status","timeout":200}`, false, "hidden, expected visible")
	check("assert_attribute", `{"selector":"#next","name":"aria-expanded","value":"false"}`, true)
	check("assert_attribute", `{"selector":"#next","name":"href","value":"/checkout","timeout":200}`, false, `"/pay"`)
	check("assert_attribute", `{"selector":"#next","name":"disabled","timeout":200}`, false, "no attribute disabled")
	check("assert_text", `{"selector":"h1","expected":"cart","ignoreCase":true}`, true)
	check("assert_text", `{"selector":"#missing","expected":"x","timeout":200}`, false, "matched no element")
	// Waiting: the status shows 300 ms after the click, and a third item comes.
	s.MustRun("browser_click", `{"selector":"#save"}`)
	check("assert_visible", `{"selector":"#status"}`, true)
	check("assert_text", `{"selector":"#status","expected":"Saved","mode":"equals"}`, true)
	check("assert_count", `{"selector":".item","equals":3}`, true)
	s.MustFail("assert_text", `{"selector":"h1","expected":"(","mode":"matches"}`, tool.CodeInvalidArgs)
	s.MustFail("assert_count", `{"selector":"h1"}`, tool.CodeInvalidArgs)
}

func TestFamily(t *testing.T) {
	var names []string
	for _, tl := range Tools() {
		names = append(names, tl.Name)
	}
	tooltest.CheckFamilyIn(t, Tools(), tool.CategoryBrowser, func(n string) string {
		if n == "accessibility_audit" {
			return "Accessibility"
		}
		return "Assertions"
	}, names...)
}

// An assertion whose timeout outlasts the call answers before the call
// ends, with what it found, instead of leaving the call to time out.
func TestUntilEndsBeforeTheCall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	looks := 0
	o, _, err := until(ctx, 60_000, func() (outcome, error) {
		looks++
		return outcome{actual: "hidden"}, nil
	})
	if err != nil || o.passed || o.actual != "hidden" || looks == 0 {
		t.Errorf("until with a call deadline before its timeout: %+v after %d looks, %v", o, looks, err)
	}
	if ctx.Err() != nil {
		t.Errorf("until answered only once the call had ended")
	}
}
