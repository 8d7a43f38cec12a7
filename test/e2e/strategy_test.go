package e2e

import (
	"encoding/json"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tools/builtin"
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

// TestSpecializedDomainLanes: under the specialized strategy a tool of the
// browser domain (here a dynamic tool declaring the browser permission)
// runs on an Igor of the "domain:browser" lane, which loads only that
// domain's tools, and a utility tool on a "domain:general" Igor: the two
// never share a process.
func TestSpecializedDomainLanes(t *testing.T) {
	t.Parallel()
	// Five slots: one for the Igor that loads the dynamic tool, one per
	// domain, so that no Igor gives its slot up (and its count with it) to
	// another lane.
	s := startConfigured(t, "igors:\n  strategy: specialized\n  maxWorkers: 5\n")
	args := reverseArgs("return { reversed: (args.text as string).split('').reverse().join('') };")
	args["name"], args["permissions"] = "page_probe", []string{"browser"}
	s.mustCall("dynamic_tool_create", args)
	for range 3 {
		if got := s.mustCall("page_probe", map[string]any{"text": "abc"}); got["reversed"] != "cba" {
			t.Fatalf("page_probe: %v", got)
		}
		s.mustCall("hash_text", map[string]any{"text": "abc"})
		s.mustCall("db_sqlite_open", map[string]any{"path": ":memory:"})
		s.mustCall("fs_exists", map[string]any{"path": "."})
	}
	status := s.mustCall("worker_status", nil)
	b, _ := json.Marshal(status["pool"])
	var pool struct {
		Igors []struct {
			Lane        string `json:"lane"`
			PID         int    `json:"pid"`
			TasksDone   int64  `json:"tasksDone"`
			ToolsLoaded int    `json:"toolsLoaded"`
		} `json:"igors"`
	}
	if err := json.Unmarshal(b, &pool); err != nil {
		t.Fatal(err)
	}
	done := map[string]int64{}
	loaded := map[string]int{}
	for _, ig := range pool.Igors {
		done[ig.Lane] += ig.TasksDone
		loaded[ig.Lane] = ig.ToolsLoaded
	}
	for _, lane := range []string{"domain:browser", "domain:general", "domain:database", "domain:filesystem"} {
		if done[lane] < 3 {
			t.Fatalf("tasks by lane %v, want ≥3 on %s: %s", done, lane, b)
		}
	}
	// A domain Igor loads its domain's built-in tools and no others, and
	// the dynamic tools (page_probe here), which it may be sent.
	byCat := map[tool.Category]int{}
	for _, tl := range builtin.Tools() {
		byCat[tl.Category]++
	}
	for lane, cat := range map[string]tool.Category{"domain:browser": tool.CategoryBrowser, "domain:database": tool.CategoryDatabase, "domain:filesystem": tool.CategoryFilesystem} {
		if loaded[lane] != byCat[cat]+1 {
			t.Errorf("the %s Igor loads %d tools; its domain has %d, and one dynamic tool", lane, loaded[lane], byCat[cat])
		}
	}
}
