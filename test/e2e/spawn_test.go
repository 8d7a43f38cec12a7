package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/barrhawk/barrhawk/internal/testsupport/lockedbuf"
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

// TestSpawnWaitWithProgressAndPR: spawn_agent {wait: true} sends progress
// notifications as the agent works, then pushes the branch to the (local,
// bare) origin and opens a pull request on a local server that answers
// GitHub's REST endpoint.
func TestSpawnWaitWithProgressAndPR(t *testing.T) {
	t.Parallel()
	repo := spawnRepo(t)
	bare := githubOrigin(t, repo)
	var prs []map[string]string
	var mu sync.Mutex
	gh := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The token: gh's login below, unless GITHUB_TOKEN is set where the
		// tests run (it comes first).
		want := "gh-test-token"
		if env := os.Getenv("GITHUB_TOKEN"); env != "" {
			want = env
		}
		if r.URL.Path != "/repos/acme/app/pulls" || r.Header.Get("Authorization") != "Bearer "+want {
			http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
			return
		}
		var pr map[string]string
		json.NewDecoder(r.Body).Decode(&pr)
		mu.Lock()
		prs = append(prs, pr)
		mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"number":1,"html_url":"https://github.com/acme/app/pull/1"}`)
	}))
	defer gh.Close()
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "barrhawk.yaml"), []byte("spawn:\n  claudePath: "+fakeClaude(t)+"\n  githubApi: "+gh.URL+"\n"), 0o644)
	var progress []string
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-spawn", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, r.Params.Message)
			mu.Unlock()
		},
	})
	// The token from gh's login, as a user who ran `gh auth login` has it
	// (the server's HOME is home).
	os.MkdirAll(filepath.Join(home, ".config", "gh"), 0o700)
	os.WriteFile(filepath.Join(home, ".config", "gh", "hosts.yml"), []byte("github.com:\n    oauth_token: gh-test-token\n    user: ada\n"), 0o600)
	session := connect(t, client, home, "2025-11-25")
	params := &mcp.CallToolParams{Name: "spawn_agent", Arguments: map[string]any{"prompt": "add hello", "repo": repo, "wait": true, "pr": true}}
	params.SetProgressToken("spawn-1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := session.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("spawn_agent: %v %s", err, text(res))
	}
	out := text(res)
	if !strings.Contains(out, `"prUrl":"https://github.com/acme/app/pull/1"`) || !strings.Contains(out, `"pushed":true`) {
		t.Errorf("result: %s", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(prs) != 1 || !strings.HasPrefix(prs[0]["head"], "spawn/") || prs[0]["base"] != "main" || !strings.Contains(prs[0]["body"], "Added hello.txt.") {
		t.Errorf("pull requests: %v", prs)
	}
	if len(progress) < 3 || !strings.Contains(strings.Join(progress, "|"), "tool Write") {
		t.Errorf("progress: %v", progress)
	}
	if b, err := exec.Command("git", "-C", bare, "branch", "--list", "spawn/*").CombinedOutput(); err != nil || !strings.Contains(string(b), "spawn/") {
		t.Errorf("not pushed: %s %v", b, err)
	}
}

// TestSpawnInteractiveRecoveryAsksTheUser: under recovery interactive, the
// fix of a denial is put to the user through MCP elicitation; a yes runs
// the agent again with the command allowed.
func TestSpawnInteractiveRecoveryAsksTheUser(t *testing.T) {
	t.Parallel()
	repo := spawnRepo(t)
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "barrhawk.yaml"), []byte("spawn:\n  claudePath: "+fakeClaude(t)+"\n"), 0o644)
	// FAKE_MODE reaches the fake agent as a secret from the secrets directory.
	os.MkdirAll(filepath.Join(home, ".barrhawk", "secrets"), 0o700)
	os.WriteFile(filepath.Join(home, ".barrhawk", "secrets", "FAKE_MODE"), []byte("needs-go\n"), 0o600)
	var mu sync.Mutex
	var asked []string
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-elicit", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, r.Params.Message)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"allow": true}}, nil
		},
	})
	session := connect(t, client, home, "2025-11-25")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "spawn_agent", Arguments: map[string]any{
		"prompt": "run the tests", "repo": repo, "wait": true, "recovery": "interactive", "secrets": []string{"FAKE_MODE"}}})
	if err != nil || res.IsError {
		t.Fatalf("spawn_agent: %v %s", err, text(res))
	}
	out := text(res)
	if !strings.Contains(out, `"summary":"Tests pass."`) || !strings.Contains(out, `"attempts":2`) {
		t.Errorf("result: %s", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || !strings.Contains(asked[0], `command "go"`) {
		t.Errorf("asked: %v", asked)
	}
}

// TestSpawnIsAnAgentJob: a spawn is a job of kind "agent" on the worker
// pool's queue. With no worker in the front (workers.count 0) it waits
// queued and can be cancelled before it runs; a pool started apart
// (barrhawk worker start, same queue and spawn dir) runs the next one, and
// the front's spawn_agent {wait: true} answers with its result.
func TestSpawnIsAnAgentJob(t *testing.T) {
	t.Parallel()
	repo := spawnRepo(t)
	shared := t.TempDir()
	db, spawns := filepath.Join(shared, "queue.db"), filepath.Join(shared, "spawns")
	yaml := "workers:\n  count: 0\n  db: " + db + "\nspawn:\n  claudePath: " + fakeClaude(t) + "\n  dir: " + spawns + "\n  idleTimeout: 30s\n"
	s := startConfigured(t, yaml)

	got := s.mustCall("spawn_agent", map[string]any{"prompt": "add hello", "repo": repo})
	id := got["id"].(string)
	st := s.mustCall("spawn_status", map[string]any{"id": id})
	if st["phase"] != "queued" || st["jobId"] == nil {
		t.Fatalf("a spawn with no worker: %v", st)
	}
	job := s.mustCall("task_status", map[string]any{"id": st["jobId"]})
	if job["kind"] != "agent" || job["state"] != "available" {
		t.Fatalf("its job: %v", job)
	}
	if a, _ := job["agent"].(map[string]any); a == nil || a["spawnId"] != id || a["prompt"] != "add hello" {
		t.Errorf("the job's agent: %v", job["agent"])
	}
	s.mustCall("spawn_cancel", map[string]any{"id": id})
	if st := s.mustCall("spawn_status", map[string]any{"id": id}); st["phase"] != "done" || st["status"] != "cancelled" {
		t.Errorf("cancelled while queued: %v", st)
	}
	if job := s.mustCall("task_status", map[string]any{"id": st["jobId"]}); job["state"] != "cancelled" {
		t.Errorf("its job after the cancel: %v", job)
	}

	cfg := filepath.Join(s.home, "barrhawk.yaml")
	pool := exec.Command(bin, "worker", "start", "--count", "1", "--config", cfg)
	pool.Env = append(pool.Environ(), "HOME="+s.home, "BARRHAWK_LOG_LEVEL=warn")
	pool.Stderr = testWriter{t}
	if err := pool.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		pool.Process.Signal(syscall.SIGTERM)
		pool.Wait()
	}()
	got = s.mustCall("spawn_agent", map[string]any{"prompt": "add hello", "repo": repo, "wait": true})
	res, _ := got["result"].(map[string]any)
	if got["status"] != "completed" || res == nil || res["summary"] != "Added hello.txt." {
		t.Fatalf("a spawn run by the pool: %v", got)
	}
	job = s.mustCall("task_status", map[string]any{"id": got["jobId"], "wait": true})
	if job["kind"] != "agent" || job["state"] != "completed" || len(job["attemptedBy"].([]any)) != 1 {
		t.Errorf("its job: %v", job)
	}
	if out, _ := job["agentOutcome"].(map[string]any); out == nil || out["status"] != "completed" {
		t.Errorf("the job's recorded outcome: %v", job["agentOutcome"])
	}
}

// A sub-agent's job whose worker dies once its integration began is never
// run again (it may have pushed, or opened a pull request): the job ends
// failed, and the spawn's status says how far it got and what was pushed.
// Here the worker is SIGKILLed while it pushes the branch to an origin
// whose pre-receive hook holds the push.
func TestSpawnWorkerKilledDuringIntegration(t *testing.T) {
	t.Parallel()
	repo := spawnRepo(t)
	bare := githubOrigin(t, repo)
	release := filepath.Join(t.TempDir(), "release")
	hook := "#!/bin/sh\nwhile [ ! -e " + release + " ]; do sleep 0.05; done\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bare, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.WriteFile(release, nil, 0o644) // the held push ends (refused) whatever happens
	shared := t.TempDir()
	db, spawns := filepath.Join(shared, "queue.db"), filepath.Join(shared, "spawns")
	s := startConfigured(t, "workers:\n  count: 0\n  db: "+db+"\nspawn:\n  claudePath: "+fakeClaude(t)+"\n  dir: "+spawns+"\n  idleTimeout: 30s\n")
	pool := exec.Command(bin, "worker", "start", "--count", "1", "--config", filepath.Join(s.home, "barrhawk.yaml"))
	pool.Env = append(pool.Environ(), "HOME="+s.home, "BARRHAWK_HOME="+filepath.Join(s.home, ".barrhawk"), "BARRHAWK_LOG_LEVEL=info")
	plog := &lockedbuf.Buffer{}
	pool.Stderr = plog
	if err := pool.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		pool.Process.Signal(syscall.SIGTERM)
		pool.Wait()
	}()
	got := s.mustCall("spawn_agent", map[string]any{"prompt": "add hello", "repo": repo, "pr": true})
	id := got["id"].(string)
	var st struct {
		Phase       string `json:"phase"`
		Integration *struct {
			Step string `json:"step"`
		} `json:"integration"`
	}
	waitForLong(t, "the run to push its branch", 60*time.Second, func() bool {
		b, _ := os.ReadFile(filepath.Join(spawns, id, "status.json"))
		return json.Unmarshal(b, &st) == nil && st.Phase == "integrating" && st.Integration != nil && st.Integration.Step == "pushing"
	})
	var ws []struct {
		PID int `json:"pid"`
	}
	status := exec.Command(bin, "worker", "status", "--json", "--config", filepath.Join(s.home, "barrhawk.yaml"))
	status.Env = pool.Env
	out, err := status.Output()
	if err != nil || json.Unmarshal(out, &ws) != nil || len(ws) != 1 {
		t.Fatalf("worker status: %v %s", err, out)
	}
	syscall.Kill(ws[0].PID, syscall.SIGKILL)
	var final map[string]any
	waitForLong(t, "the spawn to end", 30*time.Second, func() bool {
		final = s.mustCall("spawn_status", map[string]any{"id": id})
		return final["phase"] == "done"
	})
	msg, _ := final["error"].(string)
	if final["status"] != "error" || !strings.Contains(msg, "died during integration") || !strings.Contains(msg, "while pushing spawn/"+id) || !strings.Contains(msg, "not run again") {
		t.Errorf("the spawn after its worker died: %v", final)
	}
	// The pool ends the spawn's run first (its record says why), then
	// records the job: wait for the second write too.
	var job map[string]any
	waitForLong(t, "the job to be recorded as ended", 30*time.Second, func() bool {
		job = s.mustCall("task_status", map[string]any{"id": final["jobId"]})
		return job["state"] != "running"
	})
	errs, _ := job["errors"].([]any)
	if job["state"] != "discarded" || len(job["attemptedBy"].([]any)) != 1 || len(errs) != 1 || !strings.Contains(errs[0].(string), "while pushing") {
		t.Errorf("its job: %v", job)
	}
	// The agent ran once: one attempt's stream.
	if streams, _ := filepath.Glob(filepath.Join(spawns, id, "attempt-*", "stream.jsonl")); len(streams) != 1 {
		t.Errorf("attempts: %v", streams)
	}
	// The pool logs what it did once both are written.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(plog.String(), "ended a dead worker's agent jobs as failed") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if log := plog.String(); !strings.Contains(log, "ended a dead worker's agent jobs as failed") {
		t.Errorf("pool log:\n%s", log)
	}
}

// githubOrigin gives repo the origin https://github.com/acme/app.git,
// which git reaches in a local bare repository (url.insteadOf); it
// returns that repository.
func githubOrigin(t *testing.T, repo string) string {
	t.Helper()
	bare := t.TempDir()
	for _, args := range [][]string{
		{"-C", bare, "init", "-q", "--bare"},
		{"-C", repo, "remote", "add", "origin", "https://github.com/acme/app.git"},
		{"-C", repo, "config", "url." + bare + ".insteadOf", "https://github.com/acme/app.git"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return bare
}
