package github

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/testsupport/githubfake"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestFamily(t *testing.T) {
	group := func(name string) string {
		switch {
		case strings.HasPrefix(name, "gh_pr_"):
			return groupPulls
		case strings.HasPrefix(name, "gh_issue_"):
			return groupIssues
		case strings.HasPrefix(name, "gh_workflow_"):
			return groupActions
		}
		return groupRepos
	}
	tooltest.CheckFamilyIn(t, Tools(), tool.CategoryGitHub, group,
		"gh_connect", "gh_disconnect", "gh_repo_info", "gh_file_read", "gh_file_write", "gh_branch_list", "gh_branch_create", "gh_diff",
		"gh_pr_list", "gh_pr_create", "gh_pr_merge", "gh_pr_review",
		"gh_issue_list", "gh_issue_create", "gh_issue_comment",
		"gh_workflow_list", "gh_workflow_run", "gh_workflow_runs")
}

// fake starts the fake GitHub with acme/app, points the environment at it
// as GitHub Actions would (GITHUB_API_URL, GITHUB_TOKEN), and returns a
// session of the tools; at the end no request or answer may have strayed
// from GitHub's OpenAPI description.
func fake(t *testing.T) (*githubfake.Server, *tooltest.Session) {
	t.Helper()
	gh := githubfake.Start(t, githubfake.Options{})
	gh.AddRepo("octocat", "app", githubfake.Repo{Description: "The app", Files: map[string]string{"README.md": "# app\n", "src/main.go": "package main\n\nfunc main() {}\n"}})
	t.Setenv("GITHUB_API_URL", gh.URL())
	t.Setenv("GITHUB_TOKEN", gh.Token())
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GH_CONFIG_DIR", t.TempDir())
	Configure(Settings{})
	t.Cleanup(func() {
		for _, v := range gh.Violations() {
			t.Errorf("the fake GitHub saw a request or answer GitHub's description does not allow: %s", v)
		}
	})
	return gh, tooltest.NewSession(t, Tools())
}

func obj(t *testing.T, s *tooltest.Session, name, args string) map[string]any {
	t.Helper()
	return tooltest.Object(t, s.MustRun(name, args))
}

