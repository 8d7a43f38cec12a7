package spawn

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func spawnRequest(t *testing.T, mode string) SpawnRequest {
	r := request(t, mode)
	r.Commands = nil // the manifest decides
	r.Env = map[string]string{"FAKE_MODE": mode}
	return SpawnRequest{Request: r}
}

// A denial is fixed (the command allowed) and the retry, in a fresh
// sandbox, succeeds.
func TestSpawnRecoversFromADenial(t *testing.T) {
	t.Parallel()
	req := spawnRequest(t, "needs-go")
	res, err := Spawn(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 2 || res.Status != "completed" || res.Summary != "Tests pass." || len(res.Escalations) != 1 || len(res.Unfixed) != 0 {
		t.Fatalf("result: %+v", res)
	}
	if f := res.Escalations[0].Applied[0]; f.Kind != "command" || f.Value != "go" {
		t.Errorf("fix: %+v", f)
	}
	if !strings.Contains(strings.Join(res.Manifest.Tools, " "), "Bash(go:*)") {
		t.Errorf("manifest tools: %v", res.Manifest.Tools)
	}
	// The retry's manifest is saved with it.
	if b, err := os.ReadFile(filepath.Join(req.StateDir, "attempt-2", "manifest.json")); err != nil || !strings.Contains(string(b), `"go"`) {
		t.Errorf("saved manifest: %s %v", b, err)
	}
}

// Moderate stops after one escalation; aggressive goes on.
func TestSpawnStopsAtTheLimit(t *testing.T) {
	t.Parallel()
	res, err := Spawn(context.Background(), spawnRequest(t, "needs-go-make"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 2 || res.Summary != "Blocked again." || len(res.Unfixed) != 1 || res.Unfixed[0].Fix == nil || res.Unfixed[0].Fix.Value != "make" {
		t.Fatalf("moderate: %+v", res)
	}
	req := spawnRequest(t, "needs-go-make")
	req.Recovery = RecoveryAggressive
	res, err = Spawn(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 3 || res.Summary != "All done." || len(res.Escalations) != 2 {
		t.Fatalf("aggressive: %+v", res)
	}
	// Interactive: a refusal stops, a yes applies.
	req = spawnRequest(t, "needs-go")
	req.Recovery = RecoveryInteractive
	var asked []string
	req.Ask = func(_ context.Context, q string) (bool, error) { asked = append(asked, q); return false, nil }
	res, err = Spawn(context.Background(), req, nil)
	if err != nil || res.Attempts != 1 || len(asked) != 1 || !strings.Contains(asked[0], `command "go"`) || len(res.Unfixed) != 1 {
		t.Fatalf("interactive no: %+v %v %v", res, asked, err)
	}
}

// A secret is given to the agent and appears in no file, event or result.
func TestSpawnRedactsSecrets(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-9f8e7d6c5b4a"
	req := spawnRequest(t, "ok")
	req.Secrets = map[string]string{"MY_SECRET": secret}
	req.Inject = []string{"MY_SECRET"}
	var texts []string
	res, err := Spawn(context.Background(), req, func(e Event) { texts = append(texts, e.Text) })
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(texts, "\n")
	if !strings.Contains(joined, "secret=[REDACTED]") || strings.Contains(joined, secret) {
		t.Errorf("events: %s", joined)
	}
	// Structured mode: the agent got a brief; one run was enough.
	prompt, _ := os.ReadFile(filepath.Join(req.StateDir, "attempt-1", "home", "prompt.txt"))
	if !strings.Contains(string(prompt), "# Task\n\nadd hello") || !strings.Contains(string(prompt), "Definition of done") || res.Attempts != 1 {
		t.Errorf("the prompt was not the brief (%d attempts): %s", res.Attempts, prompt)
	}
	err = filepath.WalkDir(req.StateDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if b, _ := os.ReadFile(p); strings.Contains(string(b), secret) {
			t.Errorf("%s holds the secret", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if stderr, _ := os.ReadFile(res.StderrLog); !strings.Contains(string(stderr), "secret=[REDACTED]") {
		t.Errorf("stderr: %s", stderr)
	}
	req = spawnRequest(t, "ok")
	req.Inject = []string{"NOT_GIVEN"}
	if _, err := Spawn(context.Background(), req, nil); err == nil || !strings.Contains(err.Error(), "NOT_GIVEN") {
		t.Errorf("a missing secret: %v", err)
	}
}

func TestEvaluate(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("all:\n"), 0o644)
	m := Evaluate("fix the typo in README", dir)
	tools := strings.Join(m.Tools, " ")
	if !strings.Contains(strings.Join(m.Commands, " "), "go") || !strings.Contains(tools, "Bash(go:*)") || !strings.Contains(tools, "Bash(make:*)") || m.Complexity != "low" {
		t.Errorf("manifest: %+v", m)
	}
	if c := Evaluate("refactor the storage layer across every package and migrate the schema", dir).Complexity; c != "high" {
		t.Errorf("complexity %s", c)
	}
	b := Brief("fix it", m)
	if !strings.Contains(b, "`go build ./...` and `go test ./...` pass") || !strings.Contains(b, "# Constraints") {
		t.Errorf("brief: %s", b)
	}
}

func TestDetect(t *testing.T) {
	evs := []Event{
		{Kind: EventToolResult, IsError: true, Text: "bash: cargo: command not found"},
		{Kind: EventToolResult, IsError: true, Text: "curl: (6) Could not resolve host: example.com"},
		{Kind: EventResult, Denials: []Denial{{Tool: "Write", Input: []byte(`{"file_path":"/etc/hosts"}`)}, {Tool: "WebFetch"}}},
	}
	ps := Detect(evs, "Error: environment variable API_TOKEN is not set")
	var got []string
	for _, p := range ps {
		if p.Fix != nil {
			got = append(got, p.Fix.Kind+"="+p.Fix.Value)
		} else {
			got = append(got, "unfixable")
		}
	}
	if strings.Join(got, ",") != "path=/etc,unfixable,command=cargo,unfixable,env=API_TOKEN" {
		t.Errorf("detect: %v", got)
	}
}
