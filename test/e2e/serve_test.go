package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestStdioListAndCall(t *testing.T) {
	t.Parallel()
	s := startWith(t, []string{"--all-tools"}, "")
	ctx := context.Background()
	if err := s.session.Ping(ctx, nil); err != nil {
		t.Fatalf("ping: %v", err)
	}
	init := s.session.InitializeResult()
	if init.ServerInfo.Name != "barrhawk" || init.Capabilities.Tools == nil || !init.Capabilities.Tools.ListChanged {
		t.Fatalf("initialize: %+v", init)
	}
	var names []string
	var hash *mcp.Tool
	for tl, err := range s.session.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tl.Name)
		if tl.Name == "hash_text" {
			hash = tl
		}
	}
	// Every tool of the Beta README's tables, hello_world, json_validator
	// and the management tools.
	for _, n := range strings.Fields(`assert_equals assert_contains assert_truthy assert_type assert_range
		assert_json_schema data_generate data_edge_cases data_from_schema test_flaky_detect test_prioritize
		test_deduplicate test_coverage_gaps report_summary report_failures report_timing performance_regression
		string_diff regex_test template_render hash_text base64_encode json_format object_diff array_operations
		timestamp_now url_parse math_stats env_info http_status_info date_utils wait_ms random_choice
		hello_world json_validator worker_status worker_restart plan_read`) {
		if !strings.Contains(","+strings.Join(names, ",")+",", ","+n+",") {
			t.Errorf("tools/list lacks %s", n)
		}
	}
	if hash == nil {
		t.Fatal("tools/list lacks hash_text")
	}
	props := hash.InputSchema.(map[string]any)["properties"].(map[string]any)
	if _, ok := props["text"]; !ok {
		t.Errorf("hash_text schema has no text property: %v", hash.InputSchema)
	}

	got := s.mustCall("hash_text", map[string]any{"text": "hello", "algorithm": "sha256"})
	if got["hash"] != "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" {
		t.Fatalf("hash_text: %v", got)
	}

	// Tool failures are isError results that say what was wrong.
	for _, tc := range []struct {
		name string
		args any
		want []string
	}{
		{"hash_text", map[string]any{}, []string{"INVALID_ARGS", `"text"`, "required"}},
		{"hash_text", map[string]any{"text": 5}, []string{"INVALID_ARGS", `"text"`, "expected string, got number"}},
		{"hash_text", map[string]any{"text": "a", "algorithm": "crc"}, []string{"INVALID_ARGS", "algorithm", "sha256"}},
		{"plan_read", map[string]any{"path": "../secret.md"}, []string{"FORBIDDEN", ".."}},
		{"plan_read", map[string]any{"path": "/etc/passwd"}, []string{"FORBIDDEN", ".md"}},
		{"worker_restart", map[string]any{"id": "igor-99"}, []string{"NOT_FOUND", "igor-99"}},
	} {
		out, isErr := s.call(tc.name, tc.args)
		if !isErr {
			t.Errorf("%s(%v): want an error result, got %s", tc.name, tc.args, out)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s(%v): error %q does not mention %q", tc.name, tc.args, out, w)
			}
		}
	}

	// An unknown tool is a protocol error (MCP spec), naming the closest tool.
	_, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: "hash_txt", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "UNKNOWN_TOOL") || !strings.Contains(err.Error(), "did you mean hash_text") {
		t.Errorf("unknown tool: want a JSON-RPC error suggesting hash_text, got %v", err)
	}

	// Resources are the dynamic tools' snapshots and sources (the initial
	// snapshot here); prompts are not served, nor advertised.
	if r, err := s.session.ListResources(ctx, nil); err != nil || len(r.Resources) != 1 || !strings.HasPrefix(r.Resources[0].URI, "barrhawk://snapshots/initial_") {
		t.Errorf("resources/list: %v %v", r, err)
	}
	if c := s.session.InitializeResult().Capabilities; c.Prompts != nil {
		t.Errorf("prompts advertised, but none are served: %+v", c)
	}
	if err := s.session.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Errorf("logging/setLevel: %v", err)
	}

	st := s.mustCall("worker_status", nil)
	if h, ok := st["health"].(map[string]any); !ok || h["status"] != "healthy" || h["toolCount"].(float64) < 40 {
		t.Errorf("worker_status health (the seed's shape): %v", st["health"])
	}
	igors := st["pool"].(map[string]any)["igors"].([]any)
	if len(igors) == 0 {
		t.Fatalf("worker_status shows no Igor after a call: %v", st)
	}
	ig := igors[0].(map[string]any)
	if ig["pid"].(float64) <= 0 || ig["memory"].(float64) <= 0 || ig["tasksDone"].(float64) < 1 {
		t.Errorf("worker_status Igor: %v", ig)
	}
}

