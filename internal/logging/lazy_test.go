package logging

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestWithWritesTheAttributesOnlyWithARecord(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	base := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	l := With(base, "tool", "hash_text", "task", "t7")
	l.Debug("not enabled")
	if buf.Len() != 0 {
		t.Fatalf("a disabled record was written: %s", buf.String())
	}
	l.Info("ran", "ms", 3)
	l.With("extra", 1).WithGroup("g").Warn("more", "k", "v")
	out := buf.String()
	for _, want := range []string{"msg=ran tool=hash_text task=t7 ms=3", "tool=hash_text task=t7 extra=1 g.k=v"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
