package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/testbin"
)

// TestTodoMVCWithPlaywrightSelectors drives TodoMVC, a real application
// no one here wrote (the todomvc package of the npm registry, in several
// frameworks), through the MCP tools with the selectors an agent writing
// Playwright would use: add items, toggle one, filter, clear completed.
func TestTodoMVCWithPlaywrightSelectors(t *testing.T) {
	t.Parallel()
	apps := testbin.WebApps(t, "todomvc/examples/vanillajs/index.html")
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(apps, "todomvc", "examples"))))
	defer srv.Close()
	s := startConfigured(t, "igors:\n  maxWorkers: 1\n")
	count := func(fw, sel string, want int) {
		t.Helper()
		if got := s.mustCall("assert_count", map[string]any{"selector": sel, "equals": want, "timeout": 3000}); got["passed"] != true {
			t.Errorf("%s: %s: %v", fw, sel, got)
		}
	}
	for _, fw := range []string{"vanillajs", "backbone", "angularjs", "knockoutjs", "react"} {
		s.mustCall("browser_navigate", map[string]any{"url": srv.URL + "/" + fw + "/index.html"})
		for _, item := range []string{"Buy milk", "Walk the dog", "Write tests"} {
			s.mustCall("browser_type", map[string]any{"selector": `role=textbox[name="What needs to be done?"]`, "text": item, "pressEnter": true})
		}
		count(fw, "#todo-list >> role=listitem", 3)
		count(fw, "text=/buy milk|write tests/i", 2)

		s.mustCall("browser_click", map[string]any{"selector": `#todo-list li:has-text("walk the dog") >> role=checkbox`})
		count(fw, "#todo-list >> role=checkbox[checked]", 1)
		if got := s.mustCall("assert_attribute", map[string]any{"selector": `#todo-list >> role=listitem >> internal:has-text="Walk the dog"i`, "name": "class", "value": "completed", "mode": "contains"}); got["passed"] != true {
			t.Errorf("%s: the toggled item is not completed: %v", fw, got)
		}

		s.mustCall("browser_click", map[string]any{"selector": `role=link[name="Active"]`})
		count(fw, "#todo-list li:visible", 2)
		if got := s.mustCall("assert_hidden", map[string]any{"selector": `#todo-list li:has-text("Walk the dog")`}); got["passed"] != true {
			t.Errorf("%s: the completed item shows under Active: %v", fw, got)
		}
		s.mustCall("browser_click", map[string]any{"selector": `role=link[name="Completed"s]`})
		count(fw, "#todo-list li:visible", 1)
		s.mustCall("browser_click", map[string]any{"selector": `#filters >> text="All"`})
		count(fw, "#todo-list li:visible", 3)

		s.mustCall("browser_click", map[string]any{"selector": `role=button[name=/clear completed/i]`})
		count(fw, "#todo-list >> role=listitem", 2)
		count(fw, `:nth-match(#todo-list li, 2):has-text("Write tests")`, 1)
		if got := s.mustCall("browser_get_text", map[string]any{"selector": "#todo-count"}); !strings.Contains(fmt.Sprint(got["text"]), "2 items left") {
			t.Errorf("%s: the count says %v", fw, got["text"])
		}
	}
}
