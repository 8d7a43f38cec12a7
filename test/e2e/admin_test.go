package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The Beta HTTP API, served by the front with --admin.
func TestAdminAPI(t *testing.T) {
	t.Parallel()
	addr := freePort(t)
	const token = "s3cret-token"
	s := startWith(t, []string{"--admin", addr}, "", "BARRHAWK_ADMIN_TOKEN="+token, "BARRHAWK_MAX_IGORS=1")
	s.mustCall("dynamic_tool_create", reverseArgs("return { reversed: (args.text as string).split('').reverse().join('') };"))
	base := "http://" + addr
	do := func(method, path, body, tok string) (int, map[string]any, string) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		var resp *http.Response
		for range 100 { // until the admin listener is up
			if resp, err = http.DefaultClient.Do(req); err == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var v map[string]any
		_ = json.Unmarshal(raw, &v)
		return resp.StatusCode, v, string(raw)
	}
	if code, _, _ := do("GET", "/health", "", ""); code != http.StatusUnauthorized {
		t.Fatalf("no token: %d", code)
	}
	if code, _, _ := do("GET", "/health", "", "wrong"); code != http.StatusUnauthorized {
		t.Fatalf("wrong token: %d", code)
	}
	code, health, raw := do("GET", "/health", "", token)
	if code != 200 || health["status"] != "healthy" || health["toolCount"].(float64) < 40 {
		t.Fatalf("health: %d %s", code, raw)
	}
	code, _, raw = do("GET", "/tools", "", token)
	if code != 200 || !strings.Contains(raw, `"name":"reverse_string"`) || !strings.Contains(raw, `"inputSchema"`) {
		t.Fatalf("tools: %d %.300s", code, raw)
	}
	code, res, raw := do("POST", "/call", `{"tool":"reverse_string","args":{"text":"abc"}}`, token)
	if code != 200 || res["isError"] == true || !strings.Contains(raw, `cba`) {
		t.Fatalf("call: %d %s", code, raw)
	}
	code, res, raw = do("POST", "/call", `{"tool":"hash_text","args":{}}`, token)
	if code != 200 || res["isError"] != true || !strings.Contains(raw, "INVALID_ARGS") {
		t.Fatalf("failing call: %d %s", code, raw)
	}
	code, res, raw = do("POST", "/reload", "", token)
	if code != 200 || res["success"] != true || !strings.Contains(raw, "reverse_string") {
		t.Fatalf("reload: %d %s", code, raw)
	}
	if code, _, raw = do("DELETE", "/tools/hello_world", "", token); code != http.StatusForbidden {
		t.Fatalf("delete protected: %d %s", code, raw)
	}
	if code, _, raw = do("DELETE", "/tools/reverse_string", "", token); code != 200 {
		t.Fatalf("delete: %d %s", code, raw)
	}
	if code, _, raw = do("DELETE", "/tools/reverse_string", "", token); code != http.StatusNotFound {
		t.Fatalf("delete again: %d %s", code, raw)
	}
	if code, res, raw = do("POST", "/shutdown", "", token); code != 200 || res["success"] != true {
		t.Fatalf("shutdown: %d %s", code, raw)
	}
	// The server's end is seen through the session: the SDK's transport owns
	// the command and waits for it itself. A second cmd.Wait raced with the
	// transport's, and under load both took the process, then one waited
	// forever for the I/O results the other had read: the rare hang.
	done := make(chan error, 1)
	go func() { done <- s.session.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		// Ask Go for a goroutine dump on stderr (shown in the test log).
		_ = syscall.Kill(s.cmd.Process.Pid, syscall.SIGQUIT)
		<-done
		t.Fatal("the server did not stop within 30 s of POST /shutdown; goroutine dump above")
	}
	s.stop() // reaps it and checks nothing is left behind
}

// Igors crashing repeatedly with dynamic tools loaded roll the tools back to
// the last snapshot.
func TestAutoRecovery(t *testing.T) {
	t.Parallel()
	s := startConfigured(t, "tools:\n  recoveryCrashes: 2\n  recoveryWindow: 1m\nigors:\n  memoryLimit: 128MiB\n  maxWorkers: 1\n")
	s.mustCall("dynamic_tool_create", reverseArgs("return { reversed: (args.text as string).split('').reverse().join('') };"))
	good := s.mustCall("worker_snapshot", map[string]any{"name": "good"})["snapshot"].(string)
	s.mustCall("dynamic_tool_create", map[string]any{"name": "bomb", "description": "eats memory", "schema": map[string]any{"type": "object"},
		"code": "const a: string[] = []; while (true) { a.push('x'.repeat((1 << 25) + a.length)); }"})
	for range 2 {
		s.mustFail("bomb", map[string]any{}, "MEMORY_LIMIT")
	}
	waitFor(t, "the rollback", func() bool {
		_, err := s.session.CallTool(t.Context(), callParams("bomb", nil))
		return err != nil && strings.Contains(err.Error(), "UNKNOWN_TOOL")
	})
	if got := s.mustCall("reverse_string", map[string]any{"text": "ab"}); got["reversed"] != "ba" {
		t.Fatalf("after auto-recovery: %v", got)
	}
	st := s.mustCall("worker_snapshots", nil)
	if !strings.Contains(fmt.Sprint(st), "pre-rollback_") || !strings.Contains(fmt.Sprint(st), good) {
		t.Fatalf("snapshots after auto-recovery: %v", st)
	}
}

// A tool file whose top level kills every Igor that loads it is rolled
// back too, though it never loaded.
func TestAutoRecoveryFromAToolThatNeverLoads(t *testing.T) {
	t.Parallel()
	s := startConfigured(t, "tools:\n  recoveryCrashes: 2\nigors:\n  memoryLimit: 96MiB\n  maxWorkers: 1\n  spawnDelay: 10ms\n")
	s.mustCall("dynamic_tool_create", reverseArgs("return { reversed: (args.text as string).split('').reverse().join('') };"))
	s.mustCall("worker_snapshot", map[string]any{"name": "good"})
	bomb := "const a: string[] = [];\nwhile (true) { a.push('x'.repeat((1 << 25) + a.length)); }\nexport const tool = { name: 'never', description: 'd', async handler() { return 1; } };\n"
	if err := os.WriteFile(filepath.Join(s.dynDir(), "never.ts"), []byte(bomb), 0o644); err != nil {
		t.Fatal(err)
	}
	// Calls keep starting Igors, which load the file and die.
	waitFor(t, "the bomb file to be rolled back", func() bool {
		s.call("hash_text", map[string]any{"text": "x"})
		_, err := os.Stat(filepath.Join(s.dynDir(), "never.ts"))
		return os.IsNotExist(err)
	})
	waitFor(t, "reverse_string to answer again", func() bool {
		out, isErr := s.call("reverse_string", map[string]any{"text": "ab"})
		return !isErr && strings.Contains(out, `"ba"`)
	})
}
