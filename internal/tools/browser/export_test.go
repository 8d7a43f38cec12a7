package browser

import (
	"context"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/browser/browsertest"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestExportTestBadInput(t *testing.T) {
	srv := appServer(t)
	dir := t.TempDir()
	browsertest.OutputDir(t)
	s := tooltest.NewSession(t, Tools())
	s.Ctx = tool.WithRoots(context.Background(), []string{dir})
	s.MustFailWith("browser_export_test", `{}`, tool.CodeNotFound, "no browser runs")
	s.MustRun("browser_session_new", `{"id":"quiet"}`)
	s.MustFailWith("browser_export_test", `{}`, tool.CodeNotFound, "nothing was recorded", "quiet")
	s.MustFailWith("browser_export_test", `{"session":"nobody"}`, tool.CodeNotFound, "nobody")
	s.MustRun("browser_navigate", `{"url":"`+srv.URL+`/"}`)
	s.MustFail("browser_export_test", `{"filename":"../outside.spec.ts"}`, tool.CodeForbidden)
	s.MustFail("browser_export_test", `{"filename":"/etc/barrhawk.spec.ts"}`, tool.CodeForbidden)
	got := obj(t, s, "browser_export_test", `{"filename":"flow.ts"}`)
	if got["note"] == nil || got["steps"] != float64(1) {
		t.Errorf("a name playwright test does not find should be noted: %v", got)
	}
	// Sessions keep their own steps.
	s.MustRun("browser_session_switch", `{"id":"default"}`)
	if _, err := s.Run("browser_export_test", `{}`); err == nil || !strings.Contains(err.Message, "default") {
		t.Errorf("the default session recorded nothing: %v", err)
	}
}
