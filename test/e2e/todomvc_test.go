package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
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

// TestTodoMVCStateAndNetwork: TodoMVC keeps its list in localStorage, so
// a storage state saved after adding items carries them into a new session
// (browser_session_new {storageState}); the tools read and change that
// storage as the app sees it; a session offline cannot reload the app
// from its server, and a route can answer for it.
func TestTodoMVCStateAndNetwork(t *testing.T) {
	t.Parallel()
	apps := testbin.WebApps(t, "todomvc/examples/vanillajs/index.html")
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(apps, "todomvc", "examples"))))
	defer srv.Close()
	s := startConfigured(t, "igors:\n  maxWorkers: 1\n")
	app := srv.URL + "/vanillajs/index.html"
	s.mustCall("browser_navigate", map[string]any{"url": app})
	for _, item := range []string{"Buy milk", "Walk the dog"} {
		s.mustCall("browser_type", map[string]any{"selector": `role=textbox[name="What needs to be done?"]`, "text": item, "pressEnter": true})
	}
	stored := s.mustCall("browser_localstorage_get", map[string]any{"key": "todos-vanillajs"})
	if v := fmt.Sprint(stored["value"]); !strings.Contains(v, "Buy milk") || !strings.Contains(v, "Walk the dog") {
		t.Fatalf("TodoMVC's localStorage: %v", stored)
	}
	saved := s.mustCall("browser_storage_state", map[string]any{"filename": "todo-state.json"})
	if fmt.Sprint(saved["origins"]) != "["+srv.URL+"]" {
		t.Errorf("storage state: %v", saved)
	}

	// A new session starts empty, and one from the state starts with the list.
	s.mustCall("browser_session_new", map[string]any{"id": "empty", "url": app})
	if got := s.mustCall("assert_count", map[string]any{"selector": "#todo-list li", "equals": 0}); got["passed"] != true {
		t.Errorf("a new session has items: %v", got)
	}
	s.mustCall("browser_session_new", map[string]any{"id": "restored", "storageState": "todo-state.json", "url": app})
	if got := s.mustCall("assert_count", map[string]any{"selector": "#todo-list li", "equals": 2, "timeout": 3000}); got["passed"] != true {
		t.Errorf("the restored session lacks the items: %v", got)
	}

	// The page reads what the tool writes: an item set in storage shows
	// after a reload.
	s.mustCall("browser_localstorage_set", map[string]any{"key": "todos-vanillajs", "value": `{"todos":[{"title":"Set by the tool","completed":true,"id":1}]}`})
	s.mustCall("browser_reload", map[string]any{})
	if got := s.mustCall("assert_text", map[string]any{"selector": "#todo-list li", "expected": "Set by the tool", "timeout": 3000}); got["passed"] != true {
		t.Errorf("the item set in localStorage: %v", got)
	}

	// Offline, the app's own page does not load; a route serves one.
	s.mustCall("browser_network_state_set", map[string]any{"state": "offline"})
	if out, isErr := s.call("browser_navigate", map[string]any{"url": app + "?offline"}); !isErr || !strings.Contains(out, "ERR_INTERNET_DISCONNECTED") {
		t.Errorf("navigating offline: %s", out)
	}
	s.mustCall("browser_network_state_set", map[string]any{"state": "online"})
	s.mustCall("browser_route", map[string]any{"pattern": "**/vanillajs/index.html", "status": 503, "body": "<h1>Down for maintenance</h1>", "contentType": "text/html"})
	s.mustCall("browser_navigate", map[string]any{"url": app})
	if got := s.mustCall("browser_get_text", map[string]any{"selector": "h1"}); got["text"] != "Down for maintenance" {
		t.Errorf("the mocked 503: %v", got)
	}
	reqs := s.mustCall("browser_network_requests", map[string]any{})
	if b, _ := json.Marshal(reqs); !strings.Contains(string(b), `"mocked":true`) || !strings.Contains(string(b), `"status":503`) {
		t.Errorf("the mocked request in the network record: %s", b)
	}
	s.mustCall("browser_unroute", map[string]any{})
	s.mustCall("browser_navigate", map[string]any{"url": app})
	if got := s.mustCall("assert_text", map[string]any{"selector": "h1", "expected": "todos"}); got["passed"] != true {
		t.Errorf("after unroute the app is back: %v", got)
	}
}
