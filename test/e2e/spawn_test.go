package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeClaude is the stand-in CLI that prints Claude Code's stream-json.
func fakeClaude(t *testing.T) string {
	p, err := filepath.Abs("../../internal/spawn/testdata/fake-claude")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func spawnRepo(t *testing.T) string {
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return dir
}

// TestSpawnAgentOverMCP: spawn_agent runs a (fake) Claude Code in a
// worktree and answers with the branch, commits and summary; spawn_status
// and spawn_logs follow a run; spawn_cancel stops one.
func TestSpawnAgentOverMCP(t *testing.T) {
	t.Parallel()
	repo := spawnRepo(t)
	s := startConfigured(t, "spawn:\n  claudePath: "+fakeClaude(t)+"\n  idleTimeout: 30s\n", "FAKE_MODE=silent")
	got := s.mustCall("spawn_agent", map[string]any{"prompt": "add hello", "repo": repo, "wait": true})
	res, _ := got["result"].(map[string]any)
	if got["status"] != "completed" || got["phase"] != "done" || res == nil || res["summary"] != "Added hello.txt." ||
		len(res["commits"].([]any)) != 2 || !strings.HasPrefix(res["branch"].(string), "spawn/") {
		t.Fatalf("spawn_agent: %v", got)
	}
	if in, _ := got["integration"].(map[string]any); in == nil || !strings.HasSuffix(in["patch"].(string), ".patch") {
		t.Errorf("integration: %v", got["integration"])
	}
	id := got["id"].(string)
	if st := s.mustCall("spawn_status", map[string]any{"id": id}); st["status"] != "completed" {
		t.Errorf("spawn_status: %v", st)
	}
	if logs := s.mustCall("spawn_logs", map[string]any{"id": id}); !strings.Contains(logs["text"].(string), `"type":"result"`) || logs["done"] != true {
		t.Errorf("spawn_logs: %v", logs)
	}
	if out, isErr := s.call("spawn_status", map[string]any{"id": "nope"}); !isErr || !strings.Contains(out, "NOT_FOUND") {
		t.Errorf("an unknown id: %s", out)
	}

	// A silent agent (FAKE_MODE given as a secret), cancelled while it runs.
	got = s.mustCall("spawn_agent", map[string]any{"prompt": "wait", "repo": repo, "secrets": []string{"FAKE_MODE"}})
	id = got["id"].(string)
	waitFor(t, "the spawn to run", func() bool { return s.mustCall("spawn_status", map[string]any{"id": id})["phase"] == "running" })
	s.mustCall("spawn_cancel", map[string]any{"id": id})
	waitFor(t, "the spawn to stop", func() bool {
		st := s.mustCall("spawn_status", map[string]any{"id": id})
		return st["phase"] == "done" && st["status"] == "cancelled"
	})
}

// TestSpawnCommand: barrhawk spawn --wait prints the result; without
// --wait it prints an id and the run goes on in the background.
func TestSpawnCommand(t *testing.T) {
	t.Parallel()
	repo := spawnRepo(t)
	home := t.TempDir()
	cfg := filepath.Join(home, "barrhawk.yaml")
	os.WriteFile(cfg, []byte("spawn:\n  claudePath: "+fakeClaude(t)+"\n  dir: "+filepath.Join(home, "spawns")+"\n"), 0o644)
	cmd := exec.Command(bin, "spawn", "add hello", "--wait", "--repo", repo, "--config", cfg)
	cmd.Env = append(os.Environ(), "HOME="+home)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("spawn --wait: %v\n%s", err, out)
	}
	var st map[string]any
	if err := json.Unmarshal(out, &st); err != nil || st["status"] != "completed" {
		t.Fatalf("spawn --wait printed %s (%v)", out, err)
	}
	cmd = exec.Command(bin, "spawn", "add hello", "--repo", repo, "--config", cfg)
	cmd.Env = append(os.Environ(), "HOME="+home)
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("spawn: %v\n%s", err, out)
	}
	id := strings.TrimSpace(string(out))
	statusFile := filepath.Join(home, "spawns", id, "status.json")
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(statusFile); err == nil && strings.Contains(string(b), `"phase": "done"`) {
			if !strings.Contains(string(b), `"status": "completed"`) {
				t.Errorf("background spawn: %s", b)
			}
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the background spawn %q did not finish", id)
}
