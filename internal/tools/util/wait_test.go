package util

import (
	"context"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestWaitMs(t *testing.T) {
	t.Parallel()
	tooltest.WantJSON(t, "wait 0", run(t, "wait_ms", `{"ms":0}`), `{"waited":0,"requested":0}`)
	tooltest.WantJSON(t, "wait 0.0", run(t, "wait_ms", `{"ms":0.0}`), `{"waited":0,"requested":0}`)
	start := time.Now()
	got := run(t, "wait_ms", `{"ms":30}`)
	if elapsed := time.Since(start); elapsed < 30*time.Millisecond {
		t.Errorf("wait_ms 30 returned after %v", elapsed)
	}
	if got["requested"] != 30.0 {
		t.Errorf("requested = %v, want 30", got["requested"])
	}
	if w, ok := got["waited"].(float64); !ok || w < 30 {
		t.Errorf("waited = %v, want >= 30", got["waited"])
	}
}

func TestWaitMsCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(20*time.Millisecond, cancel)
	v, err := tooltest.RunContext(t, ctx, Tools(), "wait_ms", `{"ms":10000}`)
	if err == nil {
		t.Fatalf("wait_ms under a cancelled context returned %v, want CANCELLED", v)
	}
	if err.Code != tool.CodeCancelled {
		t.Fatalf("wait_ms cancelled: code %s (%s), want %s", err.Code, err.Message, tool.CodeCancelled)
	}
}

func TestWaitMsAlreadyCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range []string{`{"ms":0}`, `{"ms":30000}`} {
		if _, err := tooltest.RunContext(t, ctx, Tools(), "wait_ms", args); err == nil || err.Code != tool.CodeCancelled {
			t.Errorf("wait_ms(%s) with a done context: %v, want CANCELLED", args, err)
		}
	}
}

func TestWaitMsBadInput(t *testing.T) {
	t.Parallel()
	checkBad(t, []badInput{
		{"wait_ms", `{}`, []string{`"ms"`, "required"}},
		{"wait_ms", `{"ms":-1}`, []string{`"ms"`, ">= 0"}},
		{"wait_ms", `{"ms":30001}`, []string{`"ms"`, "<= 30000"}},
		{"wait_ms", `{"ms":"100"}`, []string{`"ms"`, "expected integer"}},
		{"wait_ms", `{"ms":1.5}`, []string{`"ms"`, "expected integer"}},
		{"wait_ms", `{"ms":null}`, []string{`"ms"`, "expected integer"}},
	})
}
