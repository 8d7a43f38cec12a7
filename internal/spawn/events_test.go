package spawn

import (
	"slices"
	"strings"
	"testing"
)

// Lines in the form Claude Code 2.1 prints with -p --output-format
// stream-json --verbose.
var claudeRun = []string{
	`{"type":"system","subtype":"init","cwd":"/w","session_id":"s-1","tools":["Read","Write","Bash"],"model":"claude-sonnet-4-5","permissionMode":"default"}`,
	`{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"I will add the test."},{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/w/go.mod"}}],"usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":2}},"session_id":"s-1"}`,
	`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"module x"}]},"session_id":"s-1"}`,
	`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t2","name":"Write","input":{"file_path":"/w/x_test.go","content":"package x"}},{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"go test ./..."}}]}}`,
	`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t3","content":[{"type":"text","text":"permission denied"}],"is_error":true}]}}`,
	`{"type":"rate_limit_event","x":1}`,
	`{"type":"result","subtype":"success","is_error":false,"duration_ms":1200,"num_turns":3,"result":"Added x_test.go.","session_id":"s-1","total_cost_usd":0.0123,"usage":{"input_tokens":100,"output_tokens":40},"permission_denials":[{"tool_name":"Bash","tool_use_id":"t3","tool_input":{"command":"go test ./..."}}]}`,
}

func kinds(evs []Event) string {
	var k []string
	for _, e := range evs {
		k = append(k, string(e.Kind))
	}
	return strings.Join(k, ",")
}

func parseAll(t *testing.T, p Parser, lines []string) []Event {
	t.Helper()
	var all []Event
	for _, l := range lines {
		evs, err := p([]byte(l))
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		all = append(all, evs...)
	}
	return all
}

func TestParseClaude(t *testing.T) {
	evs := parseAll(t, ParseClaude, claudeRun)
	if got := kinds(evs); got != "init,text,tool_use,file_read,tool_result,tool_use,file_write,tool_use,tool_result,other,result" {
		t.Fatalf("kinds: %s", got)
	}
	if evs[0].Session != "s-1" || evs[0].Model != "claude-sonnet-4-5" || evs[1].Usage == nil || evs[1].Usage.CachedTokens != 2 {
		t.Errorf("init/usage: %+v %+v", evs[0], evs[1])
	}
	if evs[3].Path != "/w/go.mod" || evs[6].Path != "/w/x_test.go" || evs[4].Text != "module x" || !evs[8].IsError || evs[8].Text != "permission denied" {
		t.Errorf("files and results: %+v", evs)
	}
	r := evs[len(evs)-1]
	if r.Text != "Added x_test.go." || r.IsError || r.CostUSD == nil || *r.CostUSD != 0.0123 || r.Usage.OutputTokens != 40 ||
		len(r.Denials) != 1 || r.Denials[0].Tool != "Bash" || !strings.Contains(string(r.Denials[0].Input), "go test") {
		t.Errorf("result: %+v", r)
	}
	errRes, _ := ParseClaude([]byte(`{"type":"result","subtype":"error_max_turns","is_error":false}`))
	if !errRes[0].IsError || errRes[0].Text != "error_max_turns" {
		t.Errorf("an error subtype: %+v", errRes[0])
	}
	if _, err := ParseClaude([]byte("Error: not JSON")); err == nil {
		t.Error("a line that is not JSON must be an error")
	}
}

// Lines in the form Gemini CLI prints with -p --output-format stream-json
// (its JsonStreamEventType events).
var geminiRun = []string{
	`{"type":"init","timestamp":"2026-11-24T00:00:00Z","session_id":"g-1","model":"gemini-2.5-pro"}`,
	`{"type":"message","timestamp":"t","role":"user","content":"add a test"}`,
	`{"type":"message","timestamp":"t","role":"assistant","content":"Adding","delta":true}`,
	`{"type":"tool_use","timestamp":"t","tool_name":"write_file","tool_id":"c1","parameters":{"file_path":"/w/a_test.go","content":"x"}}`,
	`{"type":"tool_result","timestamp":"t","tool_id":"c1","status":"success","output":"ok"}`,
	`{"type":"tool_use","timestamp":"t","tool_name":"run_shell_command","tool_id":"c2","parameters":{"command":"rm -rf /"}}`,
	`{"type":"tool_result","timestamp":"t","tool_id":"c2","status":"error","output":"","error":{"type":"TOOL_EXECUTION_ERROR","message":"denied by policy"}}`,
	`{"type":"error","timestamp":"t","severity":"warning","message":"slow"}`,
	`{"type":"result","timestamp":"t","status":"success","stats":{"total_tokens":30,"input_tokens":20,"output_tokens":10,"cached":5,"input":15,"duration_ms":900,"tool_calls":2,"models":{}}}`,
}

func TestParseGemini(t *testing.T) {
	evs := parseAll(t, ParseGemini, geminiRun)
	if got := kinds(evs); got != "init,text,tool_use,file_write,tool_result,tool_use,tool_result,error,result" {
		t.Fatalf("kinds: %s", got)
	}
	if evs[3].Path != "/w/a_test.go" || !evs[6].IsError || !strings.Contains(evs[6].Text, "denied by policy") || evs[7].IsError {
		t.Errorf("events: %+v", evs)
	}
	r := evs[len(evs)-1]
	if r.IsError || r.Usage == nil || r.Usage.InputTokens != 20 || r.Usage.CachedTokens != 5 {
		t.Errorf("result: %+v", r)
	}
}

func TestArgs(t *testing.T) {
	a, err := ClaudeArgs("fix it", RunOptions{PermissionMode: "acceptEdits", AllowedTools: []string{"Read", "Bash(go test:*)"}, Dirs: []string{"/x"}})
	want := []string{"-p", "fix it", "--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits", "--allowedTools", "Read", "Bash(go test:*)", "--add-dir", "/x"}
	if err != nil || !slices.Equal(a, want) {
		t.Errorf("claude: %q %v", a, err)
	}
	for _, m := range []string{"bypassPermissions", "yolo", "whatever"} {
		if _, err := ClaudeArgs("x", RunOptions{PermissionMode: m}); err == nil {
			t.Errorf("claude mode %s accepted", m)
		}
		if _, err := GeminiArgs("x", RunOptions{PermissionMode: m}); err == nil {
			t.Errorf("gemini mode %s accepted", m)
		}
	}
	g, err := GeminiArgs("fix it", RunOptions{PermissionMode: "acceptEdits", Dirs: []string{"/a", "/b"}, Model: "m"})
	if err != nil || !slices.Equal(g, []string{"-p", "fix it", "--output-format", "stream-json", "--approval-mode", "auto_edit", "--model", "m", "--include-directories", "/a,/b"}) {
		t.Errorf("gemini: %q %v", g, err)
	}
	for _, args := range [][]string{a, g} {
		for _, f := range args {
			if strings.Contains(f, "dangerously") || f == "--yolo" || f == "-y" {
				t.Errorf("a flag that skips permissions: %q", args)
			}
		}
	}
}
