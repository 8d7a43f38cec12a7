package browserassert

import (
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/browser/browsertest"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func object(t *testing.T, s *tooltest.Session, name, args string) map[string]any {
	t.Helper()
	return tooltest.Object(t, s.MustRun(name, args))
}

// formPage is a form with a confirm dialog and a button opening the form
// again as a popup.
const formPage = `<!doctype html><title>Form</title>
<label>Name <input id="name"></label> <label><input type="checkbox" id="agree"> Agree</label>
<button id="ask" onclick="document.getElementById('out').textContent = String(confirm('Sure?'))">Ask</button><p id="out"></p>
<button id="open" onclick="window.open('/form')">Open</button>`

// The exported test answers a dialog with a handler set before the action
// that opened it, waits for a popup around the action that opened it,
// opens and switches tabs, writes each line for its tab's variable, and
// holds the form assertions.
func TestExportDialogsTabsAndPopups(t *testing.T) {
	srv := serve(t, map[string]string{"/form": formPage})
	browsertest.OutputDir(t)
	s := session(t)
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/form"}`)
	s.MustRun("browser_handle_dialog", `{"action":"dismiss","autoRespond":false}`)
	s.MustRun("browser_click", `{"selector":"#ask"}`)
	if got := object(t, s, "browser_handle_dialog", `{"action":"accept"}`); got["code"] != "page.once('dialog', (dialog) => dialog.accept());" {
		t.Errorf("handle_dialog code: %v", got["code"])
	}
	s.MustRun("browser_type", `{"selector":"#name","text":"Ada"}`)
	s.MustRun("browser_click", `{"selector":"#agree"}`)
	for args, want := range map[string]string{
		`{"selector":"#name","value":"Ada"}`:                  "await expect(page.locator('#name')).toHaveValue('Ada');",
		`{"selector":"#name","contains":"d"}`:                 "await expect(page.locator('#name')).toHaveValue(/d/);",
		`{"selector":"#name","matches":"^A.a$"}`:              "await expect(page.locator('#name')).toHaveValue(/^A.a$/);",
		`{"selector":"#agree"}`:                               "await expect(page.locator('#agree')).toBeChecked();",
		`{"selector":"#agree","checked":false,"timeout":100}`: "",
		`{"selector":"#name","value":"Bob","timeout":100}`:    "",
	} {
		name := "assert_value"
		if !strings.Contains(args, "#name") {
			name = "assert_checked"
		}
		got := object(t, s, name, args)
		if (got["passed"] == true) != (want != "") {
			t.Errorf("%s %s: passed %v: %v", name, args, got["passed"], got)
		}
		if want != "" && got["code"] != want {
			t.Errorf("%s %s: code %v, want %s", name, args, got["code"], want)
		}
	}
	s.MustFailWith("assert_value", `{"selector":"#name","value":"a","contains":"b"}`, tool.CodeInvalidArgs, "one of value")
	s.MustFailWith("assert_checked", `{"selector":"#out"}`, tool.CodeInvalidArgs, "not a checkbox")
	s.MustFailWith("assert_value", `{"selector":"#out","value":""}`, tool.CodeInvalidArgs, "not an input")

	s.MustRun("browser_click", `{"selector":"#open"}`)
	s.MustRun("browser_tabs", `{"action":"select","index":1}`)
	s.MustRun("assert_checked", `{"selector":"#agree","checked":false}`)
	s.MustRun("browser_tabs", `{"action":"new","url":"`+srv.URL+`/form"}`)
	s.MustRun("browser_tabs", `{"action":"select","index":0}`)
	s.MustRun("assert_text", `{"selector":"#out","expected":"true"}`)

	spec := object(t, s, "browser_export_test", `{"name":"form"}`)["code"].(string)
	for what, lines := range map[string][]string{
		"the dialog's handler set before the click that opens it": {
			"test('form', async ({ page, context }) => {",
			"  await page.goto('" + srv.URL + "/form');",
			"  page.once('dialog', (dialog) => dialog.accept());",
			"  await page.locator('#ask').click();",
			"  await page.locator('#name').fill('Ada');",
			"  await page.locator('#agree').click();",
		},
		"popups and tabs": {
			"  const popup1Promise = page.waitForEvent('popup');",
			"  await page.locator('#open').click();",
			"  const popup1 = await popup1Promise;",
			"  await popup1.bringToFront();",
			"  await expect(popup1.locator('#agree')).not.toBeChecked();",
			"  const page1 = await context.newPage();",
			"  await page1.goto('" + srv.URL + "/form');",
			"  await page.bringToFront();",
			"  await expect(page.locator('#out')).toContainText('true');",
			"});",
		},
	} {
		if want := strings.Join(lines, "\n"); !strings.Contains(spec, want) {
			t.Errorf("%s: the test\n%s\nlacks\n%s", what, spec, want)
		}
	}
}
