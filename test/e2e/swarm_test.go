package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestSwarmMapReduceOverIgors: a map-reduce of http_request over 20 URLs
// of a local server runs across at least 4 Igors and reduces into one
// report.
func TestSwarmMapReduceOverIgors(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(100 * time.Millisecond) // the calls overlap
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"path":%q}`, r.URL.Path)
	}))
	defer srv.Close()
	s := startConfigured(t, "igors:\n  maxWorkers: 4\n  maxTasksPerIgor: 5\n")
	var urls []any
	for i := range 20 {
		urls = append(urls, fmt.Sprintf("%s/item/%d", srv.URL, i))
	}
	got := s.mustCall("swarm_run", map[string]any{
		"strategy": "map-reduce",
		"map":      map[string]any{"tool": "http_request", "items": urls, "as": "url"},
		"reduce":   map[string]any{"reducer": "concat"},
	})
	if got["status"] != "succeeded" {
		t.Fatalf("map-reduce: %v", got)
	}
	if igors := got["igors"].([]any); len(igors) < 4 {
		t.Errorf("want the map spread over at least 4 Igors, got %v", igors)
	}
	report := got["result"].([]any)
	if len(report) != 20 {
		t.Fatalf("want one report of 20 answers, got %d", len(report))
	}
	for i, r := range report {
		resp := r.(map[string]any)
		if resp["status"] != 200.0 || resp["body"].(map[string]any)["path"] != fmt.Sprintf("/item/%d", i) {
			t.Errorf("answer %d: %v", i, resp)
		}
	}
}

// TestSwarmPipelineAndFailurePolicies: a pipeline passes a result on;
// abort and continue differ on a failing subtask.
func TestSwarmPipelineAndFailurePolicies(t *testing.T) {
	t.Parallel()
	s := start(t)
	got := s.mustCall("swarm_run", map[string]any{
		"strategy": "pipeline",
		"subtasks": []any{
			map[string]any{"id": "h", "tool": "hash_text", "args": map[string]any{"text": "abc", "algorithm": "md5"}},
			map[string]any{"id": "check", "tool": "assert_equals", "args": map[string]any{"expected": "900150983cd24fb0d6963f7d28e17f72", "actual": "${h.hash}"}},
		},
	})
	if got["status"] != "succeeded" || got["result"].(map[string]any)["passed"] != true {
		t.Errorf("pipeline: %v", got)
	}
	run := func(policy string) map[string]any {
		return s.mustCall("swarm_run", map[string]any{
			"onPartialFailure": policy,
			"subtasks": []any{
				map[string]any{"id": "bad", "tool": "hash_text", "args": map[string]any{"text": 5}},
				map[string]any{"id": "slow", "tool": "wait_ms", "args": map[string]any{"ms": 400}},
			},
		})
	}
	statuses := func(rep map[string]any) map[string]any {
		out := map[string]any{}
		for _, st := range rep["subtasks"].([]any) {
			out[st.(map[string]any)["id"].(string)] = st.(map[string]any)["status"]
		}
		return out
	}
	if st := statuses(run("abort")); st["bad"] != "failed" || st["slow"] != "cancelled" {
		t.Errorf("abort: %v", st)
	}
	if st := statuses(run("continue")); st["bad"] != "failed" || st["slow"] != "succeeded" {
		t.Errorf("continue: %v", st)
	}
	s.mustFail("swarm_run", map[string]any{"subtasks": []any{map[string]any{"id": "a", "tool": "swarm_run"}}}, "cannot run swarm_run")
}
