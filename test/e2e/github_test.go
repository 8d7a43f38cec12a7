package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/barrhawk/barrhawk/internal/testsupport/githubfake"
)

// TestGitHubFlow: the GitHub tools as a new user meets them, against the
// fake GitHub (built from GitHub's OpenAPI description and recorded
// exchanges): GITHUB_API_URL and GITHUB_TOKEN, as GitHub Actions sets
// them, are all the configuration. Read, branch, write, open a pull
// request, list it among others (two pages), review and merge it; an
// issue and a comment; workflows and a run; not-found, validation and
// rate-limit answers told clearly; and the token in no output.
func TestGitHubFlow(t *testing.T) {
	t.Parallel()
	gh := githubfake.Start(t, githubfake.Options{})
	gh.AddRepo("octocat", "shop", githubfake.Repo{Description: "A shop", Files: map[string]string{
		"README.md": "# shop\n", "app.js": "console.log('shop')\n", ".env.example": "GITHUB_TOKEN=" + gh.Token() + "\n"}})
	ci := gh.AddWorkflow("octocat", "shop", ".github/workflows/ci.yml", "CI")
	// Others' pull requests, so that the list takes two pages.
	for i := range 100 {
		branch := fmt.Sprintf("other-%d", i)
		gh.CommitFiles("octocat", "shop", branch, "Change "+branch, "hubot", map[string]string{branch + ".txt": "x\n"})
		gh.OpenPR("octocat", "shop", branch, "main", "Change "+branch, "hubot")
	}
	// Two warm Igors, one call each at a time, least loaded first: calls
	// at once spread over both.
	s := startConfigured(t, "igors:\n  strategy: swarm\n  maxWorkers: 2\n  maxTasksPerIgor: 1\n", "GITHUB_API_URL="+gh.URL(), "GITHUB_TOKEN="+gh.Token(), "GH_TOKEN=", "GH_CONFIG_DIR="+t.TempDir(), "BARRHAWK_LOG_LEVEL=debug")
	var outputs []string
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		out := s.mustCall(name, args)
		outputs = append(outputs, fmt.Sprint(out))
		return out
	}
	fail := func(name string, args map[string]any, want ...string) {
		t.Helper()
		out, isErr := s.call(name, args)
		outputs = append(outputs, out)
		if !isErr {
			t.Errorf("%s(%v) succeeded: %s", name, args, out)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s(%v): the error does not say %q: %s", name, args, w, out)
			}
		}
	}
	repo := func(more map[string]any) map[string]any {
		m := map[string]any{"owner": "octocat", "repo": "shop"}
		for k, v := range more {
			m[k] = v
		}
		return m
	}

	if info := call("gh_repo_info", repo(nil)); info["defaultBranch"] != "main" || info["description"] != "A shop" {
		t.Errorf("gh_repo_info: %v", info)
	}
	readme := call("gh_file_read", repo(map[string]any{"path": "README.md"}))
	if readme["content"] != "# shop\n" {
		t.Errorf("gh_file_read: %v", readme)
	}
	if planted := call("gh_file_read", repo(map[string]any{"path": ".env.example"})); !strings.Contains(planted["content"].(string), "[REDACTED]") {
		t.Errorf("a token in a file is shown: %v", planted)
	}
	call("gh_branch_create", repo(map[string]any{"branch": "checkout-fix"}))
	app := call("gh_file_read", repo(map[string]any{"path": "app.js", "ref": "checkout-fix"}))
	// Replacing a file needs the sha that was read: never a silent overwrite.
	fail("gh_file_write", repo(map[string]any{"path": "app.js", "content": "x", "message": "x", "branch": "checkout-fix"}), "INVALID_ARGS", "pass sha")
	fail("gh_file_write", repo(map[string]any{"path": "app.js", "content": "x", "message": "x", "branch": "checkout-fix", "sha": readme["sha"]}), "INVALID_ARGS", "changed since")
	call("gh_file_write", repo(map[string]any{"path": "app.js", "content": "console.log('fixed')\n", "message": "Fix checkout", "branch": "checkout-fix", "sha": app["sha"]}))
	pr := call("gh_pr_create", repo(map[string]any{"title": "Fix checkout", "body": "Fixes the log line.", "head": "checkout-fix", "base": "main"}))
	n := pr["number"]
	list := call("gh_pr_list", repo(map[string]any{"limit": 200}))
	rows := list["pullRequests"].([]any)
	if list["count"] != float64(101) || list["total"] != float64(101) || rows[0].(map[string]any)["number"] != n {
		t.Errorf("gh_pr_list: count %v, total %v, first %v", list["count"], list["total"], rows[0])
	}
	pages := 0
	for _, r := range gh.Requests() {
		if strings.HasPrefix(r.Path, "/repos/octocat/shop/pulls?") {
			pages++
		}
	}
	if pages != 2 {
		t.Errorf("101 pull requests read in %d pages, want 2", pages)
	}
	if d := call("gh_diff", repo(map[string]any{"base": "main", "head": "checkout-fix"})); !strings.Contains(fmt.Sprint(d["files"]), "+console.log('fixed')") {
		t.Errorf("gh_diff: %v", d)
	}
	call("gh_pr_review", repo(map[string]any{"pullNumber": n, "event": "COMMENT", "body": "Looks right."}))
	if m := call("gh_pr_merge", repo(map[string]any{"pullNumber": n})); m["merged"] != true {
		t.Errorf("gh_pr_merge: %v", m)
	}
	if got, _ := gh.File("octocat", "shop", "main", "app.js"); got != "console.log('fixed')\n" {
		t.Errorf("after the merge main has app.js %q", got)
	}
	issue := call("gh_issue_create", repo(map[string]any{"title": "Checkout logs too much", "body": "Seen in prod.", "labels": []string{"bug"}}))
	call("gh_issue_comment", repo(map[string]any{"issueNumber": issue["number"], "body": "Fixed by #" + fmt.Sprint(n)}))
	if issues := call("gh_issue_list", repo(map[string]any{"labels": []string{"bug"}})); issues["count"] != float64(1) {
		t.Errorf("gh_issue_list: %v", issues)
	}
	if wfs := call("gh_workflow_list", repo(nil)); !strings.Contains(fmt.Sprint(wfs), "ci.yml") {
		t.Errorf("gh_workflow_list: %v", wfs)
	}
	if run := call("gh_workflow_run", repo(map[string]any{"workflowId": ci, "ref": "main"})); run["dispatched"] != true || run["run"] == nil {
		t.Errorf("gh_workflow_run: %v", run)
	}
	if runs := call("gh_workflow_runs", repo(map[string]any{"workflowId": "ci.yml"})); runs["total"] != float64(1) {
		t.Errorf("gh_workflow_runs: %v", runs)
	}

	// A connection lives in the Igor that runs the GitHub tools: calls at
	// once, which would spread over Igors, all find it.
	call("gh_connect", map[string]any{"token": gh.Token(), "alias": "work"})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if out, isErr := s.call("gh_repo_info", repo(map[string]any{"alias": "work"})); isErr {
				t.Errorf("gh_repo_info on the connection made by gh_connect: %s", out)
			}
		})
	}
	wg.Wait()

	fail("gh_repo_info", map[string]any{"owner": "octocat", "repo": "nope"}, "NOT_FOUND", "octocat/nope", "no access")
	fail("gh_pr_create", repo(map[string]any{"title": "t", "head": "main", "base": "main"}), "INVALID_ARGS", "422")
	gh.RateLimitNext(1, "primary", 0)
	fail("gh_branch_list", repo(nil), "RATE_LIMITED", "resets at")

	for _, v := range gh.Violations() {
		t.Errorf("a request or answer GitHub's description does not allow: %s", v)
	}
	events, _ := s.call("events_recent", map[string]any{})
	outputs = append(outputs, events, s.stderr.String())
	for _, o := range outputs {
		if strings.Contains(o, gh.Token()) {
			t.Fatalf("the token appears in an output: %s", o)
		}
	}
}
