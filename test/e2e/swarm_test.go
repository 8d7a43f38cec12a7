package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSwarmMapReduceOverIgors: a map-reduce of http_request over 20 URLs
// of a local server runs across at least 4 Igors and reduces into one
// report.
func TestSwarmMapReduceOverIgors(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The calls overlap: each Igor takes 5 of them at once, and no
		// Igor is free again before every one has started, even on a
		// loaded machine where Igors take long to start.
		time.Sleep(2 * time.Second)
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

// TestSquadSharesValuesAcrossIgors: a value one Igor sets in a squad,
// another Igor of the squad reads; the front's context tools see it too.
func TestSquadSharesValuesAcrossIgors(t *testing.T) {
	t.Parallel()
	s := startConfigured(t, "igors:\n  maxWorkers: 3\n  maxTasksPerIgor: 1\n")
	s.mustCall("dynamic_tool_create", map[string]any{
		"name": "squad_note", "description": "Set or read a squad value",
		"schema": map[string]any{"type": "object", "properties": map[string]any{"key": map[string]any{"type": "string"}, "value": map[string]any{}, "set": map[string]any{"type": "boolean"}}, "required": []string{"key"}},
		// Reads take long enough that the squad's second Igor is up before
		// the first is free again, on a loaded machine too.
		"code": "await new Promise(r => setTimeout(r, args.set ? 200 : 3000));\n" +
			"if (args.set) ctx.squad.set(args.key as string, args.value);\n" +
			"return { squad: ctx.squad ? ctx.squad.id : null, value: ctx.squad ? ctx.squad.get(args.key as string) : null };",
	})
	s.mustCall("squad_create", map[string]any{"name": "alpha", "size": 2})
	set := s.mustCall("squad_dispatch", map[string]any{"name": "alpha", "tasks": []any{
		map[string]any{"tool": "squad_note", "args": map[string]any{"key": "userId", "value": 123, "set": true}},
	}})
	setter := set["results"].([]any)[0].(map[string]any)
	if setter["status"] != "succeeded" || setter["igor"] == "" {
		t.Fatalf("set: %v", set)
	}
	read := s.mustCall("squad_dispatch", map[string]any{"name": "alpha", "tasks": []any{
		map[string]any{"tool": "squad_note", "args": map[string]any{"key": "userId"}},
		map[string]any{"tool": "squad_note", "args": map[string]any{"key": "userId"}},
	}})
	other := false
	for _, r := range read["results"].([]any) {
		r := r.(map[string]any)
		res, _ := r["result"].(map[string]any)
		if r["status"] != "succeeded" || res["squad"] != "alpha" || res["value"] != 123.0 {
			t.Errorf("read: %v", r)
		}
		other = other || r["igor"] != setter["igor"]
	}
	if !other {
		t.Errorf("want another Igor than the setter %v to read the value: %v", setter["igor"], read)
	}
	if got := s.mustCall("context_get", map[string]any{"squad": "alpha", "key": "userId"}); got["value"] != 123.0 {
		t.Errorf("context_get: %v", got)
	}
	s.mustCall("squad_dispatch", map[string]any{"name": "alpha", "tool": "context_set", "args": map[string]any{"key": "plan", "value": "B"}})
	if got := s.mustCall("squad_dispatch", map[string]any{"name": "alpha", "tool": "squad_note", "args": map[string]any{"key": "plan"}}); got["value"] != "B" {
		t.Errorf("a value set by context_set inside the squad: %v", got)
	}
	if sq := s.mustCall("worker_status", nil)["squads"].([]any); len(sq) != 1 || sq[0].(map[string]any)["name"] != "alpha" {
		t.Errorf("worker_status squads: %v", sq)
	}
	s.mustCall("squad_create", map[string]any{"name": "narrow", "toolBag": []string{"hash_*"}})
	s.mustFail("squad_dispatch", map[string]any{"name": "narrow", "tool": "wait_ms", "args": map[string]any{"ms": 1}}, "FORBIDDEN", "hash_*")
	s.mustFail("context_get", map[string]any{"key": "x"}, "INVALID_ARGS", "squad")
	s.mustCall("squad_dissolve", map[string]any{"name": "alpha"})
	s.mustFail("squad_dispatch", map[string]any{"name": "alpha", "tool": "hash_text", "args": map[string]any{"text": "a"}}, "NOT_FOUND", "narrow")
}

// TestSwarmReportsProgress: a client that sends a progress token hears as
// each subtask ends.
func TestSwarmReportsProgress(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	var mu sync.Mutex
	var seen []float64
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-progress", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			seen = append(seen, r.Params.Progress)
			mu.Unlock()
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session := connect(t, client, home, "2025-11-25")
	var subtasks []any
	for i := range 5 {
		subtasks = append(subtasks, map[string]any{"id": fmt.Sprintf("s%d", i), "tool": "wait_ms", "args": map[string]any{"ms": 20 * i}})
	}
	params := &mcp.CallToolParams{Name: "swarm_run", Arguments: map[string]any{"subtasks": subtasks}}
	params.SetProgressToken("swarm-1")
	res, err := session.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("swarm_run: %v %v", err, text(res))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(seen)
		mu.Unlock()
		if n >= 5 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 5 || !slices.IsSorted(seen) || seen[4] != 5 {
		t.Errorf("want progress 1..5 in order, got %v", seen)
	}
}