// TestChangeFlow: a change the way an agent makes one: read, branch, write,
// open a pull request, compare, review, merge; each write safe to repeat.
func TestChangeFlow(t *testing.T) {
	gh, s := fake(t)
	info := obj(t, s, "gh_repo_info", `{"owner":"octocat","repo":"app"}`)
	if info["fullName"] != "octocat/app" || info["defaultBranch"] != "main" || info["description"] != "The app" {
		t.Errorf("repo info: %v", info)
	}
	readme := obj(t, s, "gh_file_read", `{"owner":"octocat","repo":"app","path":"README.md"}`)
	if readme["content"] != "# app\n" || readme["encoding"] != "utf-8" || readme["size"] != float64(6) || len(readme["sha"].(string)) != 40 {
		t.Errorf("file read: %v", readme)
	}
	made := obj(t, s, "gh_branch_create", `{"owner":"octocat","repo":"app","branch":"feature"}`)
	if made["created"] != true || made["from"] != "main" {
		t.Errorf("branch create: %v", made)
	}
	if again := obj(t, s, "gh_branch_create", `{"owner":"octocat","repo":"app","branch":"feature"}`); again["created"] != false {
		t.Errorf("the same branch again: %v", again)
	}
	w := obj(t, s, "gh_file_write", `{"owner":"octocat","repo":"app","path":"docs/guide.md","content":"# Guide\n","message":"Add a guide","branch":"feature"}`)
	if w["created"] != true || w["commit"].(map[string]any)["sha"] == "" {
		t.Errorf("file create: %v", w)
	}
	// Replacing needs the sha that was read; a wrong one is refused.
	s.MustFailWith("gh_file_write", `{"owner":"octocat","repo":"app","path":"README.md","content":"# app, v2\n","message":"v2","branch":"feature"}`, tool.CodeInvalidArgs, "pass sha", readme["sha"].(string))
	s.MustFailWith("gh_file_write", `{"owner":"octocat","repo":"app","path":"README.md","content":"# app, v2\n","message":"v2","branch":"feature","sha":"0123456789012345678901234567890123456789"}`, tool.CodeInvalidArgs, "README.md")
	up := obj(t, s, "gh_file_write", fmt.Sprintf(`{"owner":"octocat","repo":"app","path":"README.md","content":"# app, v2\n","message":"v2","branch":"feature","sha":%q}`, readme["sha"]))
	if up["created"] != false || up["sha"] == readme["sha"] {
		t.Errorf("file update: %v", up)
	}
	if same := obj(t, s, "gh_file_write", `{"owner":"octocat","repo":"app","path":"README.md","content":"# app, v2\n","message":"again","branch":"feature"}`); same["unchanged"] != true {
		t.Errorf("the same content again: %v", same)
	}
	if got, _ := gh.File("octocat", "app", "feature", "README.md"); got != "# app, v2\n" {
		t.Errorf("README on feature is %q", got)
	}
	pr := obj(t, s, "gh_pr_create", `{"owner":"octocat","repo":"app","title":"Add a guide","body":"Docs.","head":"feature","base":"main"}`)
	if pr["existing"] != false || pr["number"] == nil {
		t.Fatalf("pr create: %v", pr)
	}
	if again := obj(t, s, "gh_pr_create", `{"owner":"octocat","repo":"app","title":"Add a guide","head":"feature","base":"main"}`); again["existing"] != true || again["number"] != pr["number"] {
		t.Errorf("the same pull request again: %v", again)
	}
	list := obj(t, s, "gh_pr_list", `{"owner":"octocat","repo":"app"}`)
	rows := list["pullRequests"].([]any)
	if len(rows) != 1 || list["total"] != float64(1) || rows[0].(map[string]any)["head"] != "feature" || rows[0].(map[string]any)["author"] != gh.Login() {
		t.Errorf("pr list: %v", list)
	}
	diff := obj(t, s, "gh_diff", `{"owner":"octocat","repo":"app","base":"main","head":"feature"}`)
	files := map[string]map[string]any{}
	for _, f := range diff["files"].([]any) {
		files[f.(map[string]any)["file"].(string)] = f.(map[string]any)
	}
	if diff["aheadBy"] != float64(2) || files["docs/guide.md"]["status"] != "added" || files["README.md"]["additions"] != float64(1) ||
		!strings.Contains(files["README.md"]["patch"].(string), "+# app, v2") {
		t.Errorf("diff: %v", diff)
	}
	if cut := obj(t, s, "gh_diff", `{"owner":"octocat","repo":"app","base":"main","head":"feature","maxBytes":10}`); !strings.Contains(fmt.Sprint(cut["note"]), "cut at 10 bytes") {
		t.Errorf("a diff over maxBytes: %v", cut)
	}
	n := int(pr["number"].(float64))
	s.MustFailWith("gh_pr_review", fmt.Sprintf(`{"owner":"octocat","repo":"app","pullNumber":%d,"event":"REQUEST_CHANGES"}`, n), tool.CodeInvalidArgs, "body")
	// GitHub lets no one approve their own pull request; a comment is fine.
	s.MustFailWith("gh_pr_review", fmt.Sprintf(`{"owner":"octocat","repo":"app","pullNumber":%d,"event":"APPROVE"}`, n), tool.CodeInvalidArgs, "own pull request")
	if r := obj(t, s, "gh_pr_review", fmt.Sprintf(`{"owner":"octocat","repo":"app","pullNumber":%d,"event":"COMMENT","body":"Reads well."}`, n)); r["state"] != "COMMENTED" {
		t.Errorf("review: %v", r)
	}
	m := obj(t, s, "gh_pr_merge", fmt.Sprintf(`{"owner":"octocat","repo":"app","pullNumber":%d,"mergeMethod":"squash"}`, n))
	if m["merged"] != true || m["method"] != "squash" {
		t.Errorf("merge: %v", m)
	}
	if again := obj(t, s, "gh_pr_merge", fmt.Sprintf(`{"owner":"octocat","repo":"app","pullNumber":%d}`, n)); again["already"] != true {
		t.Errorf("merging again: %v", again)
	}
	if got, _ := gh.File("octocat", "app", "main", "docs/guide.md"); got != "# Guide\n" {
		t.Errorf("after the merge main's guide is %q", got)
	}
	if merged := obj(t, s, "gh_pr_list", `{"owner":"octocat","repo":"app","state":"all"}`)["pullRequests"].([]any); merged[0].(map[string]any)["state"] != "merged" {
		t.Errorf("a merged pull request is listed as %v", merged[0])
	}
}

