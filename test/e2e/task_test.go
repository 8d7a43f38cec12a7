package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTasksOverMCP: jobs submitted with task_submit run in serve's
// embedded pool, in worktrees of the repository, and their state, log and
// artifacts come back; a running job is cancelled.
func TestTasksOverMCP(t *testing.T) {
	t.Parallel()
	repo := spawnRepo(t)
	s := startConfigured(t, "workers:\n  count: 2\n")
	got := s.mustCall("task_submit", map[string]any{"repo": repo, "build": []string{"echo building; echo result > out.txt"}, "test": []string{"test -s out.txt"}, "artifacts": []string{"*.txt"}})
	id := got["id"].(float64)
	st := s.mustCall("task_status", map[string]any{"id": id, "wait": true})
	out, _ := st["outcome"].(map[string]any)
	if st["state"] != "completed" || out == nil || out["status"] != "succeeded" || out["exitCode"] != float64(0) {
		t.Fatalf("task_status: %v", st)
	}
	if logs := s.mustCall("task_logs", map[string]any{"id": id}); !strings.Contains(logs["text"].(string), "building") {
		t.Errorf("task_logs: %v", logs)
	}
	arts := s.mustCall("task_artifacts", map[string]any{"id": id})["artifacts"].([]any)
	if len(arts) != 1 {
		t.Fatalf("task_artifacts: %v", arts)
	}
	if b, _ := os.ReadFile(arts[0].(map[string]any)["path"].(string)); string(b) != "result\n" {
		t.Errorf("artifact: %q", b)
	}
	// A failing job, and one cancelled while it runs.
	bad := s.mustCall("task_submit", map[string]any{"repo": repo, "test": []string{"exit 7"}})["id"].(float64)
	if st := s.mustCall("task_status", map[string]any{"id": bad, "wait": true}); st["state"] != "discarded" || st["outcome"].(map[string]any)["exitCode"] != float64(7) {
		t.Errorf("failing job: %v", st)
	}
	slow := s.mustCall("task_submit", map[string]any{"repo": repo, "build": []string{"sleep 60"}})["id"].(float64)
	waitFor(t, "the slow job to run", func() bool { return s.mustCall("task_status", map[string]any{"id": slow})["state"] == "running" })
	s.mustCall("task_cancel", map[string]any{"id": slow})
	if st := s.mustCall("task_status", map[string]any{"id": slow, "wait": true}); st["state"] != "cancelled" {
		t.Errorf("cancelled job: %v", st)
	}
	pool := s.mustCall("pool_status", nil)
	if pool["workers"] != float64(2) || !strings.HasSuffix(pool["db"].(string), "queue.db") || pool["byState"].(map[string]any)["completed"] != float64(1) {
		t.Errorf("pool_status: %v", pool)
	}
	if list := s.mustCall("task_list", nil); list["count"] != float64(3) {
		t.Errorf("task_list: %v", list)
	}
	if out, isErr := s.call("task_submit", map[string]any{"repo": repo}); !isErr || !strings.Contains(out, "build or a test command") {
		t.Errorf("a job with nothing to run: %s", out)
	}
	// A repository or ref that is wrong is refused, as by task submit, not
	// queued to be discarded by a worker.
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"repo": repo, "ref": "no-such-ref", "test": []string{"true"}}, `ref "no-such-ref" names no commit`},
		{map[string]any{"repo": t.TempDir(), "test": []string{"true"}}, "is not inside a git repository"},
		{map[string]any{"repo": filepath.Join(t.TempDir(), "gone"), "test": []string{"true"}}, "no such directory"},
	} {
		if out, isErr := s.call("task_submit", c.args); !isErr || !strings.Contains(out, "INVALID_ARGS") || !strings.Contains(out, c.want) {
			t.Errorf("task_submit %v: %s", c.args, out)
		}
	}
	if list := s.mustCall("task_list", nil); list["count"] != float64(3) {
		t.Errorf("task_list after refused submits: %v", list["count"])
	}
	if out, isErr := s.call("task_cancel", map[string]any{"id": id}); !isErr || !strings.Contains(out, "already ended (completed)") {
		t.Errorf("task_cancel of a completed job: %s", out)
	}
	if out, isErr := s.call("task_status", map[string]any{"id": 9999}); !isErr || !strings.Contains(out, "no job 9999") {
		t.Errorf("an unknown job: %s", out)
	}
	// No worktree left behind.
	if ents, _ := os.ReadDir(filepath.Join(repo, ".barrhawk", "worktrees")); len(ents) > 1 {
		t.Errorf("worktrees left: %v", ents)
	}
}
