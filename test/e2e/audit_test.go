package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tools/browserassert"
)

// TestAccessibilityAuditOverMCP: accessibility_audit through the server
// and an Igor runs the vendored axe-core in real Chromium, twice on one
// page (the second run finds axe there), and bad input answers
// INVALID_ARGS naming what is accepted.
func TestAccessibilityAuditOverMCP(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><html><title>Shop</title><body><main><h1>Shop</h1>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><input id="q"><button></button></main></body></html>`)
	}))
	defer srv.Close()
	s := startConfigured(t, "igors:\n  maxWorkers: 1\n")
	s.mustCall("browser_navigate", map[string]any{"url": srv.URL + "/"})
	for range 2 {
		got := s.mustCall("accessibility_audit", map[string]any{"wcagVersion": "2.1", "bestPractice": false})
		var rules []string
		for _, v := range got["violations"].([]any) {
			rules = append(rules, v.(map[string]any)["rule"].(string))
		}
		slices.Sort(rules)
		if fmt.Sprint(rules) != "[button-name html-has-lang image-alt label]" || got["axeVersion"] != browserassert.AxeVersion {
			t.Errorf("violations %v, axe %v; want [button-name html-has-lang image-alt label] by axe %s", rules, got["axeVersion"], browserassert.AxeVersion)
		}
	}
	out, isErr := s.call("accessibility_audit", map[string]any{"rules": []string{"img-alt"}})
	if !isErr || !strings.Contains(out, "INVALID_ARGS") || !strings.Contains(out, `"img-alt"`) || !strings.Contains(out, "image-alt") {
		t.Errorf("an unknown rule: %s", out)
	}
}
