package browserassert

import (
	"context"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// An assertion with timeout 0 keeps looking as long as the call may, where
// one without a timeout gives up after the default (5 s): #late comes 6 s
// after the page loads.
func TestAssertionTimeoutZero(t *testing.T) {
	t.Parallel()
	srv := serve(t, map[string]string{"/": `<!doctype html><title>Late</title><script>setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p id=late>Here</p>'), 6000)</script>`})
	for _, c := range []struct {
		name, args string
		passed     bool
	}{
		{"zero", `{"selector":"#late","timeout":0}`, true},
		{"absent", `{"selector":"#late"}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := session(t)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			s.Ctx = ctx
			s.MustRun("browser_navigate", `{"url":"`+srv.URL+`"}`)
			got := tooltest.Object(t, s.MustRun("assert_visible", c.args))
			if got["passed"] != c.passed {
				t.Errorf("assert_visible %s of an element coming after 6 s: %v, want passed %v", c.args, got, c.passed)
			}
		})
	}
}