// TestMergeRefusedSaysWhy: failing checks and requested changes are named.
func TestMergeRefusedSaysWhy(t *testing.T) {
	gh, s := fake(t)
	gh.CommitFiles("octocat", "app", "fix", "Fix", "hubot", map[string]string{"fix.txt": "fixed\n"})
	n := gh.OpenPR("octocat", "app", "fix", "main", "Fix it", "hubot")
	gh.SetPRChecks("octocat", "app", n, "failure")
	s.MustRun("gh_pr_review", fmt.Sprintf(`{"owner":"octocat","repo":"app","pullNumber":%d,"event":"REQUEST_CHANGES","body":"Add a test."}`, n))
	s.MustFailWith("gh_pr_merge", fmt.Sprintf(`{"owner":"octocat","repo":"app","pullNumber":%d}`, n), tool.CodeInvalidArgs, "cannot be merged", "checks failing", "changes requested by "+gh.Login())
	if pr, _ := gh.PullRequest("octocat", "app", n); pr.Merged {
		t.Error("a refused merge merged")
	}
}

// TestListsPageAndCount: a list longer than a page is read page by page
// up to the limit, and says its total.
func TestListsPageAndCount(t *testing.T) {
	gh, s := fake(t)
	for i := range 105 {
		s.MustRun("gh_issue_create", fmt.Sprintf(`{"owner":"octocat","repo":"app","title":"Issue %d"}`, i))
	}
	before := len(gh.Requests())
	all := obj(t, s, "gh_issue_list", `{"owner":"octocat","repo":"app","limit":200}`)
	if all["count"] != float64(105) || all["total"] != float64(105) || all["more"] != nil {
		t.Errorf("all issues: count %v total %v more %v", all["count"], all["total"], all["more"])
	}
	if pages := len(gh.Requests()) - before; pages != 2 {
		t.Errorf("105 issues were read in %d requests, want 2 pages of 100", pages)
	}
	some := obj(t, s, "gh_issue_list", `{"owner":"octocat","repo":"app","limit":10}`)
	if some["count"] != float64(10) || some["total"] != float64(105) || some["more"] != true {
		t.Errorf("10 of 105: count %v total %v more %v", some["count"], some["total"], some["more"])
	}
	first := some["issues"].([]any)[0].(map[string]any)
	if first["title"] != "Issue 104" || first["state"] != "open" || first["author"] != gh.Login() {
		t.Errorf("newest first: %v", first)
	}
	c := obj(t, s, "gh_issue_comment", fmt.Sprintf(`{"owner":"octocat","repo":"app","issueNumber":%v,"body":"Seen."}`, first["number"]))
	if c["id"] == nil || !strings.Contains(c["url"].(string), "#issuecomment-") {
		t.Errorf("comment: %v", c)
	}
}

// TestConditionalReads: a read made again sends the ETag it got, and
// GitHub's 304 answers it from what was kept.
func TestConditionalReads(t *testing.T) {
	gh, s := fake(t)
	first := obj(t, s, "gh_repo_info", `{"owner":"octocat","repo":"app"}`)
	second := obj(t, s, "gh_repo_info", `{"owner":"octocat","repo":"app"}`)
	if fmt.Sprint(first) != fmt.Sprint(second) {
		t.Errorf("the answer from the kept copy differs:\n%v\n%v", first, second)
	}
	reqs := gh.Requests()
	last := reqs[len(reqs)-1]
	if last.IfNoneMatch == "" || last.Status != 304 {
		t.Errorf("the repeated read: %+v", last)
	}
}

// TestRateLimits: a secondary limit naming a short wait is retried once;
// a spent primary limit answers RATE_LIMITED with its reset time.
func TestRateLimits(t *testing.T) {
	gh, s := fake(t)
	gh.RateLimitNext(1, "secondary", time.Second)
	if info := obj(t, s, "gh_repo_info", `{"owner":"octocat","repo":"app"}`); info["fullName"] != "octocat/app" {
		t.Errorf("after a secondary limit: %v", info)
	}
	reqs := gh.Requests()
	if len(reqs) < 2 || reqs[len(reqs)-2].Status != 403 || reqs[len(reqs)-1].Status != 200 {
		t.Errorf("want a 403 then the retry's 200, got %+v", reqs)
	}
	gh.RateLimitNext(2, "secondary", time.Second)
	s.MustFailWith("gh_branch_list", `{"owner":"octocat","repo":"app"}`, tool.CodeRateLimited, "secondary rate limit", "Try again after")

	_, s2 := fake(t)
	gh2 := githubfake.Start(t, githubfake.Options{})
	gh2.AddRepo("octocat", "app", githubfake.Repo{})
	s2.MustRun("gh_connect", fmt.Sprintf(`{"token":%q,"api":%q,"alias":"limited"}`, gh2.Token(), gh2.URL()))
	gh2.RateLimitNext(1, "primary", 0)
	s2.MustFailWith("gh_repo_info", `{"owner":"octocat","repo":"app","alias":"limited"}`, tool.CodeRateLimited, "rate limit is spent", "resets at")
}

