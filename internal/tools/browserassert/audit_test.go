package browserassert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

const gif = "data:image/gif;base64,R0lGODlhAQABAAAAACw="

// faulty plants known faults, each on an element with a known selector.
// #aaa fails only AAA contrast (4.54:1), #tiny and #tiny2 only WCAG 2.2's
// target size, #overimage is text on a background image (axe cannot tell
// its contrast: incomplete), the ids "dup" are duplicated and referenced
// by aria-labelledby, and the ids "twice" only duplicated (a deprecated
// rule, run only when named). The frame's document lacks a main
// landmark and an h1 of its own.
const faulty = `<!doctype html><html><head></head><body>
<h2 id="h2first">Section</h2>
<h4 id="skip">Skipped level</h4>
<img id="noalt" src="` + gif + `">
<input id="nolabel">
<p id="faint" style="color: #bbb; background: #fff">Faint text</p>
<p id="aaa" style="color: #767676; background: #fff">Grey text</p>
<p id="overimage" style="color: #777; background: #fff url(` + gif + `)">Text over an image</p>
<button id="empty"></button>
<a id="emptylink" href="/x"></a>
<span id="dup">one</span><span id="dup">two</span><input id="agree" type="checkbox" aria-labelledby="dup">
<span id="twice">a</span><span id="twice">b</span>
<div id="tab" tabindex="3">tab</div>
<iframe id="frame" srcdoc="<p>x</p>"></iframe>
<div id="badrole" role="buttn">x</div>
<div id="badattr" aria-foo="x">x</div>
<button id="badvalue" aria-pressed="maybe">Press</button>
<div><button id="tiny" style="width: 10px; height: 10px; padding: 0; border: 0">+</button><button id="tiny2" style="width: 10px; height: 10px; padding: 0; border: 0">-</button></div>
</body></html>`

const clean = `<!doctype html><html lang="en"><head><title>Clean</title></head><body>
<header><nav><a href="/a">Home</a></nav></header>
<main><h1>Title</h1><h2>Part</h2><h3>Sub</h3>
<img src="` + gif + `" alt="A dot"><img src="` + gif + `" alt="">
<label for="n">Name</label><input id="n"><label>Email <input type="email"></label><input aria-label="Search">
<p style="color: #333; background: #fff">Readable text</p>
<p><button>Save</button></p><p><a href="/b"><img src="` + gif + `" alt="Profile"></a></p>
<div tabindex="0" role="button">Focusable</div><iframe title="Preview" srcdoc="<main aria-label=Preview><h1>x</h1></main>"></iframe>
</main><footer>© us</footer></body></html>`

// serve serves pages by path, as HTML.
func serve(t *testing.T, pages map[string]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, pages[r.URL.Path])
	}))
	t.Cleanup(srv.Close)
	return srv
}

// findings are the rules of one kind (violations or incomplete) of an
// audit's answer, by rule id.
func findings(t *testing.T, got map[string]any, kind string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	list, ok := got[kind].([]any)
	if !ok {
		t.Fatalf("the audit's answer has no list %q: %v", kind, got)
	}
	for _, f := range list {
		m := f.(map[string]any)
		out[m["rule"].(string)] = m
	}
	return out
}

// wantRules fails unless the findings of kind are exactly the rules want.
func wantRules(t *testing.T, label string, got map[string]any, kind string, want ...string) {
	t.Helper()
	ids := []string{}
	for id := range findings(t, got, kind) {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Errorf("%s: %s are %v, want %v", label, kind, ids, want)
	}
}

// wcagAA are the violations of faulty that WCAG 2.2 AA finds.
var wcagAA = []string{"aria-roles", "aria-valid-attr", "aria-valid-attr-value", "button-name", "image-alt", "label", "color-contrast",
	"document-title", "frame-title", "html-has-lang", "link-name", "target-size"}

// bestPractices are the violations of faulty that axe's best practices find.
var bestPractices = []string{"tabindex", "region", "landmark-one-main", "page-has-heading-one", "heading-order"}

