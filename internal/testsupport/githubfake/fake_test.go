package githubfake

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// client sends requests to a fake as a GitHub client would.
type client struct {
	t     *testing.T
	s     *Server
	token string
}

type answer struct {
	status int
	header http.Header
	raw    []byte
	body   any
}

func (a answer) obj() map[string]any {
	m, _ := a.body.(map[string]any)
	return m
}

func (a answer) list() []any {
	l, _ := a.body.([]any)
	return l
}

func (c client) do(method, path string, body any, header ...string) answer {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = strings.NewReader(string(data))
	}
	req, err := http.NewRequest(method, c.s.URL()+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	a := answer{status: resp.StatusCode, header: resp.Header, raw: raw}
	if len(raw) > 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &a.body); err != nil {
			c.t.Fatalf("%s %s: answer is not JSON: %v\n%s", method, path, err, raw)
		}
	}
	return a
}

// want fails the test unless a has status.
func (a answer) want(t *testing.T, status int) answer {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d; body %s", a.status, status, a.raw)
	}
	return a
}

// setup starts a fake with the repository octocat/hello holding two files.
func setup(t *testing.T) (*Server, client) {
	t.Helper()
	s := Start(t, Options{})
	s.AddRepo("octocat", "hello", Repo{Files: map[string]string{"README.md": "# hello\n", "src/main.go": "package main\n"}, Description: "a test"})
	return s, client{t: t, s: s, token: s.Token()}
}