func TestPlanRead(t *testing.T) {
	t.Parallel()
	s := start(t)
	if err := os.WriteFile(filepath.Join(s.home, "PLAN.md"), []byte("# Plan\n\nShip it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := s.mustCall("plan_read", map[string]any{"path": filepath.Join(s.home, "PLAN.md")})
	if got["content"] != "# Plan\n\nShip it.\n" {
		t.Fatalf("plan_read: %v", got)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(s.home, "sneaky.md")); err != nil {
		t.Fatal(err)
	}
	if out, isErr := s.call("plan_read", map[string]any{"path": filepath.Join(s.home, "sneaky.md")}); !isErr || !strings.Contains(out, "FORBIDDEN") {
		t.Fatalf("plan_read through a symlink to a non-.md file: %s", out)
	}
	if out, isErr := s.call("plan_read", map[string]any{"path": filepath.Join(s.home, "none.md")}); !isErr || !strings.Contains(out, "NOT_FOUND") {
		t.Fatalf("plan_read of a missing file: %s", out)
	}
}

func TestStreamableHTTP(t *testing.T) {
	t.Parallel()
	addr := freePort(t)
	home := t.TempDir()
	cmd := exec.Command(bin, "serve", "--http", addr, "--stdio=false")
	cmd.Env = append(os.Environ(), "HOME="+home, "BARRHAWK_LOG_LEVEL=warn")
	cmd.Stderr = testWriter{t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("server exit after SIGINT: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("server did not exit within 10 s of SIGINT")
			_ = cmd.Process.Kill()
		}
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-http", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var session *mcp.ClientSession
	var err error
	for range 100 { // until the server listens
		session, err = client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/"}, nil)
		if err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("connect over HTTP: %v", err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "hash_text", Arguments: map[string]any{"text": "hello", "algorithm": "md5"}})
	if err != nil || res.IsError || !strings.Contains(text(res), "5d41402abc4b2a76b9719d911017c592") {
		t.Fatalf("hash_text over HTTP: %v %v", text(res), err)
	}
}

func TestHTTPRefusesRemoteAddress(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(bin, "serve", "--http", "0.0.0.0:0", "--stdio=false").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "not on loopback") {
		t.Fatalf("want a refusal naming loopback, got %v: %s", err, out)
	}
}

func TestCallCommand(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	run := func(args ...string) (string, string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "HOME="+home)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	out, _, err := run("call", "hash_text", `{"text":"abc","algorithm":"sha1"}`)
	if err != nil || !strings.Contains(out, "a9993e364706816aba3e25717850c26c9cd0d89d") {
		t.Fatalf("call hash_text: %v %s", err, out)
	}
	_, errOut, err := run("call", "hash_text", `{"text":`)
	if err == nil || !strings.Contains(errOut, "not valid JSON") {
		t.Fatalf("call with broken JSON: %v %s", err, errOut)
	}
	_, errOut, err = run("call", "nope")
	if err == nil || !strings.Contains(errOut, "UNKNOWN_TOOL") {
		t.Fatalf("call unknown: %v %s", err, errOut)
	}
	out, _, err = run("version")
	if err != nil || !strings.HasPrefix(out, "barrhawk ") {
		t.Fatalf("version: %v %s", err, out)
	}
}

// Requests piped in with stdin closed right after them are all answered
// before the server exits (the go-sdk stdio server alone drops them).
func TestPipedRequestsAllAnswered(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait_ms","arguments":{"ms":300}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"hash_text","arguments":{"text":"hello","algorithm":"md5"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`,
	}, "\n") + "\n"
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "BARRHAWK_LOG_LEVEL=error")
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("serve: %v", err)
	}
	for _, want := range []string{`"id":1,"result"`, `"id":2,"result"`, `"id":3,"result"`, `5d41402abc4b2a76b9719d911017c592`, `"id":4,"result"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("answers lack %s:\n%.600s", want, out)
		}
	}
}
