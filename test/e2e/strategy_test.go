package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTaskAndSwarmEvents: with events.tasks on, a swarm on one Igor that
// takes one task at a time leaves the whole story in events_recent: the
// swarm started and completed, tasks queued behind the busy Igor, each
// task started and completed, and the failing one failed with its error.
func TestTaskAndSwarmEvents(t *testing.T) {
	t.Parallel()
	s := startConfigured(t, "igors:\n  maxWorkers: 1\n  maxTasksPerIgor: 1\nevents:\n  tasks: true\n")
	got := s.mustCall("swarm_run", map[string]any{
		"onPartialFailure": "continue",
		"subtasks": []any{
			map[string]any{"id": "a", "tool": "wait_ms", "args": map[string]any{"ms": 50}},
			map[string]any{"id": "b", "tool": "wait_ms", "args": map[string]any{"ms": 50}},
			map[string]any{"id": "bad", "tool": "regex_test", "args": map[string]any{"pattern": "(", "text": "x"}},
		},
	})
	if got["status"] != "partial" {
		t.Fatalf("swarm: %v", got)
	}
	out := s.mustCall("events_recent", map[string]any{"types": []string{"task:*", "swarm:*"}, "limit": 50})
	var events []struct {
		Type, Tool, Reason string
	}
	b, _ := json.Marshal(out["events"])
	if err := json.Unmarshal(b, &events); err != nil {
		t.Fatalf("events: %v", out)
	}
	count := map[string]int{}
	for _, ev := range events {
		count[ev.Type]++
		if ev.Type == "task:failed" && (ev.Tool != "regex_test" || !strings.Contains(ev.Reason, "INVALID_ARGS") && !strings.Contains(ev.Reason, "TOOL_ERROR")) {
			t.Errorf("task:failed: %+v", ev)
		}
		if ev.Type == "swarm:completed" && !strings.Contains(ev.Reason, "partial: 3 subtasks, 1 failed") {
			t.Errorf("swarm:completed: %+v", ev)
		}
	}
	for typ, want := range map[string]int{"swarm:started": 1, "swarm:completed": 1, "task:started": 3, "task:completed": 2, "task:failed": 1} {
		if count[typ] != want {
			t.Errorf("%d %s events, want %d: %+v", count[typ], typ, want, events)
		}
	}
	if count["task:queued"] == 0 {
		t.Errorf("no task:queued while three tasks waited for one Igor: %+v", events)
	}
}