func TestAuditFaults(t *testing.T) {
	t.Parallel()
	srv := serve(t, map[string]string{"/faulty": faulty, "/clean": clean})
	s := session(t)
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/faulty"}`)

	// The default: WCAG 2.2 AA and best practices.
	got := tooltest.Object(t, s.MustRun("accessibility_audit", `{"maxNodes":20}`))
	wantRules(t, "default", got, "violations", append(slices.Clone(wcagAA), bestPractices...)...)
	wantRules(t, "default", got, "incomplete", "color-contrast", "duplicate-id-aria")
	if got["axeVersion"] != AxeVersion {
		t.Errorf("axeVersion %v, want the vendored %s", got["axeVersion"], AxeVersion)
	}
	ran := tooltest.Marshal(got["ran"])
	if want := `{"type":"tag","values":["wcag2a","wcag2aa","wcag21a","wcag21aa","wcag22aa","best-practice"]}`; ran != want {
		t.Errorf("ran %s, want %s", ran, want)
	}
	v := findings(t, got, "violations")
	for rule, sel := range map[string]string{"aria-roles": "#badrole", "aria-valid-attr": "#badattr", "aria-valid-attr-value": "#badvalue",
		"button-name": "#empty", "image-alt": "#noalt", "label": "#nolabel", "color-contrast": "#faint", "document-title": "html",
		"frame-title": "#frame", "html-has-lang": "html", "link-name": "#emptylink", "target-size": "#tiny", "tabindex": "#tab",
		"heading-order": "#skip", "landmark-one-main": "#frame >> html"} {
		if !slices.Contains(v[rule]["selectors"].([]any), any(sel)) {
			t.Errorf("%s: selectors %v lack %s", rule, v[rule]["selectors"], sel)
		}
	}
	if c := v["color-contrast"]; tooltest.Marshal(c["selectors"]) != `["#faint"]` || c["count"] != float64(1) || tooltest.Marshal(c["wcag"]) != `["1.4.3"]` ||
		c["impact"] != "serious" || !strings.Contains(c["message"].(string), "contrast of 1.91") || !strings.HasPrefix(c["helpUrl"].(string), "https://") || c["help"] == "" {
		t.Errorf("color-contrast violation: %v", c)
	}
	if tooltest.Marshal(v["link-name"]["wcag"]) != `["2.4.4","4.1.2"]` || tooltest.Marshal(v["region"]["wcag"]) != `[]` {
		t.Errorf("wcag of link-name %v, of region %v", v["link-name"]["wcag"], v["region"]["wcag"])
	}
	// Needs review is apart: the text over an image is not a violation.
	if in := findings(t, got, "incomplete")["color-contrast"]; tooltest.Marshal(in["selectors"]) != `["#overimage"]` {
		t.Errorf("incomplete color-contrast: %v", in)
	}
	// Most severe first.
	last := len(impacts)
	for _, f := range got["violations"].([]any) {
		i := slices.Index(impacts, f.(map[string]any)["impact"].(string))
		if i > last {
			t.Errorf("violations are not sorted by impact: %v", got["violations"])
			break
		}
		last = i
	}
	if got["count"] != float64(len(wcagAA)+len(bestPractices)) || got["summary"].(map[string]any)["critical"] != float64(6) || got["passes"].(float64) < 10 || got["inapplicable"].(float64) < 10 {
		t.Errorf("count %v, summary %v, passes %v, inapplicable %v", got["count"], got["summary"], got["passes"], got["inapplicable"])
	}

	// Level, version and best practices change what is checked.
	for _, c := range []struct {
		args string
		want []string
	}{
		{`{"bestPractice":false}`, wcagAA},
		{`{"wcagVersion":"2.1","bestPractice":false}`, slices.DeleteFunc(slices.Clone(wcagAA), func(r string) bool { return r == "target-size" })},
		{`{"level":"A","wcagVersion":"2.0","bestPractice":false}`, slices.DeleteFunc(slices.Clone(wcagAA), func(r string) bool { return r == "target-size" || r == "color-contrast" })},
		{`{"level":"AAA","bestPractice":false}`, append(slices.Clone(wcagAA), "color-contrast-enhanced")},
		{`{"tags":["best-practice"]}`, bestPractices},
		{`{"tags":["wcag143","cat.keyboard"]}`, []string{"color-contrast", "region", "tabindex"}},
		{`{"minImpact":"critical"}`, []string{"aria-roles", "aria-valid-attr", "aria-valid-attr-value", "button-name", "image-alt", "label"}},
		// A rule named runs whatever its tags, deprecated ones included;
		// aria-valid-role, a rule of the former audit, is axe's aria-roles.
		{`{"rules":["duplicate-id","aria-valid-role","image-alt"]}`, []string{"duplicate-id", "aria-roles", "image-alt"}},
	} {
		got := tooltest.Object(t, s.MustRun("accessibility_audit", c.args))
		wantRules(t, c.args, got, "violations", c.want...)
	}
	got = tooltest.Object(t, s.MustRun("accessibility_audit", `{"level":"AAA"}`))
	if e := findings(t, got, "violations")["color-contrast-enhanced"]; tooltest.Marshal(e["selectors"]) != `["#aaa"]` || tooltest.Marshal(e["wcag"]) != `["1.4.6"]` {
		t.Errorf("AAA contrast: %v", e)
	}
	got = tooltest.Object(t, s.MustRun("accessibility_audit", `{"rules":["aria-valid-role"]}`))
	if !strings.Contains(fmt.Sprint(got["notes"]), "aria-valid-role is axe's aria-roles") {
		t.Errorf("the renamed rule is not said: %v", got["notes"])
	}

	// The scope is a selector as every browser tool takes it, the element
	// included; page-wide rules do not run.
	got = tooltest.Object(t, s.MustRun("accessibility_audit", `{"selector":"role=button[name=\"Press\"]","rules":["aria-valid-attr-value","button-name","image-alt"]}`))
	wantRules(t, "scope", got, "violations", "aria-valid-attr-value")
	got = tooltest.Object(t, s.MustRun("accessibility_audit", `{"selector":"body","rules":["button-name","document-title"]}`))
	wantRules(t, "scope body", got, "violations", "button-name")
	e := s.MustFail("accessibility_audit", `{"selector":"role=[name=x]"}`, tool.CodeInvalidArgs)
	if !strings.Contains(e.Message, "the role is missing") || strings.Contains(e.Message, "<anonymous>") {
		t.Errorf("audit of a malformed selector: %s", e.Message)
	}
	s.MustFail("accessibility_audit", `{"selector":"#nothing"}`, tool.CodeElementNotFound)

	// Bad input names the argument and what it accepts.
	for args, mentions := range map[string][]string{
		`{"rules":["image-alts","nope"]}`:         {`argument "rules"`, `"image-alts" (did you mean "image-alt"?)`, `"nope"`, "accepted: ", "color-contrast", "region"},
		`{"tags":["wcag22a"]}`:                    {`argument "tags"`, `"wcag22a" (did you mean`, "wcag2aa", "wcag22aa", "best-practice", "criterion's tag such as wcag143"},
		`{"level":"AA+"}`:                         {"level", `"A", "AA", "AAA"`},
		`{"wcagVersion":"3.0"}`:                   {"wcagVersion", `"2.0", "2.1", "2.2"`},
		`{"tags":["wcag2a"],"rules":["label"]}`:   {`"tags" and "rules"`, "not both"},
		`{"minImpact":"severe"}`:                  {"minImpact", `"critical"`},
		`{"maxNodes":0}`:                          {"maxNodes", ">= 1"},
		`{"maxBytes":10}`:                         {"maxBytes", ">= 2000"},
		`{"tags":["wcag2a"],"bestPractice":"no"}`: {"bestPractice", "boolean"},
	} {
		e := s.MustFail("accessibility_audit", args, tool.CodeInvalidArgs)
		for _, m := range mentions {
			if !strings.Contains(e.Message, m) {
				t.Errorf("%s: the error %q lacks %q", args, e.Message, m)
			}
		}
	}

	// A page without faults has no violation, its frame included.
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/clean"}`)
	got = tooltest.Object(t, s.MustRun("accessibility_audit", `{}`))
	wantRules(t, "clean", got, "violations")
	if got["cut"] != false || got["notes"] != nil {
		t.Errorf("clean: cut %v, notes %v", got["cut"], got["notes"])
	}
}

