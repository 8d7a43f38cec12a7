package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestLargeResultsCostNoIgor: a result over tools.maxResultBytes is cut
// with a note, one over tools.maxResultHardBytes answers RESULT_TOO_LARGE,
// and neither costs an Igor, even a 200 MB string from a dynamic tool.
func TestLargeResultsCostNoIgor(t *testing.T) {
	t.Parallel()
	s := start(t, "BARRHAWK_TEST_TOOLS=1", "BARRHAWK_MAX_IGORS=1", "BARRHAWK_IGOR_MEMORY_LIMIT=512MiB")
	s.mustCall("dynamic_tool_create", map[string]any{
		"name": "huge_text", "description": "Returns a string of n megabytes",
		"schema":  map[string]any{"type": "object", "properties": map[string]any{"mb": map[string]any{"type": "number"}}, "required": []string{"mb"}},
		"code":    "return 'x'.repeat(Math.round(args.mb * 1024 * 1024));",
		"timeout": 20000,
	})

	// 200 MB from JavaScript: refused before it leaves the runtime.
	s.mustFail("huge_text", map[string]any{"mb": 200}, "RESULT_TOO_LARGE", "tools.maxResultHardBytes", "not sent")
	// 1 MB: cut to the default 100 KB with a note on how to get the rest.
	out, isErr := s.call("huge_text", map[string]any{"mb": 1})
	if isErr || !strings.HasPrefix(out, strings.Repeat("x", 100_000)+"\n\n[BarrHawk cut this result: the first 100000 of 1048576 characters") {
		t.Errorf("1 MB string: want it cut with a note, got isError=%v %.120q…%.200q", isErr, out, out[max(0, len(out)-200):])
	}
	if len(out) > 101_000 {
		t.Errorf("cut result is %d bytes", len(out))
	}
	// The same from Go tools: a string, an object whose JSON is too long,
	// and a result over the hard bound.
	out, _ = s.call("fault_big_result", map[string]any{"bytes": 300_000})
	if !strings.Contains(out, "the first 100000 of 300000 bytes are shown") {
		t.Errorf("Go string: %.200q", out[max(0, len(out)-300):])
	}
	out, isErr = s.call("fault_big_result", map[string]any{"bytes": 300_000, "shape": "object"})
	if isErr || !strings.HasPrefix(out, `{"items":["oooo`) || !strings.Contains(out, "bytes of JSON are shown") {
		t.Errorf("Go object: want a prefix of its JSON and a note, got %.100q…", out)
	}
	s.mustFail("fault_big_result", map[string]any{"bytes": 20 << 20}, "RESULT_TOO_LARGE", "20971520")

	// A dynamic tool's object over the cut: the start of its JSON and a
	// note; a thrown document: its start and a note, as a TOOL_ERROR.
	s.mustCall("dynamic_tool_create", map[string]any{
		"name": "huge_object", "description": "Returns an object of n items",
		"schema": map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "number"}}, "required": []string{"n"}},
		"code":   "return { items: Array.from({ length: args.n }, (_, i) => ({ id: i, name: 'item ' + i })) };",
	})
	out, isErr = s.call("huge_object", map[string]any{"n": 20_000})
	if isErr || !strings.HasPrefix(out, `{"items":[{"id":0,"name":"item 0"},`) || !strings.Contains(out, "characters of JSON are shown (tools.maxResultBytes)") || len(out) > 101_000 {
		t.Errorf("dynamic object: want a prefix of its JSON and a note, got isError=%v %d bytes %.100q…", isErr, len(out), out)
	}
	s.mustCall("dynamic_tool_create", map[string]any{
		"name": "throws_document", "description": "Throws a 50 MB message",
		"schema": map[string]any{"type": "object"},
		"code":   "throw new Error('e'.repeat(50 * 1024 * 1024));",
	})
	out = s.mustFail("throws_document", map[string]any{}, "TOOL_ERROR", "BarrHawk cut this error message: the first 100000 of")
	if len(out) > 110_000 {
		t.Errorf("a thrown 50 MB message came back as %d bytes", len(out))
	}

	st := s.mustCall("worker_status", nil)
	if n := st["restartCount"].(float64); n != 0 {
		t.Errorf("large results cost %v Igor restarts: %v", n, st)
	}
	if got := s.mustCall("hash_text", map[string]any{"text": "abc", "algorithm": "md5"}); got["hash"] != "900150983cd24fb0d6963f7d28e17f72" {
		t.Errorf("after the large results: %v", got)
	}
}

// TestResultBoundsAreConfigurable: tools.maxResultBytes sets where results
// are cut.
func TestResultBoundsAreConfigurable(t *testing.T) {
	t.Parallel()
	s := startConfigured(t, "tools:\n  maxResultBytes: 2KB\n  maxResultHardBytes: 1MiB\n", "BARRHAWK_TEST_TOOLS=1")
	out, _ := s.call("fault_big_result", map[string]any{"bytes": 5000})
	if !strings.HasPrefix(out, strings.Repeat("s", 2000)+"\n\n[BarrHawk cut") {
		t.Errorf("want a cut at 2000 bytes, got %.100q", out)
	}
	s.mustFail("fault_big_result", map[string]any{"bytes": 2 << 20}, "RESULT_TOO_LARGE", "1048576-byte bound")
}

// TestMemoryDeathCostsOneIgor: a dynamic tool that runs its Igor out of
// memory, whether the Go runtime refuses one huge allocation (RLIMIT_AS:
// "fatal error: out of memory", exit status 2) or the heap grows past the
// watchdog, answers MEMORY_LIMIT and is not retried: one Igor dies per
// call, not two.
func TestMemoryDeathCostsOneIgor(t *testing.T) {
	t.Parallel()
	s := start(t, "BARRHAWK_MAX_IGORS=2", "BARRHAWK_IGOR_MEMORY_LIMIT=256MiB")
	create := func(name, code string) {
		t.Helper()
		s.mustCall("dynamic_tool_create", map[string]any{"name": name, "description": "runs out of memory", "schema": map[string]any{"type": "object"}, "code": code, "timeout": 30000})
	}
	create("one_huge_string", "return 'x'.repeat(8 * 1024 * 1024 * 1024);")
	create("growing_heap", "const a: string[] = []; for (let i = 0; i < 128; i++) a.push('x'.repeat(16 << 20) + i); return a.length;")
	restarts := func() float64 { return s.mustCall("worker_status", nil)["restartCount"].(float64) }
	for i, name := range []string{"one_huge_string", "growing_heap"} {
		s.mustFail(name, map[string]any{}, "MEMORY_LIMIT", "igors.memoryLimit", "not retried")
		deadline := time.Now().Add(10 * time.Second)
		for restarts() < float64(i+1) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if n := restarts(); n != float64(i+1) {
			t.Errorf("%s: %v Igor restarts after %d calls, want %d", name, n, i+1, i+1)
		}
	}
	if got := s.mustCall("hash_text", map[string]any{"text": "abc", "algorithm": "md5"}); got["hash"] != "900150983cd24fb0d6963f7d28e17f72" {
		t.Errorf("after the memory deaths: %v", got)
	}
}