func noViolations(t *testing.T, s *Server) {
	t.Helper()
	if v := s.Violations(); len(v) > 0 {
		t.Errorf("violations of the OpenAPI description:\n%s", strings.Join(v, "\n"))
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestWorkflowOfAChange(t *testing.T) {
	s, c := setup(t)
	repo := c.do("GET", "/repos/octocat/hello", nil).want(t, 200).obj()
	if repo["full_name"] != "octocat/hello" || repo["default_branch"] != "main" || repo["description"] != "a test" {
		t.Errorf("repository: %v %v %v", repo["full_name"], repo["default_branch"], repo["description"])
	}
	ref := c.do("GET", "/repos/octocat/hello/git/ref/heads/main", nil).want(t, 200).obj()
	mainSHA := ref["object"].(map[string]any)["sha"].(string)
	c.do("POST", "/repos/octocat/hello/git/refs", map[string]any{"ref": "refs/heads/feature", "sha": mainSHA}).want(t, 201)
	c.do("POST", "/repos/octocat/hello/git/refs", map[string]any{"ref": "refs/heads/feature", "sha": mainSHA}).want(t, 422)

	// No commits yet between main and feature.
	nothing := c.do("POST", "/repos/octocat/hello/pulls", map[string]any{"title": "t", "head": "feature", "base": "main"}).want(t, 422).obj()
	if msg := nothing["errors"].([]any)[0].(map[string]any)["message"]; msg != "No commits between main and feature" {
		t.Errorf("no commits: %v", msg)
	}

	got := c.do("GET", "/repos/octocat/hello/contents/README.md?ref=feature", nil).want(t, 200).obj()
	if got["sha"] != blobSHA("# hello\n") || got["encoding"] != "base64" {
		t.Errorf("content: %v", got)
	}
	data, _ := base64.StdEncoding.DecodeString(strings.ReplaceAll(got["content"].(string), "\n", ""))
	if string(data) != "# hello\n" {
		t.Errorf("content %q", data)
	}
	c.do("GET", "/repos/octocat/hello/contents/nope.txt", nil).want(t, 404)

	put := map[string]any{"message": "edit", "content": b64("# hello\nworld\n"), "branch": "feature"}
	noSHA := c.do("PUT", "/repos/octocat/hello/contents/README.md", put).want(t, 422).obj()
	if noSHA["message"] != "Invalid request.\n\n\"sha\" wasn't supplied." {
		t.Errorf("update without sha: %q", noSHA["message"])
	}
	put["sha"] = "0000000000000000000000000000000000000000"
	c.do("PUT", "/repos/octocat/hello/contents/README.md", put).want(t, 409)
	put["sha"] = got["sha"]
	updated := c.do("PUT", "/repos/octocat/hello/contents/README.md", put).want(t, 200).obj()
	if updated["commit"].(map[string]any)["message"] != "edit" {
		t.Errorf("commit: %v", updated["commit"])
	}
	created := c.do("PUT", "/repos/octocat/hello/contents/docs/new.md", map[string]any{"message": "add", "content": b64("new\n"), "branch": "feature"}).want(t, 201).obj()
	if created["content"].(map[string]any)["path"] != "docs/new.md" {
		t.Errorf("created: %v", created["content"])
	}
	if v, ok := s.File("octocat", "hello", "feature", "README.md"); !ok || v != "# hello\nworld\n" {
		t.Errorf("feature README.md = %q, %v", v, ok)
	}

	cmp := c.do("GET", "/repos/octocat/hello/compare/main...feature", nil).want(t, 200).obj()
	if cmp["status"] != "ahead" || cmp["ahead_by"] != 2.0 || cmp["behind_by"] != 0.0 || cmp["total_commits"] != 2.0 {
		t.Errorf("compare: %v ahead %v behind %v", cmp["status"], cmp["ahead_by"], cmp["behind_by"])
	}
	files := cmp["files"].([]any)
	readme := files[0].(map[string]any)
	if readme["filename"] != "README.md" || readme["status"] != "modified" || readme["patch"] != "@@ -1 +1,2 @@\n # hello\n+world" || readme["additions"] != 1.0 {
		t.Errorf("README.md in compare: %v", readme)
	}
	if files[1].(map[string]any)["status"] != "added" {
		t.Errorf("docs/new.md in compare: %v", files[1])
	}

	pr := c.do("POST", "/repos/octocat/hello/pulls", map[string]any{"title": "Feature", "head": "feature", "base": "main", "body": "please"}).want(t, 201).obj()
	if pr["number"] != 1.0 || pr["state"] != "open" || pr["head"].(map[string]any)["ref"] != "feature" {
		t.Errorf("pull request: %v %v", pr["number"], pr["state"])
	}
	dup := c.do("POST", "/repos/octocat/hello/pulls", map[string]any{"title": "again", "head": "octocat:feature", "base": "main"}).want(t, 422).obj()
	if e := dup["errors"].([]any)[0].(map[string]any); e["message"] != "A pull request already exists for octocat:feature." || dup["message"] != "Validation Failed" {
		t.Errorf("duplicate: %v", dup)
	}
	open := c.do("GET", "/repos/octocat/hello/pulls?head=octocat:feature&state=open", nil).want(t, 200).list()
	if len(open) != 1 {
		t.Errorf("%d open pull requests for the head", len(open))
	}
	issues := c.do("GET", "/repos/octocat/hello/issues", nil).want(t, 200).list()
	if len(issues) != 1 || issues[0].(map[string]any)["pull_request"] == nil {
		t.Errorf("issues: %v", issues)
	}

	c.do("POST", "/repos/octocat/hello/issues/1/comments", map[string]any{"body": "looks good"}).want(t, 201)
	if cs := c.do("GET", "/repos/octocat/hello/issues/1/comments", nil).want(t, 200).list(); len(cs) != 1 {
		t.Errorf("comments: %v", cs)
	}

	s.SetPRChecks("octocat", "hello", 1, "failure")
	blocked := c.do("GET", "/repos/octocat/hello/pulls/1", nil).want(t, 200).obj()
	if blocked["mergeable_state"] != "blocked" {
		t.Errorf("mergeable_state with failing checks: %v", blocked["mergeable_state"])
	}
	refused := c.do("PUT", "/repos/octocat/hello/pulls/1/merge", map[string]any{"merge_method": "squash"}).want(t, 405).obj()
	if refused["message"] != "Pull Request is not mergeable" {
		t.Errorf("refused merge: %v", refused)
	}
	s.SetPRChecks("octocat", "hello", 1, "success")
	c.do("PUT", "/repos/octocat/hello/pulls/1/merge", map[string]any{"sha": mainSHA}).want(t, 409)
	headSHA := blocked["head"].(map[string]any)["sha"]
	merged := c.do("PUT", "/repos/octocat/hello/pulls/1/merge", map[string]any{"merge_method": "squash", "sha": headSHA}).want(t, 200).obj()
	if merged["merged"] != true {
		t.Errorf("merge: %v", merged)
	}
	if v, _ := s.File("octocat", "hello", "main", "docs/new.md"); v != "new\n" {
		t.Errorf("main docs/new.md after merge = %q", v)
	}
	after := c.do("GET", "/repos/octocat/hello/pulls/1", nil).want(t, 200).obj()
	if after["state"] != "closed" || after["merged"] != true {
		t.Errorf("after merge: %v %v", after["state"], after["merged"])
	}
	noViolations(t, s)
}

func TestReviews(t *testing.T) {
	s, c := setup(t)
	s.CommitFiles("octocat", "hello", "fix", "fix", "hubot", map[string]string{"README.md": "# fixed\n"})
	n := s.OpenPR("octocat", "hello", "fix", "main", "Fix", "hubot")
	// REQUEST_CHANGES and COMMENT need a body.
	c.do("POST", "/repos/octocat/hello/pulls/"+strconv.Itoa(n)+"/reviews", map[string]any{"event": "REQUEST_CHANGES"}).want(t, 422)
	c.do("POST", "/repos/octocat/hello/pulls/1/reviews", map[string]any{"event": "COMMENT"}).want(t, 422)
	rv := c.do("POST", "/repos/octocat/hello/pulls/1/reviews", map[string]any{"event": "REQUEST_CHANGES", "body": "no"}).want(t, 200).obj()
	if rv["state"] != "CHANGES_REQUESTED" {
		t.Errorf("review: %v", rv["state"])
	}
	c.do("PUT", "/repos/octocat/hello/pulls/1/merge", nil).want(t, 405)
	c.do("POST", "/repos/octocat/hello/pulls/1/reviews", map[string]any{"event": "APPROVE"}).want(t, 200)
	if l := c.do("GET", "/repos/octocat/hello/pulls/1/reviews", nil).want(t, 200).list(); len(l) != 2 {
		t.Errorf("%d reviews", len(l))
	}
	c.do("PUT", "/repos/octocat/hello/pulls/1/merge", nil).want(t, 200)
	if pr, _ := s.PullRequest("octocat", "hello", 1); !pr.Merged || len(pr.Reviews) != 2 {
		t.Errorf("pull request: %+v", pr)
	}
	// One's own pull request cannot be approved.
	s.CommitFiles("octocat", "hello", "mine", "mine", "octocat", map[string]string{"a": "b\n"})
	c.do("POST", "/repos/octocat/hello/pulls", map[string]any{"title": "Mine", "head": "mine", "base": "main"}).want(t, 201)
	c.do("POST", "/repos/octocat/hello/pulls/2/reviews", map[string]any{"event": "APPROVE"}).want(t, 422)
	noViolations(t, s)
}

var linkRe = regexp.MustCompile(`<([^>]+)>; rel="(\w+)"`)

func links(h string) map[string]string {
	out := map[string]string{}
	for _, m := range linkRe.FindAllStringSubmatch(h, -1) {
		out[m[2]] = m[1]
	}
	return out
}

func TestPagination(t *testing.T) {
	s, c := setup(t)
	for i := range 7 {
		c.do("POST", "/repos/octocat/hello/issues", map[string]any{"title": "issue " + strconv.Itoa(i+1), "labels": []string{"bug"}}).want(t, 201)
	}
	first := c.do("GET", "/repos/octocat/hello/issues?state=all&per_page=3", nil).want(t, 200)
	if n := len(first.list()); n != 3 {
		t.Fatalf("%d issues on page 1", n)
	}
	base := s.URL() + "/repositories/" + strconv.FormatInt(s.repos["octocat/hello"].id, 10) + "/issues?state=all&per_page=3&page="
	want := `<` + base + `2>; rel="next", <` + base + `3>; rel="last"`
	if got := first.header.Get("Link"); got != want {
		t.Errorf("Link on page 1:\n got %s\nwant %s", got, want)
	}
	second := c.do("GET", strings.TrimPrefix(links(first.header.Get("Link"))["next"], s.URL()), nil).want(t, 200)
	want = `<` + base + `1>; rel="prev", <` + base + `3>; rel="next", <` + base + `3>; rel="last", <` + base + `1>; rel="first"`
	if got := second.header.Get("Link"); got != want {
		t.Errorf("Link on page 2:\n got %s\nwant %s", got, want)
	}
	last := c.do("GET", "/repos/octocat/hello/issues?state=all&per_page=3&page=3", nil).want(t, 200)
	if n := len(last.list()); n != 1 || last.list()[0].(map[string]any)["number"] != 1.0 {
		t.Errorf("last page: %d issues", n)
	}
	if l := links(last.header.Get("Link")); l["next"] != "" || l["prev"] == "" || l["first"] == "" {
		t.Errorf("Link on the last page: %v", l)
	}
	all := c.do("GET", "/repos/octocat/hello/issues?labels=bug", nil).want(t, 200)
	if len(all.list()) != 7 || all.header.Get("Link") != "" {
		t.Errorf("one page of 7: %d, Link %q", len(all.list()), all.header.Get("Link"))
	}
	if l := c.do("GET", "/repos/octocat/hello/issues?labels=enhancement", nil).list(); len(l) != 0 {
		t.Errorf("labels filter: %d", len(l))
	}
	hundred := c.do("GET", "/repos/octocat/hello/branches?per_page=500", nil).want(t, 200)
	if len(hundred.list()) != 1 {
		t.Errorf("branches: %v", hundred.list())
	}
	noViolations(t, s)
}

func TestETag(t *testing.T) {
	s, c := setup(t)
	a := c.do("GET", "/repos/octocat/hello", nil).want(t, 200)
	etag := a.header.Get("ETag")
	if !regexp.MustCompile(`^"[0-9a-f]{64}"$`).MatchString(etag) {
		t.Fatalf("ETag %q", etag)
	}
	remaining := a.header.Get("X-RateLimit-Remaining")
	b := c.do("GET", "/repos/octocat/hello", nil, "If-None-Match", etag).want(t, 304)
	if len(b.raw) != 0 {
		t.Errorf("304 with a body: %q", b.raw)
	}
	if b.header.Get("X-RateLimit-Remaining") != remaining {
		t.Errorf("a 304 counted: remaining %s then %s", remaining, b.header.Get("X-RateLimit-Remaining"))
	}
	c.do("GET", "/repos/octocat/hello", nil, "If-None-Match", `W/`+etag).want(t, 304)
	// A change makes a new ETag.
	c.do("POST", "/repos/octocat/hello/issues", map[string]any{"title": "x"}).want(t, 201)
	c.do("GET", "/repos/octocat/hello", nil, "If-None-Match", etag).want(t, 200)
	reqs := s.Requests()
	if r := reqs[1]; r.Status != 304 || r.IfNoneMatch != etag || !r.Auth || r.Operation != "repos/get" {
		t.Errorf("recorded: %+v", r)
	}
	noViolations(t, s)
}

func TestRateLimit(t *testing.T) {
	s, c := setup(t)
	ok := c.do("GET", "/user", nil).want(t, 200)
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-RateLimit-Used", "X-RateLimit-Resource", "X-GitHub-Request-Id", "X-GitHub-Api-Version-Selected"} {
		if ok.header.Get(h) == "" {
			t.Errorf("no %s", h)
		}
	}
	if ok.obj()["login"] != "octocat" {
		t.Errorf("user: %v", ok.obj()["login"])
	}

	s.RateLimitNext(2, "primary", 90*time.Second)
	for range 2 {
		a := c.do("GET", "/repos/octocat/hello", nil).want(t, 403)
		if a.header.Get("X-RateLimit-Remaining") != "0" {
			t.Errorf("remaining %q", a.header.Get("X-RateLimit-Remaining"))
		}
		reset, _ := strconv.ParseInt(a.header.Get("X-RateLimit-Reset"), 10, 64)
		if d := time.Until(time.Unix(reset, 0)); d < 80*time.Second || d > 100*time.Second {
			t.Errorf("reset in %v", d)
		}
		if !strings.HasPrefix(a.obj()["message"].(string), "API rate limit exceeded") {
			t.Errorf("message %v", a.obj()["message"])
		}
	}
	c.do("GET", "/repos/octocat/hello", nil).want(t, 200)

	s.RateLimitNext(1, "secondary", 30*time.Second)
	a := c.do("POST", "/repos/octocat/hello/issues", map[string]any{"title": "x"}).want(t, 403)
	if a.header.Get("Retry-After") != "30" || !strings.Contains(a.obj()["message"].(string), "secondary rate limit") {
		t.Errorf("secondary: Retry-After %q, %v", a.header.Get("Retry-After"), a.obj()["message"])
	}
	c.do("POST", "/repos/octocat/hello/issues", map[string]any{"title": "x"}).want(t, 201)

	rl := c.do("GET", "/rate_limit", nil).want(t, 200).obj()
	if rl["rate"].(map[string]any)["limit"] != 5000.0 {
		t.Errorf("rate: %v", rl["rate"])
	}
	noViolations(t, s)
}

func TestAuth(t *testing.T) {
	s, c := setup(t)
	s.AddRepo("octocat", "secret", Repo{Private: true})
	s.AddRepo("someone", "hidden", Repo{Private: true})
	s.AddRepo("someone", "open", Repo{Files: map[string]string{"a": "b"}})

	bad := client{t: t, s: s, token: "ghp_wrong"}
	b := bad.do("GET", "/repos/octocat/hello", nil).want(t, 401).obj()
	if b["message"] != "Bad credentials" || b["documentation_url"] == nil {
		t.Errorf("bad credentials: %v", b)
	}
	anon := client{t: t, s: s}
	anon.do("GET", "/repos/octocat/hello", nil).want(t, 200)
	anon.do("GET", "/repos/octocat/secret", nil).want(t, 404)
	anon.do("POST", "/repos/octocat/hello/issues", map[string]any{"title": "x"}).want(t, 401)
	anon.do("GET", "/user", nil).want(t, 401)
	c.do("GET", "/repos/octocat/secret", nil).want(t, 200)
	c.do("GET", "/repos/someone/hidden", nil).want(t, 404)
	c.do("GET", "/repos/someone/open", nil).want(t, 200)
	c.do("PUT", "/repos/someone/open/contents/x", map[string]any{"message": "m", "content": b64("x")}).want(t, 404)
	nf := c.do("GET", "/repos/nobody/nothing", nil).want(t, 404).obj()
	if nf["message"] != "Not Found" || nf["documentation_url"] != "https://docs.github.com/rest/repos/repos#get-a-repository" || nf["status"] != "404" {
		t.Errorf("not found: %v", nf)
	}
	other := c.do("GET", "/repos/octocat/hello/deployments", nil).want(t, 404).obj()
	if other["message"] != "Not Found" {
		t.Errorf("unserved: %v", other)
	}
	c.do("GET", "/no/such/thing", nil).want(t, 404)
	if r := s.Requests()[0]; r.Auth || r.Status != 401 {
		t.Errorf("recorded: %+v", r)
	}
	noViolations(t, s)
}

func TestValidation(t *testing.T) {
	s, c := setup(t)
	bad := c.do("PUT", "/repos/octocat/hello/pulls/1/merge", map[string]any{"merge_method": "octopus"}).want(t, 422).obj()
	if msg, _ := bad["message"].(string); !strings.HasPrefix(msg, "Invalid request.\n\n") {
		t.Errorf("message %q", msg)
	}
	c.do("GET", "/repos/octocat/hello/pulls?state=weird", nil).want(t, 422)
	c.do("POST", "/repos/octocat/hello/git/refs", map[string]any{"ref": "refs/heads/x"}).want(t, 422)
	c.do("POST", "/repos/octocat/hello/issues", map[string]any{"title": "x", "labels": "bug"}).want(t, 422)
	if v := s.Violations(); len(v) != 4 {
		t.Errorf("%d violations, want 4:\n%s", len(v), strings.Join(v, "\n"))
	}
}

func TestActions(t *testing.T) {
	s, c := setup(t)
	id := s.AddWorkflow("octocat", "hello", ".github/workflows/ci.yml", "CI")
	wf := c.do("GET", "/repos/octocat/hello/actions/workflows", nil).want(t, 200).obj()
	if wf["total_count"] != 1.0 || wf["workflows"].([]any)[0].(map[string]any)["id"] != float64(id) {
		t.Errorf("workflows: %v", wf)
	}
	c.do("POST", "/repos/octocat/hello/actions/workflows/ci.yml/dispatches", map[string]any{"ref": "main", "inputs": map[string]any{"x": "1"}}).want(t, 204)
	c.do("POST", "/repos/octocat/hello/actions/workflows/"+strconv.FormatInt(id, 10)+"/dispatches", map[string]any{"ref": "nope"}).want(t, 422)
	c.do("POST", "/repos/octocat/hello/actions/workflows/other.yml/dispatches", map[string]any{"ref": "main"}).want(t, 404)
	runs := c.do("GET", "/repos/octocat/hello/actions/workflows/ci.yml/runs", nil).want(t, 200).obj()
	run := runs["workflow_runs"].([]any)[0].(map[string]any)
	if runs["total_count"] != 1.0 || run["status"] != "queued" || run["event"] != "workflow_dispatch" || !strings.HasPrefix(run["html_url"].(string), "https://github.com/octocat/hello/actions/runs/") {
		t.Errorf("first look: %v %v", run["status"], run["html_url"])
	}
	done := c.do("GET", "/repos/octocat/hello/actions/runs?status=completed", nil).want(t, 200).obj()
	if done["total_count"] != 1.0 || done["workflow_runs"].([]any)[0].(map[string]any)["conclusion"] != "success" {
		t.Errorf("second look: %v", done)
	}
	if r := s.Runs("octocat", "hello"); len(r) != 1 || r[0].Conclusion != "success" {
		t.Errorf("runs: %+v", r)
	}
	noViolations(t, s)
}

func TestMergeConflict(t *testing.T) {
	s, c := setup(t)
	s.CommitFiles("octocat", "hello", "a", "a", "hubot", map[string]string{"README.md": "A\n"})
	s.CommitFiles("octocat", "hello", "main", "m", "hubot", map[string]string{"README.md": "M\n"})
	s.OpenPR("octocat", "hello", "a", "main", "A", "hubot")
	pr := c.do("GET", "/repos/octocat/hello/pulls/1", nil).want(t, 200).obj()
	if pr["mergeable"] != false || pr["mergeable_state"] != "dirty" {
		t.Errorf("conflicting: %v %v", pr["mergeable"], pr["mergeable_state"])
	}
	c.do("PUT", "/repos/octocat/hello/pulls/1/merge", nil).want(t, 405)
	cmp := c.do("GET", "/repos/octocat/hello/compare/main...a", nil).want(t, 200).obj()
	if cmp["status"] != "diverged" || cmp["behind_by"] != 1.0 {
		t.Errorf("compare: %v %v", cmp["status"], cmp["behind_by"])
	}
	noViolations(t, s)
}

func TestUnifiedDiff(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"
	cur := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n"
	patch, adds, dels := unifiedDiff(old, cur)
	want := "@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n@@ -9,3 +9,4 @@\n i\n j\n k\n+l"
	if patch != want || adds != 2 || dels != 1 {
		t.Errorf("patch %q (+%d -%d), want %q", patch, adds, dels, want)
	}
	if p, a, _ := unifiedDiff("", "x\ny\n"); p != "@@ -0,0 +1,2 @@\n+x\n+y" || a != 2 {
		t.Errorf("new file: %q", p)
	}
}

func TestGitHashes(t *testing.T) {
	// As git computes them: git hash-object, and the empty tree.
	if got := blobSHA("hello\n"); got != "ce013625030ba8dba906f756967f9e9ca394464a" {
		t.Errorf("blob sha %s", got)
	}
	if got := treeSHA(map[string]string{}); got != "4b825dc642cb6eb9a060e54bf8d69288fbee4904" {
		t.Errorf("empty tree %s", got)
	}
}