// The 14 rules of BarrHawk's own former audit are all axe rules, so the
// audit keeps none of its own.
func TestAuditFormerRulesAreAxeRules(t *testing.T) {
	t.Parallel()
	former := []string{"image-alt", "label", "color-contrast", "heading-order", "page-has-heading-one", "landmark-one-main",
		"duplicate-id", "button-name", "link-name", "html-has-lang", "document-title", "tabindex", "frame-title", "aria-valid-role"}
	srv := serve(t, map[string]string{"/": clean})
	s := session(t)
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)
	s.MustRun("accessibility_audit", `{"rules":["image-alt"]}`)
	raw := s.MustRun("browser_evaluate", `{"expression":"axe.getRules().map((r) => r.ruleId)"}`)
	var ids []string
	if err := json.Unmarshal([]byte(tooltest.Marshal(tooltest.Object(t, raw)["value"])), &ids); err != nil || len(ids) < 90 {
		t.Fatalf("axe.getRules(): %v, %v", ids, err)
	}
	for _, r := range former {
		if to, ok := renamed[r]; ok {
			r = to
		}
		if !slices.Contains(ids, r) {
			t.Errorf("the former rule %s is not an axe rule: accessibility_audit must keep it as its own", r)
		}
	}
}

// axe runs in the page's same-origin frames and shadow roots, is not
// taken for a module by the page's AMD loader, and says which frames it
// could not reach.
func TestAuditInjection(t *testing.T) {
	t.Parallel()
	other := serve(t, map[string]string{"/": `<!doctype html><html><body><img src="x.gif"></body></html>`})
	srv := serve(t, map[string]string{"/": `<!doctype html><html lang="en"><head><title>Frames</title>
<script>window.define = function () { window.defined = true; }; window.define.amd = {};</script></head>
<body><main><h1>Frames</h1>
<iframe title="other" src="` + other.URL + `/"></iframe>
<iframe title="same" srcdoc="<img src=y.gif>"></iframe>
<div id="host"></div>
<script>document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<img src=z.gif>';</script>
</main></body></html>`})
	s := session(t)
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)
	got := tooltest.Object(t, s.MustRun("accessibility_audit", `{"rules":["image-alt","frame-tested"]}`))
	if sel := fmt.Sprint(findings(t, got, "violations")["image-alt"]["selectors"]); sel != `[iframe[title="same"] >> img #host >>> img]` {
		t.Errorf("image-alt in a frame and a shadow root: %s", sel)
	}
	wantRules(t, "cross-origin frame", got, "incomplete", "frame-tested")
	if defined := tooltest.Object(t, s.MustRun("browser_evaluate", `{"expression":"window.defined === true"}`)); defined["value"] != false {
		t.Errorf("injecting axe-core called the page's AMD define")
	}
}

