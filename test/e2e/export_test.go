package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
)

// TestExportTestTodoMVC drives TodoMVC through the MCP tools (add three
// items, complete one by its snapshot ref, filter Active, assert, check a
// field's value, open a second tab and assert a checkbox there), exports
// the session with browser_export_test, and runs the file under
// `playwright test` (@playwright/test, Debian's chromium): it passes, and
// fails once one expected text in it is changed.
func TestExportTestTodoMVC(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed: run scripts/test, which installs it (apt-get install nodejs)")
	}
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Fatal("Debian's chromium is not installed: run scripts/test, which installs it (apt-get install chromium)")
	}
	runners := testbin.TestRunners(t, "@playwright/test/cli.js", "playwright-core/package.json")
	apps := testbin.WebApps(t, "todomvc/examples/vanillajs/index.html")
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(apps, "todomvc", "examples"))))
	defer srv.Close()
	url := srv.URL + "/vanillajs/index.html"
	s := startConfigured(t, "igors:\n  maxWorkers: 1\n")

	code := func(name string, args map[string]any) string {
		t.Helper()
		got := s.mustCall(name, args)
		c, _ := got["code"].(string)
		if c == "" {
			t.Errorf("%s %v: no code in %v", name, args, got)
		}
		return c
	}
	if c := code("browser_navigate", map[string]any{"url": url}); c != "await page.goto('"+url+"');" {
		t.Errorf("navigate: %s", c)
	}
	for _, item := range []string{"Buy milk", "Walk the dog", "Write tests"} {
		c := code("browser_type", map[string]any{"selector": `role=textbox[name="What needs to be done?"]`, "text": item, "pressEnter": true})
		if want := "await page.getByRole('textbox', { name: 'What needs to be done?' }).fill('" + item + "');\nawait page.getByRole('textbox', { name: 'What needs to be done?' }).press('Enter');"; c != want {
			t.Errorf("type: %s, want %s", c, want)
		}
	}
	// A ref means nothing in a test: the code names the element by its locator.
	snap, _ := s.call("browser_snapshot", map[string]any{})
	var refs []string
	for _, l := range strings.Split(snap, "\n") {
		if strings.Contains(l, "- checkbox") && !strings.Contains(l, "Mark all") {
			refs = append(refs, l[strings.Index(l, "[ref=")+5:len(l)-1])
		}
	}
	if len(refs) != 3 {
		t.Fatalf("the snapshot has %d item checkboxes:\n%s", len(refs), snap)
	}
	if c := code("browser_click", map[string]any{"selector": refs[1]}); c != "await page.getByRole('listitem').filter({ hasText: 'Walk the dog' }).getByRole('checkbox').click();" {
		t.Errorf("click by ref: %s", c)
	}
	s.mustCall("browser_wait", map[string]any{"timeout": 50}) // a sleep: left out of the test
	code("browser_click", map[string]any{"selector": "text=Active"})
	code("browser_wait", map[string]any{"selector": "#todo-list li"}) // two match: the code names the first
	if c := code("assert_count", map[string]any{"selector": "#todo-list li", "equals": 2}); c != "await expect(page.locator('#todo-list li')).toHaveCount(2);" {
		t.Errorf("assert_count: %s", c)
	}
	if c := code("assert_text", map[string]any{"selector": "#todo-count", "expected": "2 items left"}); c != "await expect(page.locator('#todo-count')).toContainText('2 items left');" {
		t.Errorf("assert_text: %s", c)
	}
	if c := code("assert_text", map[string]any{"selector": "#todo-list li", "expected": "Buy milk", "mode": "equals"}); c != "await expect(page.getByRole('listitem').filter({ hasText: 'Buy milk' })).toHaveText('Buy milk');" { // two match: the first, by its locator
		t.Errorf("assert_text on two elements: %s", c)
	}
	code("assert_url", map[string]any{"expected": "/active", "mode": "contains"})
	code("assert_title", map[string]any{"expected": "TodoMVC", "mode": "contains"})
	code("assert_visible", map[string]any{"selector": `role=link[name="Active"s]`})
	// A field's value, then a second tab (the same context: TodoMVC keeps
	// its items in localStorage) where a checkbox's state is asserted,
	// then back to the first.
	code("browser_type", map[string]any{"selector": "#new-todo", "text": "Call mom"})
	if c := code("assert_value", map[string]any{"selector": "#new-todo", "value": "Call mom"}); c != "await expect(page.locator('#new-todo')).toHaveValue('Call mom');" {
		t.Errorf("assert_value: %s", c)
	}
	if c := code("browser_tabs", map[string]any{"action": "new", "url": url}); c != "const page1 = await context.newPage();\nawait page.goto('"+url+"');" {
		t.Errorf("tabs new: %s", c)
	}
	if c := code("assert_checked", map[string]any{"selector": "#todo-list li.completed .toggle"}); c != "await expect(page.locator('#todo-list li.completed .toggle')).toBeChecked();" {
		t.Errorf("assert_checked: %s", c)
	}
	code("assert_checked", map[string]any{"selector": "#todo-list li:not(.completed) .toggle >> nth=0", "checked": false})
	code("browser_tabs", map[string]any{"action": "select", "index": 0})
	code("assert_value", map[string]any{"selector": "#new-todo", "contains": "mom"})
	// A failed assertion shows its code but is not part of the test.
	if got := s.mustCall("assert_text", map[string]any{"selector": "#todo-count", "expected": "9 items left", "timeout": 100}); got["passed"] != false || got["code"] == nil {
		t.Errorf("a failed assertion: %v", got)
	}

	// Inline, then to a file, relative to the server's working directory.
	inline := s.mustCall("browser_export_test", map[string]any{"name": "todo: filter active"})
	spec, _ := inline["code"].(string)
	if !strings.HasPrefix(spec, "import { test, expect } from '@playwright/test';") || !strings.Contains(spec, "test('todo: filter active', async ({ page, context }) => {") {
		t.Fatalf("the test file:\n%s", spec)
	}
	for _, want := range []string{"\n  await page1.goto('" + url + "');\n  await expect(page1.locator('#todo-list li.completed .toggle')).toBeChecked();\n", "\n  await page.bringToFront();\n  await expect(page.locator('#new-todo')).toHaveValue(/mom/);\n"} {
		if !strings.Contains(spec, want) {
			t.Errorf("the test lacks %q:\n%s", want, spec)
		}
	}
	for _, bad := range []string{"waitForTimeout", "9 items left", "'e", "snapshot"} {
		if strings.Contains(spec, bad) {
			t.Errorf("the test holds %q:\n%s", bad, spec)
		}
	}
	got := s.mustCall("browser_export_test", map[string]any{"name": "todo: filter active", "filename": "tests/todo.spec.ts"})
	path := filepath.Join(s.home, "tests", "todo.spec.ts")
	if got["path"] != path {
		t.Fatalf("export: %v, want the file at %s", got, path)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != spec {
		t.Fatalf("the file %s differs from the inline text (%v):\n%s", path, err, data)
	}
	t.Logf("the exported test:\n%s", data)
	if out, isErr := s.call("browser_export_test", map[string]any{"filename": "../outside.spec.ts"}); !isErr || !strings.Contains(out, "FORBIDDEN") {
		t.Errorf("a file outside the roots: %s", out)
	}

	// Playwright runs it, with Debian's chromium, in a directory of its own.
	dir := t.TempDir()
	config := `module.exports = { testDir: 'tests', timeout: 30000, expect: { timeout: 2000 }, reporter: 'line', workers: 1,
  use: { launchOptions: { executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] } } };`
	if err := os.WriteFile(filepath.Join(dir, "playwright.config.js"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "tests"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The spec imports @playwright/test: from the runners' node_modules.
	if err := os.Symlink(runners, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	run := func(spec string) (string, error) {
		if err := os.WriteFile(filepath.Join(dir, "tests", "todo.spec.ts"), []byte(spec), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("node", filepath.Join(runners, "@playwright", "test", "cli.js"), "test", "-c", "playwright.config.js")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1", "CI=1")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run(spec); err != nil {
		t.Fatalf("the exported test fails under playwright test: %v\n%s\n%s", err, out, spec)
	}
	// One expected text changed: it fails, on that text.
	changed := strings.Replace(spec, "'2 items left'", "'3 items left'", 1)
	if changed == spec {
		t.Fatalf("no '2 items left' in the test:\n%s", spec)
	}
	if out, err := run(changed); err == nil || !strings.Contains(out, "3 items left") {
		t.Fatalf("the changed test should fail on its expected text: %v\n%s", err, out)
	}
}