// TestErrorsSayWhat: not found, no access, validation, a bad token, an
// unknown alias.
func TestErrorsSayWhat(t *testing.T) {
	gh, s := fake(t)
	gh.AddRepo("other", "secret", githubfake.Repo{Private: true})
	s.MustFailWith("gh_repo_info", `{"owner":"octocat","repo":"nope"}`, tool.CodeNotFound, "octocat/nope", "not found, or no access")
	s.MustFailWith("gh_file_read", `{"owner":"other","repo":"secret","path":"README.md"}`, tool.CodeNotFound, "no access")
	s.MustFailWith("gh_file_read", `{"owner":"octocat","repo":"app","path":"missing.txt"}`, tool.CodeNotFound, "missing.txt")
	s.MustFailWith("gh_pr_create", `{"owner":"octocat","repo":"app","title":"t","head":"main","base":"main"}`, tool.CodeInvalidArgs, "GitHub refused it (422)")
	s.MustFailWith("gh_branch_create", `{"owner":"octocat","repo":"app","branch":"x","from":"no-such-branch"}`, tool.CodeInvalidArgs, "no-such-branch", "No commit found")
	s.MustFailWith("gh_repo_info", `{"owner":"octocat","repo":"app","alias":"work"}`, tool.CodeNotFound, "gh_connect")
	e := s.MustFailWith("gh_connect", `{"token":"ghp_wrongwrongwrongwrong"}`, tool.CodeForbidden, "Bad credentials")
	if strings.Contains(e.Message, "ghp_wrongwrongwrongwrong") {
		t.Errorf("the refused token is shown: %s", e.Message)
	}
}

// TestTokenNeverShown: a token GitHub answers back (here committed in a
// file) is masked in the result.
func TestTokenNeverShown(t *testing.T) {
	gh, s := fake(t)
	gh.CommitFiles("octocat", "app", "main", "Oops", gh.Login(), map[string]string{".env": "GITHUB_TOKEN=" + gh.Token() + "\n"})
	got := obj(t, s, "gh_file_read", `{"owner":"octocat","repo":"app","path":".env"}`)
	if c := got["content"].(string); strings.Contains(c, gh.Token()) || !strings.Contains(c, "[REDACTED]") {
		t.Errorf("the token in a result: %q", c)
	}
	who := obj(t, s, "gh_connect", fmt.Sprintf(`{"token":%q,"alias":"me"}`, gh.Token()))
	if who["login"] != gh.Login() || strings.Contains(fmt.Sprint(who), gh.Token()) {
		t.Errorf("connect: %v", who)
	}
	if bye := obj(t, s, "gh_disconnect", `{"alias":"me"}`); bye["disconnected"] != true {
		t.Errorf("disconnect: %v", bye)
	}
	s.MustFail("gh_repo_info", `{"owner":"octocat","repo":"app","alias":"me"}`, tool.CodeNotFound)
}

// TestWorkflows: list, dispatch (answered with the run once GitHub lists
// it), and the runs.
func TestWorkflows(t *testing.T) {
	gh, s := fake(t)
	id := gh.AddWorkflow("octocat", "app", ".github/workflows/ci.yml", "CI")
	wfs := obj(t, s, "gh_workflow_list", `{"owner":"octocat","repo":"app"}`)
	if row := wfs["workflows"].([]any)[0].(map[string]any); row["id"] != float64(id) || row["path"] != ".github/workflows/ci.yml" || row["state"] != "active" {
		t.Errorf("workflows: %v", wfs)
	}
	run := obj(t, s, "gh_workflow_run", `{"owner":"octocat","repo":"app","workflowId":"ci.yml","ref":"main","inputs":{"level":"full"}}`)
	if run["dispatched"] != true || run["run"] == nil {
		t.Fatalf("dispatch: %v", run)
	}
	if r := run["run"].(map[string]any); r["branch"] != "main" || r["event"] != "workflow_dispatch" || !strings.HasPrefix(r["url"].(string), "http") {
		t.Errorf("the dispatched run: %v", r)
	}
	obj(t, s, "gh_workflow_run", fmt.Sprintf(`{"owner":"octocat","repo":"app","workflowId":%d,"ref":"main"}`, id))
	runs := obj(t, s, "gh_workflow_runs", fmt.Sprintf(`{"owner":"octocat","repo":"app","workflowId":%d}`, id))
	if runs["total"] != float64(2) || runs["count"] != float64(2) {
		t.Errorf("runs: %v", runs)
	}
	s.MustFailWith("gh_workflow_run", `{"owner":"octocat","repo":"app","workflowId":"nope.yml","ref":"main"}`, tool.CodeNotFound, "nope.yml")
}