// A page with 2,000 faulty elements: each rule names at most maxNodes of
// them, and the findings stay within maxBytes, saying what was cut.
func TestAuditBounds(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`<!doctype html><html><title>Many</title><body><main><h1>Many</h1>`)
	for i := range 1000 {
		fmt.Fprintf(&b, `<img src="%s"><a href="/%d"></a>`, gif, i)
	}
	b.WriteString(`</main></body></html>`)
	srv := serve(t, map[string]string{"/": b.String()})
	s := session(t)
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)

	got := tooltest.Object(t, s.MustRun("accessibility_audit", `{}`))
	v := findings(t, got, "violations")
	for _, rule := range []string{"image-alt", "link-name"} {
		if v[rule]["count"] != float64(1000) || len(v[rule]["selectors"].([]any)) != defaultMaxNodes {
			t.Errorf("%s: count %v, %d selectors; want 1000 and %d", rule, v[rule]["count"], len(v[rule]["selectors"].([]any)), defaultMaxNodes)
		}
	}
	if got["nodes"].(float64) < 2000 || got["cut"] != true || !strings.Contains(fmt.Sprint(got["notes"]), "the first 5 elements of each rule (maxNodes)") {
		t.Errorf("nodes %v, cut %v, notes %v", got["nodes"], got["cut"], got["notes"])
	}

	// The most severe rule keeps the selectors that fit; the others are
	// left out, named.
	got = tooltest.Object(t, s.MustRun("accessibility_audit", `{"tags":["wcag2a"],"maxNodes":100,"maxBytes":2000}`))
	size := len(tooltest.Marshal(got["violations"])) + len(tooltest.Marshal(got["incomplete"]))
	kept := findings(t, got, "violations")
	shown := len(kept["image-alt"]["selectors"].([]any))
	if size > 2000 || len(kept) != 1 || shown < 10 || shown >= 100 || got["count"] != float64(3) || got["cut"] != true {
		t.Errorf("maxBytes 2000: %d bytes of findings, rules kept %v (image-alt with %d selectors) of %v, cut %v", size, slices.Collect(maps.Keys(kept)), shown, got["count"], got["cut"])
	}
	notes := fmt.Sprint(got["notes"])
	for _, want := range []string{"cut at maxBytes 2000", fmt.Sprintf("image-alt names %d of its 1000 elements", shown), "2 violated rules left out (",
		"link-name", "html-has-lang", "raise maxBytes (up to 90000)"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q: %s", want, notes)
		}
	}
}

