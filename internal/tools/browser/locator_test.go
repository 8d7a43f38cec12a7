package browser

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/browser/browsertest"
	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// pathJS names an element by its place in the tree (tag and index among
// its element siblings, from <html> down): the same element in two
// browsers showing the same state of a page has the same path.
const pathJS = `(el) => { const out = []; for (let e = el; e && e.nodeType === 1; e = e.parentElement) { out.unshift(e.localName + ':' + (e.parentElement ? [...e.parentElement.children].indexOf(e) : 0)); } return out.join('/'); }`

// todoItems are what the TodoMVC tests add; todoDone is the one completed.
var todoItems = []string{"Buy milk", "Walk the dog", "Write tests"}

const todoDone = "Walk the dog"

// todoMVC serves TodoMVC's vanilla JavaScript example (the npm package
// scripts/test installs) and returns its address.
func todoMVC(t *testing.T) string {
	t.Helper()
	apps := testbin.WebApps(t, "todomvc/examples/vanillajs/index.html")
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(apps, "todomvc", "examples"))))
	t.Cleanup(srv.Close)
	return srv.URL + "/vanillajs/index.html"
}

// TestGenerateLocatorTodoMVC generates locators for TodoMVC's elements and
// has Playwright itself (playwright-core, Debian's chromium) resolve them,
// on the same state of the page, to the same single elements; our
// selector form of each resolves to the same element in our engine.
func TestGenerateLocatorTodoMVC(t *testing.T) {
	core := playwrightCore(t)
	url := todoMVC(t)
	browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())
	s.MustRun("browser_navigate", `{"url":"`+url+`"}`)
	for _, item := range todoItems {
		s.MustRun("browser_type", `{"selector":"#new-todo","text":"`+item+`","pressEnter":true}`)
	}
	s.MustRun("browser_click", `{"selector":"#todo-list li:has-text(\"`+todoDone+`\") input.toggle"}`)

	// The elements, by selectors of ours that name them for sure.
	targets := map[string]string{
		"new todo":        "#new-todo",
		"toggle all":      "#toggle-all",
		"checkbox":        `#todo-list li:has-text("Buy milk") input.toggle`,
		"done checkbox":   `#todo-list li:has-text("Walk the dog") input.toggle`,
		"label":           `#todo-list li:has-text("Buy milk") label`,
		"destroy":         `#todo-list li:has-text("Write tests") button.destroy`,
		"filter all":      `#filters a[href="#/"]`,
		"filter active":   `#filters a[href="#/active"]`,
		"filter done":     `#filters a[href="#/completed"]`,
		"clear completed": "#clear-completed",
		"count":           "#todo-count",
		"heading":         "h1",
	}
	type gen struct {
		Name     string `json:"name"`
		Target   string `json:"target"`
		Path     string `json:"path"`
		Code     string `json:"code"`
		Selector string `json:"selector"`
	}
	var gens []gen
	for name, sel := range targets {
		got := obj(t, s, "browser_generate_locator", tooltest.Marshal(map[string]any{"selector": sel}))
		if got["unique"] != true || got["count"] != float64(1) {
			t.Errorf("%s: not unique: %v", name, got)
		}
		code, _ := got["locator"].(string)
		if !strings.HasPrefix(fmt.Sprint(got["code"]), "page.") || code == "" {
			t.Errorf("%s: no code: %v", name, got)
		}
		gens = append(gens, gen{Name: name, Target: sel, Path: pathOf(t, s, sel), Code: code, Selector: fmt.Sprint(got["selector"])})
		// Our selector form finds the same one element here.
		if n := obj(t, s, "browser_evaluate", tooltest.Marshal(map[string]any{"expression": "window.__bh.resolve(" + jsq(fmt.Sprint(got["selector"])) + ").length"}))["value"]; n != float64(1) {
			t.Errorf("%s: %s matches %v elements in our engine", name, got["selector"], n)
		}
		if p := pathOf(t, s, fmt.Sprint(got["selector"])); p != gens[len(gens)-1].Path {
			t.Errorf("%s: %s finds %s in our engine, want %s", name, got["selector"], p, gens[len(gens)-1].Path)
		}
		t.Logf("%-15s %-70s %s", name, code, got["kind"])
	}
	// The kinds Playwright prefers: role and name before CSS.
	for _, g := range gens {
		want := map[string]string{
			"new todo":      "getByRole('textbox', { name: 'What needs to be done?' })",
			"filter active": "getByRole('link', { name: 'Active' })",
			"label":         "getByText('Buy milk')",
		}[g.Name]
		if want != "" && g.Code != want {
			t.Errorf("%s: %s, want %s", g.Name, g.Code, want)
		}
	}

	// A ref from the snapshot gives the locator of its element.
	snap := fmt.Sprint(s.MustRun("browser_snapshot", `{}`))
	ref := refOn(t, snap, `button "Clear completed (1)"`)
	got := obj(t, s, "browser_generate_locator", `{"ref":"`+ref+`"}`)
	if got["locator"] != "getByRole('button', { name: 'Clear completed (1)' })" {
		t.Errorf("by ref %s: %v", ref, got)
	}

	// Playwright resolves each, on the same state of the page.
	spec, _ := json.Marshal(map[string]any{"url": url, "items": todoItems, "done": todoDone, "gens": gens})
	script := fmt.Sprintf(`const { chromium } = require(%q);
const spec = %s;
(async () => {
  const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await b.newPage();
  await page.goto(spec.url);
  for (const item of spec.items) { await page.locator('#new-todo').fill(item); await page.locator('#new-todo').press('Enter'); }
  await page.locator('#todo-list li').filter({ hasText: spec.done }).locator('input.toggle').click();
  const path = %s;
  const out = [];
  for (const g of spec.gens) {
    const byCode = new Function('page', 'return page.' + g.code)(page);
    const bySel = page.locator(g.selector);
    out.push({ name: g.name, code: await byCode.evaluateAll((els, f) => els.map(new Function('return ' + f)()), path.toString()),
      selector: await bySel.evaluateAll((els, f) => els.map(new Function('return ' + f)()), path.toString()) });
  }
  console.log(JSON.stringify(out));
  await b.close();
})().catch((e) => { console.error(e); process.exit(1); });`, core, spec, pathJS)
	out, err := exec.Command("node", "-e", script).Output()
	if ee, ok := err.(*exec.ExitError); ok {
		t.Fatalf("playwright: %v\n%s", err, ee.Stderr)
	} else if err != nil {
		t.Fatalf("playwright: %v", err)
	}
	var res []struct {
		Name     string   `json:"name"`
		Code     []string `json:"code"`
		Selector []string `json:"selector"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("playwright's answer %s: %v", out, err)
	}
	if len(res) != len(gens) {
		t.Fatalf("playwright answered %d locators of %d", len(res), len(gens))
	}
	for i, r := range res {
		g := gens[i]
		if len(r.Code) != 1 || r.Code[0] != g.Path {
			t.Errorf("%s: Playwright resolves page.%s to %v, want the one element %s", g.Name, g.Code, r.Code, g.Path)
		}
		if len(r.Selector) != 1 || r.Selector[0] != g.Path {
			t.Errorf("%s: Playwright resolves the selector %s to %v, want the one element %s", g.Name, g.Selector, r.Selector, g.Path)
		}
	}
}

// pathOf is the tree path (pathJS) of the element sel picks, in our browser.
func pathOf(t *testing.T, s *tooltest.Session, sel string) string {
	t.Helper()
	got := obj(t, s, "browser_evaluate", tooltest.Marshal(map[string]any{"expression": "(" + pathJS + ")(window.__bh.pick(" + jsq(sel) + "))"}))
	p, _ := got["value"].(string)
	if p == "" {
		t.Fatalf("no element for %s: %v", sel, got)
	}
	return p
}

// refOn is the ref of the snapshot line starting with line.
func refOn(t *testing.T, snap, line string) string {
	t.Helper()
	for _, l := range strings.Split(snap, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- "))
		if strings.HasPrefix(l, line) {
			if i := strings.Index(l, "[ref="); i >= 0 {
				return strings.TrimSuffix(l[i+5:], "]")
			}
		}
	}
	t.Fatalf("no %s in the snapshot:\n%s", line, snap)
	return ""
}

func TestGenerateLocatorBadInput(t *testing.T) {
	srv := appServer(t)
	browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)
	s.MustFailWith("browser_generate_locator", `{}`, tool.CodeInvalidArgs, "selector", "ref")
	s.MustFailWith("browser_generate_locator", `{"selector":"#user","ref":"e1"}`, tool.CodeInvalidArgs, "one of")
	s.MustFailWith("browser_generate_locator", `{"ref":"#user"}`, tool.CodeInvalidArgs, "not a snapshot ref")
	s.MustFailWith("browser_generate_locator", `{"ref":"e999"}`, tool.CodeElementNotFound, "e999")
	s.MustFail("browser_generate_locator", `{"selector":"#nobody","timeout":100}`, tool.CodeElementNotFound)
	// Elements of the app: label, test id, and a select (by its label).
	for sel, want := range map[string]string{
		"#user":                        "getByRole('textbox', { name: 'User' })",
		"[data-testid=submit-login]":   "getByRole('button', { name: 'Sign in' })",
		"#plan":                        "locator('#plan')",
		"#terms":                       "getByRole('checkbox', { name: 'I agree' })",
		"xpath=//p[@id='said']":        "locator('#said')",
		"role=button[name=\"Prompt\"]": "getByRole('button', { name: 'Prompt' })",
	} {
		got := obj(t, s, "browser_generate_locator", tooltest.Marshal(map[string]any{"selector": sel}))
		if got["locator"] != want || got["unique"] != true {
			t.Errorf("%s: %v, want %s", sel, got, want)
		}
	}
}
