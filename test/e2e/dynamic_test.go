package e2e

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// dynDir is the server's dynamic tools directory.
func (s *server) dynDir() string { return filepath.Join(s.home, ".barrhawk", "dynamic-tools") }

// mustFail calls a tool that must fail and checks the error mentions want.
func (s *server) mustFail(name string, args any, want ...string) string {
	s.t.Helper()
	out, isErr := s.call(name, args)
	if !isErr {
		s.t.Fatalf("%s(%v): want an error, got %s", name, args, out)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			s.t.Errorf("%s(%v): error %q does not mention %q", name, args, out, w)
		}
	}
	return out
}

func reverseArgs(code string) map[string]any {
	return map[string]any{
		"name": "reverse_string", "description": "Reverse a string",
		"schema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string", "description": "Text to reverse"}}, "required": []string{"text"}},
		"code":   code,
	}
}

// drain empties a notification channel.
func drain(ch chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

func TestDynamicToolCreateEditAndHotReload(t *testing.T) {
	t.Parallel()
	s := start(t, "BARRHAWK_MAX_IGORS=1")
	drain(s.listChanged)
	s.mustCall("dynamic_tool_create", reverseArgs("const text = args.text as string;\nreturn { reversed: text.split('').reverse().join('') };"))
	got := s.mustCall("reverse_string", map[string]any{"text": "abc"})
	if got["reversed"] != "cba" {
		t.Fatalf("reverse_string: %v", got)
	}
	select {
	case <-s.listChanged:
	case <-time.After(5 * time.Second):
		t.Fatal("no tools/list_changed after dynamic_tool_create")
	}
	// The schema is validated like a built-in tool's.
	s.mustFail("reverse_string", map[string]any{"text": 5}, "INVALID_ARGS", `"text"`)
	pids := s.igorPIDs()

	// Editing the file changes the answer within a second, with no Igor
	// restart, and the client hears of it.
	drain(s.listChanged)
	path := filepath.Join(s.dynDir(), "reverse_string.ts")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(src, []byte("return { reversed:"), []byte("return { edited: true, reversed:"), 1)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	saved := time.Now()
	if err := os.Rename(tmp, path); err != nil { // an editor's atomic save
		t.Fatal(err)
	}
	for {
		out, _ := s.call("reverse_string", map[string]any{"text": "abc"})
		if strings.Contains(out, `"edited":true`) {
			break
		}
		if time.Since(saved) > time.Second {
			t.Fatalf("the edit did not take effect within 1 s: %s", out)
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case <-s.listChanged:
	case <-time.After(5 * time.Second):
		t.Fatal("no tools/list_changed after the edit")
	}
	if after := s.igorPIDs(); fmt.Sprint(after) != fmt.Sprint(pids) {
		t.Fatalf("Igors restarted for a reload: %v then %v", pids, after)
	}

	// The seed's Method 2 file, verbatim, dropped into the directory.
	seed := `import type { DynamicTool } from '../../shared/types.js';

export const tool: DynamicTool = {
  name: 'shout',
  description: 'Upper-case a string',
  schema: {
    type: 'object',
    properties: {
      text: {
        type: 'string',
        description: 'Text to shout'
      }
    },
    required: ['text']
  },
  async handler(args: Record<string, unknown>) {
    const text = args.text as string;
    return { shouted: text.toUpperCase() };
  },
};
`
	if err := os.WriteFile(filepath.Join(s.dynDir(), "shout.ts"), []byte(seed), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "shout to load", func() bool {
		_, err := s.session.CallTool(t.Context(), callParams("shout", map[string]any{"text": "hi"}))
		return err == nil
	})
	if got := s.mustCall("shout", map[string]any{"text": "hi"}); got["shouted"] != "HI" {
		t.Fatalf("shout: %v", got)
	}

	// Deleting the file unregisters the tool; protected tools stay.
	s.mustCall("dynamic_tool_delete", map[string]any{"name": "shout"})
	if _, err := s.session.CallTool(t.Context(), callParams("shout", map[string]any{"text": "hi"})); err == nil || !strings.Contains(err.Error(), "UNKNOWN_TOOL") {
		t.Fatalf("shout after delete: %v", err)
	}
	s.mustFail("dynamic_tool_delete", map[string]any{"name": "hello_world"}, "FORBIDDEN", "protected")
	s.mustFail("dynamic_tool_delete", map[string]any{"name": "hash_text"}, "FORBIDDEN", "built-in")
	s.mustFail("dynamic_tool_delete", map[string]any{"name": "nope"}, "NOT_FOUND")
}

func TestDynamicToolRefusals(t *testing.T) {
	t.Parallel()
	s := start(t, "BARRHAWK_MAX_IGORS=1")
	bad := func(name, code string, want ...string) {
		t.Helper()
		args := reverseArgs(code)
		args["name"] = name
		s.mustFail("dynamic_tool_create", args, want...)
	}
	bad("syntax_error", "const x = ;\nreturn x;", "INVALID_ARGS", "syntax_error.ts:")
	bad("uses_eval", "const a = 1;\nreturn eval('1+1');", "INVALID_ARGS", "eval(", "code line 2")
	bad("uses_require", "const fs = require('fs');\nreturn fs.readFileSync('/etc/passwd');", "INVALID_ARGS", "require(")
	bad("exits", "process.exit(1);", "INVALID_ARGS", "process.exit")
	bad("proto", "({}).__proto__.x = 1; return 1;", "INVALID_ARGS", "__proto__")
	bad("hash_text", "return 1;", "FORBIDDEN", "built-in")
	bad("dynamic_tool_create", "return 1;", "FORBIDDEN", "protected")
	bad("Bad-Name", "return 1;", "INVALID_ARGS", "must match")

	// A broken file on disk is reported, and the other tools keep working.
	s.mustCall("dynamic_tool_create", reverseArgs("return { reversed: (args.text as string).split('').reverse().join('') };"))
	if err := os.WriteFile(filepath.Join(s.dynDir(), "broken.ts"), []byte("export const tool = {\n  name: 'broken',,\n};\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the broken file to be reported", func() bool {
		st := s.mustCall("worker_status", nil)
		dyn := st["dynamicTools"].(map[string]any)
		for _, b := range dyn["broken"].([]any) {
			if strings.Contains(fmt.Sprint(b), "broken.ts:2:") {
				return true
			}
		}
		return false
	})
	if got := s.mustCall("reverse_string", map[string]any{"text": "ab"}); got["reversed"] != "ba" {
		t.Fatalf("reverse_string beside a broken file: %v", got)
	}
	s.mustCall("hash_text", map[string]any{"text": "still fine"})
}

// hostile tools, each without the permission it would need: refused or
// contained with a clear error, while the front and every other tool keep
// working.
func TestHostileDynamicTools(t *testing.T) {
	t.Parallel()
	s := start(t, "BARRHAWK_MAX_IGORS=2", "DOCTOR_TOOL_TIMEOUT=3000", "BARRHAWK_IGOR_MEMORY_LIMIT=256MiB")
	s.mustCall("dynamic_tool_create", reverseArgs("return { reversed: (args.text as string).split('').reverse().join('') };"))
	create := func(name, code string, perms ...string) {
		t.Helper()
		args := map[string]any{"name": name, "description": "hostile " + name, "schema": map[string]any{"type": "object"}, "code": code}
		if len(perms) > 0 {
			args["permissions"] = perms
		}
		if name == "memory_bomb" {
			args["timeout"] = 30000 // ample time to reach the limit on a loaded machine
		}
		s.mustCall("dynamic_tool_create", args)
	}
	healthy := func(after string) {
		t.Helper()
		if got := s.mustCall("reverse_string", map[string]any{"text": "ok"}); got["reversed"] != "ko" {
			t.Fatalf("after %s: reverse_string = %v", after, got)
		}
		s.mustCall("hash_text", map[string]any{"text": after})
	}
	for _, tc := range []struct {
		name, code string
		want       []string
	}{
		{"read_file", "return ctx.fs.readFile('/etc/passwd');", []string{"filesystem permission"}},
		{"open_socket", "const r = await ctx.fetch('http://127.0.0.1:1/'); return r.status;", []string{"network permission"}},
		{"global_fetch", "const r = await fetch('http://127.0.0.1:1/'); return r.status;", []string{"fetch"}},
		{"spawn_process", "const cp = (globalThis as any).process; return cp.mainModule;", []string{"TOOL_ERROR"}},
		{"read_env", "return (globalThis as any).process.env.HOME;", []string{"TOOL_ERROR"}},
		{"sync_loop", "while (true) {}", []string{"TIMEOUT"}},
		{"async_loop", "while (true) { await null; }", []string{"TIMEOUT"}},
		{"never_settles", "await new Promise(() => {}); return 1;", []string{"TIMEOUT"}},
		{"memory_bomb", "const a: string[] = []; while (true) { a.push('x'.repeat((1 << 22) + a.length)); }", []string{"MEMORY_LIMIT", "memory limit"}},
	} {
		create(tc.name, tc.code)
		s.mustFail(tc.name, map[string]any{}, tc.want...)
		healthy(tc.name)
	}
	// Prototype tampering does not leak into other calls.
	create("tamper", "(Object.prototype as any).polluted = 'yes'; (Array.prototype as any).push = () => 0; return 'done';")
	s.call("tamper", map[string]any{})
	create("probe", "const a: number[] = []; a.push(1); return { polluted: ({} as any).polluted ?? null, length: a.length };")
	got := s.mustCall("probe", map[string]any{})
	if got["polluted"] != nil || got["length"] != float64(1) {
		t.Fatalf("tampering leaked: %v", got)
	}
	healthy("tamper")
}

func TestDynamicToolPermissions(t *testing.T) {
	t.Parallel()
	s := start(t, "BARRHAWK_MAX_IGORS=1")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"path":%q}`, r.URL.Path)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	s.mustCall("dynamic_tool_create", map[string]any{
		"name": "api_get", "description": "GET a URL", "permissions": []string{"network"},
		"schema": map[string]any{"type": "object", "properties": map[string]any{"url": map[string]any{"type": "string", "description": "URL"}}, "required": []string{"url"}},
		"code":   "const r = await ctx.fetch(args.url); return { status: r.status, body: r.json() };",
	})
	got := s.mustCall("api_get", map[string]any{"url": "http://" + ln.Addr().String() + "/health"})
	if got["status"] != float64(200) || got["body"].(map[string]any)["path"] != "/health" {
		t.Fatalf("api_get: %v", got)
	}
	s.mustCall("dynamic_tool_create", map[string]any{
		"name": "notes", "description": "Write and read a note", "permissions": []string{"filesystem"},
		"schema": map[string]any{"type": "object"},
		"code":   "ctx.fs.writeFile('note.txt', 'hello'); return { note: ctx.fs.readFile('note.txt') };",
	})
	if got := s.mustCall("notes", map[string]any{}); got["note"] != "hello" {
		t.Fatalf("notes: %v", got)
	}
	if b, err := os.ReadFile(filepath.Join(s.home, ".barrhawk", "tool-files", "note.txt")); err != nil || string(b) != "hello" {
		t.Fatalf("the note is not in the tool-files directory: %q %v", b, err)
	}
	s.mustCall("dynamic_tool_create", map[string]any{
		"name": "escape", "description": "Try to leave the root", "permissions": []string{"filesystem"},
		"schema": map[string]any{"type": "object"},
		"code":   "return ctx.fs.readFile('../../../../etc/passwd');",
	})
	s.mustFail("escape", map[string]any{}, "FORBIDDEN", "outside")
}

func TestSnapshotsAndRollback(t *testing.T) {
	t.Parallel()
	s := start(t, "BARRHAWK_MAX_IGORS=1")
	s.mustCall("dynamic_tool_create", reverseArgs("return { reversed: (args.text as string).split('').reverse().join('') };"))
	snap := s.mustCall("worker_snapshot", map[string]any{"name": "good"})
	id := snap["snapshot"].(string)
	if !strings.HasPrefix(id, "good_") {
		t.Fatalf("worker_snapshot: %v", snap)
	}
	before := readDir(t, s.dynDir())

	// Change one tool, add another.
	s.mustCall("dynamic_tool_create", reverseArgs("return { reversed: 'changed' };"))
	s.mustCall("dynamic_tool_create", map[string]any{"name": "extra", "description": "extra", "schema": map[string]any{"type": "object"}, "code": "return 1;"})
	list := s.mustCall("worker_snapshots", nil)
	lines := fmt.Sprint(list["snapshots"])
	if !strings.Contains(lines, "initial_") || !strings.Contains(lines, id) {
		t.Fatalf("worker_snapshots: %v", list)
	}
	got := s.mustCall("worker_rollback", map[string]any{})
	if got["snapshot"] != id {
		t.Fatalf("rollback to latest: %v (want %s)", got, id)
	}
	if after := readDir(t, s.dynDir()); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("rollback did not restore exactly:\nbefore %v\nafter  %v", before, after)
	}
	if got := s.mustCall("reverse_string", map[string]any{"text": "ab"}); got["reversed"] != "ba" {
		t.Fatalf("after rollback: %v", got)
	}
	if _, err := s.session.CallTool(t.Context(), callParams("extra", nil)); err == nil {
		t.Fatal("extra is still registered after the rollback")
	}
	// "latest" never means the pre-rollback snapshot.
	got = s.mustCall("worker_rollback", map[string]any{})
	if got["snapshot"] != id {
		t.Fatalf("second rollback went to %v, want %s", got["snapshot"], id)
	}
	s.mustFail("worker_rollback", map[string]any{"snapshot": "nope_1"}, "NOT_FOUND")
}

// readDir maps each tool file of dir to its content.
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".d.ts") || e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	waitForLong(t, what, 10*time.Second, ok)
}

// waitForLong is waitFor with a deadline of its own.
func waitForLong(t *testing.T, what string, d time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A dynamic tool's own timeout replaces the default.
func TestDynamicToolTimeout(t *testing.T) {
	t.Parallel()
	s := start(t, "BARRHAWK_MAX_IGORS=1")
	s.mustCall("dynamic_tool_create", map[string]any{
		"name": "slow", "description": "waits", "schema": map[string]any{"type": "object"}, "timeout": 200,
		"code": "await new Promise((r) => setTimeout(r, 5000)); return 'late';",
	})
	s.mustFail("slow", map[string]any{}, "TIMEOUT", "within its 200ms timeout")
	s.mustFail("dynamic_tool_create", map[string]any{"name": "x", "description": "d", "schema": map[string]any{"type": "object"}, "code": "return 1;", "timeout": 0}, "INVALID_ARGS", "timeout")
}

// TestDynamicToolPhrases: a dynamic tool's phrases are indexed as a
// built-in tool's are, so tool_search finds it by words its name and
// description do not hold; a file declaring phrases that are not strings
// does not load, and says why.
func TestDynamicToolPhrases(t *testing.T) {
	t.Parallel()
	s := start(t, "BARRHAWK_MAX_IGORS=1")
	s.mustCall("dynamic_tool_create", map[string]any{
		"name": "ledger_lint", "description": "Check a ledger file",
		"schema":  map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string", "description": "The ledger"}}},
		"code":    "return { ok: true };",
		"phrases": []string{"balance the books", "double-entry bookkeeping mistakes"},
	})
	src, err := os.ReadFile(filepath.Join(s.dynDir(), "ledger_lint.ts"))
	if err != nil || !strings.Contains(string(src), `phrases: ["balance the books", "double-entry bookkeeping mistakes"],`) {
		t.Fatalf("the tool file lacks its phrases (%v):\n%s", err, src)
	}
	for _, q := range []string{"balance the books", "find double-entry bookkeeping mistakes"} {
		res := s.mustCall("tool_search", map[string]any{"query": q, "limit": 3})["results"].([]any)
		if len(res) == 0 || res[0].(map[string]any)["name"] != "ledger_lint" {
			t.Errorf("tool_search %q: want ledger_lint first, got %v", q, res)
		}
	}
	s.mustFail("dynamic_tool_create", map[string]any{
		"name": "bad_phrases", "description": "d", "schema": map[string]any{"type": "object"}, "code": "return 1;",
		"phrases": []string{strings.Repeat("x", 101)},
	}, "INVALID_ARGS", "tool.phrases[0] is 101 characters")

	bad := "export const tool = { name: 'odd_one', description: 'd', phrases: [7], handler() { return 1; } };\n"
	if err := os.WriteFile(filepath.Join(s.dynDir(), "odd_one.ts"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	out := s.mustCall("tools_reload", nil)
	if broken := fmt.Sprint(out["broken"]); !strings.Contains(broken, "tool.phrases[0] must be a string, got a number") {
		t.Errorf("tools_reload: want odd_one.ts broken by its phrases, got %v", out)
	}
}