// The vendored axe-core is the npm registry's file at the version
// scripts/test installs.
func TestAuditAxeVendored(t *testing.T) {
	dir := testbin.WebApps(t, "axe-core/package.json", "axe-core/axe.min.js")
	var pkg struct{ Version string }
	b, err := os.ReadFile(filepath.Join(dir, "axe-core", "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &pkg)
	}
	if err != nil || pkg.Version != AxeVersion {
		t.Fatalf("npm's axe-core is %q (%v), the vendored one %s: re-vendor with scripts/vendor-axe %s or pin the same version in scripts/test", pkg.Version, err, AxeVersion, pkg.Version)
	}
	npm, err := os.ReadFile(filepath.Join(dir, "axe-core", "axe.min.js"))
	if err != nil || !bytes.Equal(npm, []byte(axeSource)) {
		t.Errorf("axe/axe.min.js differs from npm's axe-core %s (%d and %d bytes, %v): re-vendor it with scripts/vendor-axe", AxeVersion, len(axeSource), len(npm), err)
	}
	if l, err := os.ReadFile("axe/LICENSE"); err != nil || !bytes.Contains(l, []byte("Mozilla Public License")) {
		t.Errorf("axe/LICENSE: %v", err)
	}
}

// todoApps are TodoMVC's examples the audit runs on: real applications of
// seven frameworks, no one here wrote.
var todoApps = []string{"vanillajs", "backbone", "react", "angularjs", "vue", "emberjs", "mithril"}

// On real applications, the audit reports exactly the violations (and the
// rules to review) that axe-core itself, npm's copy loaded by the page,
// finds with the same options: WCAG 2.2 AA and best practices.
func TestAuditWebApps(t *testing.T) {
	t.Parallel()
	dir := testbin.WebApps(t, "todomvc/examples/vanillajs/index.html", "axe-core/axe.min.js")
	npmAxe := filepath.Join(dir, "axe-core", "axe.min.js")
	var found atomic.Int64
	for _, app := range todoApps {
		t.Run(app, func(t *testing.T) {
			t.Parallel()
			// A server per app: each has an origin (and localStorage) of its own.
			mux := http.NewServeMux()
			mux.Handle("/", http.FileServer(http.Dir(filepath.Join(dir, "todomvc"))))
			mux.HandleFunc("/npm-axe.js", func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, npmAxe) })
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)
			page := `{"url":"` + srv.URL + `/examples/` + app + `/index.html"}`
			s := session(t)
			s.MustRun("browser_navigate", page)
			for _, todo := range []string{"Buy milk", "Write tests"} {
				s.MustRun("browser_type", `{"selector":"#new-todo","text":"`+todo+`","pressEnter":true}`)
			}
			loaded := func() {
				t.Helper()
				if got := tooltest.Object(t, s.MustRun("assert_count", `{"selector":"#todo-list li","equals":2}`)); got["passed"] != true {
					t.Fatalf("%s did not show its two todos: %v", app, got)
				}
			}
			loaded()

			// Each run on a fresh load of the same page (the todos kept).
			s.MustRun("browser_navigate", page)
			loaded()
			ours := tooltest.Object(t, s.MustRun("accessibility_audit", `{"maxNodes":1,"maxBytes":90000}`))
			if strings.Contains(fmt.Sprint(ours["notes"]), "maxBytes") {
				t.Fatalf("the audit was cut: %v", ours["notes"])
			}
			s.MustRun("browser_navigate", page)
			loaded()
			version := tooltest.Object(t, s.MustRun("browser_evaluate", `{"expression":"window.axe ? 'present' : new Promise((ok, fail) => { const s = document.createElement('script'); s.src = '/npm-axe.js'; s.onload = () => ok(axe.version); s.onerror = fail; document.head.append(s); })"}`))
			if version["value"] != AxeVersion {
				t.Fatalf("npm's axe-core in the page: %v, want %s", version["value"], AxeVersion)
			}
			raw := tooltest.Object(t, s.MustRun("browser_evaluate", `{"expression":"axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']}, resultTypes: ['violations', 'incomplete']}).then((r) => ({violations: r.violations.map((v) => v.id), incomplete: r.incomplete.map((v) => v.id)}))"}`))["value"]
			var theirs struct{ Violations, Incomplete []string }
			if err := json.Unmarshal([]byte(tooltest.Marshal(raw)), &theirs); err != nil {
				t.Fatalf("axe.run answered %v: %v", raw, err)
			}
			wantRules(t, app, ours, "violations", theirs.Violations...)
			wantRules(t, app, ours, "incomplete", theirs.Incomplete...)
			found.Add(int64(len(theirs.Violations)))
		})
	}
	t.Cleanup(func() {
		if found.Load() == 0 {
			t.Errorf("axe found no violation in any of %v: the comparison showed nothing", todoApps)
		}
	})
}
