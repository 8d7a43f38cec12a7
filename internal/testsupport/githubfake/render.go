package githubfake

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The objects the fake answers with are the examples of GitHub's OpenAPI
// description, their URLs moved to this server and this repository, and
// the fields the fake's state knows written over.

func stamp(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

// rewrite replaces, in every string within v, the example's hosts and
// repositories with this server's and r's.
func (s *Server) rewrite(v any, r *repoState) any {
	var pairs []string
	if r != nil {
		api, web := s.URL()+"/repos/"+r.owner+"/"+r.name, "https://github.com/"+r.owner+"/"+r.name
		for _, ex := range []string{"octocat/Hello-World", "octo-org/octo-repo", "octocat/hello-world", "octokit/octokit.rb"} {
			pairs = append(pairs, "https://api.github.com/repos/"+ex, api, "https://github.com/"+ex, web)
		}
	}
	pairs = append(pairs, "https://api.github.com", s.URL())
	rep := strings.NewReplacer(pairs...)
	var walk func(any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				v[k] = walk(x)
			}
			return v
		case []any:
			for i, x := range v {
				v[i] = walk(x)
			}
			return v
		case string:
			return rep.Replace(v)
		}
		return v
	}
	return walk(v)
}

// obj is the example name, a map, moved to r.
func (s *Server) obj(name string, r *repoState) map[string]any {
	return s.rewrite(s.spec.example(name), r).(map[string]any)
}

// first is the first item of the example name, a list, moved to r.
func (s *Server) first(name string, r *repoState) map[string]any {
	return s.rewrite(s.spec.example(name), r).([]any)[0].(map[string]any)
}

// userID gives each login a stable id; the token's user is 1.
func (s *Server) userID(login string) int64 {
	if login == s.login {
		return 1
	}
	var h int64 = 7
	for _, c := range login {
		h = h*31 + int64(c)
	}
	if h < 0 {
		h = -h
	}
	return 1000 + h%1000000
}

// user is a simple-user object for login.
func (s *Server) user(login string) map[string]any {
	u := s.spec.example("simple-user")
	m, ok := u.(map[string]any)
	if !ok {
		panic("githubfake: the simple-user example is not an object")
	}
	rep := strings.NewReplacer("https://api.github.com", s.URL(), "octocat", login)
	for k, v := range m {
		if str, ok := v.(string); ok {
			m[k] = rep.Replace(str)
		}
	}
	id := s.userID(login)
	m["id"] = id
	m["node_id"] = base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("04:User%d", id)))
	m["avatar_url"] = fmt.Sprintf("https://avatars.githubusercontent.com/u/%d?v=4", id)
	m["type"] = "User"
	if login != s.login && !strings.Contains(login, "[bot]") && s.orgs[login] {
		m["type"] = "Organization"
	}
	return m
}

func nodeID(kind string, id int64) string {
	return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("0%d:%s%d", len(kind), kind, id)))
}

func (s *Server) apiRepo(r *repoState) string { return s.URL() + "/repos/" + r.owner + "/" + r.name }
func webRepo(r *repoState) string             { return "https://github.com/" + r.owner + "/" + r.name }

// repoObj is the full-repository object for r.
func (s *Server) repoObj(r *repoState) map[string]any {
	m := s.obj("full-repository-default-response", r)
	s.fillRepo(m, r)
	delete(m, "parent")
	delete(m, "source")
	delete(m, "template_repository")
	delete(m, "organization")
	if owner := s.user(r.owner); owner["type"] == "Organization" {
		m["organization"] = owner
	}
	open := 0
	for _, is := range r.issues {
		if is.state == "open" {
			open++
		}
	}
	m["open_issues_count"], m["open_issues"] = open, open
	m["forks"], m["forks_count"], m["network_count"], m["subscribers_count"] = 0, 0, 0, 0
	m["stargazers_count"], m["watchers_count"], m["watchers"] = 0, 0, 0
	m["topics"] = []any{}
	m["license"] = nil
	m["language"] = nil // required by the schema, missing from its example
	// Sent by GitHub (recorded in @octokit/fixtures), missing from the example.
	m["allow_update_branch"], m["use_squash_pr_title_as_default"], m["web_commit_signoff_required"] = false, false, false
	m["temp_clone_token"] = nil
	return m
}

// fillRepo writes r's own fields over a repository object.
func (s *Server) fillRepo(m map[string]any, r *repoState) {
	m["id"] = r.id
	m["node_id"] = nodeID("Repository", r.id)
	m["name"] = r.name
	m["full_name"] = r.owner + "/" + r.name
	m["owner"] = s.user(r.owner)
	m["private"] = r.private
	m["visibility"] = "public"
	if r.private {
		m["visibility"] = "private"
	}
	m["description"] = nil
	if r.description != "" {
		m["description"] = r.description
	}
	m["fork"] = false
	m["default_branch"] = r.defaultBranch
	m["html_url"] = webRepo(r)
	m["url"] = s.apiRepo(r)
	m["git_url"] = "git://github.com/" + r.owner + "/" + r.name + ".git"
	m["ssh_url"] = "git@github.com:" + r.owner + "/" + r.name + ".git"
	m["clone_url"] = webRepo(r) + ".git"
	m["svn_url"] = webRepo(r)
	m["homepage"] = nil
	m["mirror_url"] = nil
	m["created_at"] = stamp(r.created)
	m["updated_at"] = stamp(r.created)
	m["pushed_at"] = stamp(r.commits[r.branches[r.defaultBranch]].when)
	if _, ok := m["permissions"]; ok {
		access := s.orgs[r.owner]
		m["permissions"] = map[string]any{"admin": access, "maintain": access, "push": access, "triage": true, "pull": true}
	}
}

// contentObj is the contents entry of the file path (content included
// when withContent) at ref.
func (s *Server) contentObj(r *repoState, ref, path, content string, withContent bool) map[string]any {
	m := s.obj("content-file-response-if-content-is-a-file", r)
	sha := blobSHA(content)
	self := s.apiRepo(r) + "/contents/" + escapePath(path) + "?ref=" + url.QueryEscape(ref)
	html := webRepo(r) + "/blob/" + ref + "/" + escapePath(path)
	git := s.apiRepo(r) + "/git/blobs/" + sha
	m["type"] = "file"
	m["size"] = len(content)
	m["name"] = path[strings.LastIndex(path, "/")+1:]
	m["path"] = path
	m["sha"] = sha
	m["url"] = self
	m["git_url"] = git
	m["html_url"] = html
	m["download_url"] = "https://raw.githubusercontent.com/" + r.owner + "/" + r.name + "/" + ref + "/" + escapePath(path)
	m["_links"] = map[string]any{"self": self, "git": git, "html": html}
	if withContent {
		m["encoding"] = "base64"
		m["content"] = wrap60(base64.StdEncoding.EncodeToString([]byte(content)))
	} else {
		delete(m, "encoding")
		delete(m, "content")
		delete(m, "target")
		delete(m, "submodule_git_url")
	}
	return m
}

// dirObj is the contents entry of the directory path at ref.
func (s *Server) dirObj(r *repoState, ref, path string, files map[string]string) map[string]any {
	sub := map[string]string{}
	for p, c := range files {
		if rest, ok := strings.CutPrefix(p, path+"/"); ok {
			sub[rest] = c
		}
	}
	sha := treeSHA(sub)
	self := s.apiRepo(r) + "/contents/" + escapePath(path) + "?ref=" + url.QueryEscape(ref)
	html := webRepo(r) + "/tree/" + ref + "/" + escapePath(path)
	git := s.apiRepo(r) + "/git/trees/" + sha
	return map[string]any{
		"type": "dir", "size": 0, "name": path[strings.LastIndex(path, "/")+1:], "path": path, "sha": sha,
		"url": self, "git_url": git, "html_url": html, "download_url": nil,
		"_links": map[string]any{"self": self, "git": git, "html": html},
	}
}

// wrap60 breaks base64 text into lines of 60 as GitHub sends content.
func wrap60(s string) string {
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60])
		b.WriteByte('\n')
		s = s[60:]
	}
	b.WriteString(s)
	b.WriteByte('\n')
	return b.String()
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// fileCommitObj is the commit of a file-commit answer.
func (s *Server) fileCommitObj(r *repoState, c *commit) map[string]any {
	m := s.obj("file-commit-example-for-creating-a-file", r)["commit"].(map[string]any)
	m["sha"] = c.sha
	m["node_id"] = nodeID("Commit", int64(len(r.commits)))
	m["url"] = s.apiRepo(r) + "/git/commits/" + c.sha
	m["html_url"] = webRepo(r) + "/commit/" + c.sha
	sig := map[string]any{"date": stamp(c.when), "name": c.author, "email": noreplyEmail(c.author)}
	m["author"], m["committer"] = sig, sig
	m["message"] = c.message
	m["tree"] = map[string]any{"url": s.apiRepo(r) + "/git/trees/" + c.tree, "sha": c.tree}
	var parents []any
	for _, p := range c.parents {
		parents = append(parents, map[string]any{"url": s.apiRepo(r) + "/git/commits/" + p, "html_url": webRepo(r) + "/commit/" + p, "sha": p})
	}
	m["parents"] = parents
	if parents == nil {
		m["parents"] = []any{}
	}
	m["verification"] = map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil, "verified_at": nil}
	return m
}

// fullCommitObj is a commit as compare lists it.
func (s *Server) fullCommitObj(r *repoState, c *commit) map[string]any {
	m := s.obj("commit-comparison", r)["commits"].([]any)[0].(map[string]any)
	m["sha"] = c.sha
	m["node_id"] = nodeID("Commit", int64(len(c.sha)))
	m["url"] = s.apiRepo(r) + "/commits/" + c.sha
	m["html_url"] = webRepo(r) + "/commit/" + c.sha
	m["comments_url"] = s.apiRepo(r) + "/commits/" + c.sha + "/comments"
	inner := m["commit"].(map[string]any)
	inner["url"] = s.apiRepo(r) + "/git/commits/" + c.sha
	sig := map[string]any{"name": c.author, "email": noreplyEmail(c.author), "date": stamp(c.when)}
	inner["author"], inner["committer"] = sig, sig
	inner["message"] = c.message
	inner["tree"] = map[string]any{"url": s.apiRepo(r) + "/git/trees/" + c.tree, "sha": c.tree}
	inner["comment_count"] = 0
	m["author"], m["committer"] = s.user(c.author), s.user(c.author)
	parents := []any{}
	for _, p := range c.parents {
		parents = append(parents, map[string]any{"url": s.apiRepo(r) + "/commits/" + p, "html_url": webRepo(r) + "/commit/" + p, "sha": p})
	}
	m["parents"] = parents
	delete(m, "stats")
	delete(m, "files")
	return m
}

// labelsOf is the label objects of an issue or a pull request.
func (s *Server) labelsOf(r *repoState, is *issue) []any {
	labels := []any{}
	for _, l := range is.labels {
		labels = append(labels, s.labelObj(r, r.label(l)))
	}
	return labels
}

// refObj is the git-ref object of a branch.
func (s *Server) refObj(r *repoState, branch string) map[string]any {
	m := s.obj("git-ref", r)
	sha := r.branches[branch]
	m["ref"] = "refs/heads/" + branch
	m["node_id"] = base64.StdEncoding.EncodeToString([]byte("03:Ref" + r.owner + "/" + r.name + ":refs/heads/" + branch))
	m["url"] = s.apiRepo(r) + "/git/refs/heads/" + escapePath(branch)
	m["object"] = map[string]any{"type": "commit", "sha": sha, "url": s.apiRepo(r) + "/git/commits/" + sha}
	return m
}

// labelObj is a label object.
func (s *Server) labelObj(r *repoState, l *label) map[string]any {
	m := s.obj("label", r)
	m["id"] = l.id
	m["node_id"] = nodeID("Label", l.id)
	m["url"] = s.apiRepo(r) + "/labels/" + url.PathEscape(l.name)
	m["name"] = l.name
	m["color"] = l.color
	m["description"] = nil
	if l.descr != "" {
		m["description"] = l.descr
	}
	m["default"] = false
	return m
}

// issueObj is the issue object of an issue or pull request.
func (s *Server) issueObj(r *repoState, is *issue) map[string]any {
	m := s.obj("issue", r)
	n := strconv.Itoa(is.number)
	api := s.apiRepo(r) + "/issues/" + n
	m["id"] = is.id
	m["node_id"] = nodeID("Issue", is.id)
	m["url"] = api
	m["repository_url"] = s.apiRepo(r)
	m["labels_url"] = api + "/labels{/name}"
	m["comments_url"] = api + "/comments"
	m["events_url"] = api + "/events"
	m["html_url"] = webRepo(r) + "/issues/" + n
	m["number"] = is.number
	m["state"] = is.state
	m["state_reason"] = nil
	m["title"] = is.title
	m["body"] = nilIfEmpty(is.body)
	m["user"] = s.user(is.user)
	m["labels"] = s.labelsOf(r, is)
	m["assignee"] = nil
	m["assignees"] = []any{}
	m["milestone"] = nil
	m["locked"] = false
	m["active_lock_reason"] = nil
	m["comments"] = len(is.comments)
	m["created_at"] = stamp(is.created)
	m["updated_at"] = stamp(is.updated)
	m["closed_at"] = stamp(is.closed)
	m["closed_by"] = nil
	m["author_association"] = s.association(r, is.user)
	// Sent by GitHub (recorded in @octokit/fixtures), missing from the example.
	m["timeline_url"] = api + "/timeline"
	m["performed_via_github_app"] = nil
	m["reactions"] = reactions(api + "/reactions")
	delete(m, "pull_request")
	delete(m, "repository")
	if is.pr != nil {
		web := webRepo(r) + "/pull/" + n
		m["html_url"] = web
		m["pull_request"] = map[string]any{
			"url": s.apiRepo(r) + "/pulls/" + n, "html_url": web, "diff_url": web + ".diff", "patch_url": web + ".patch",
			"merged_at": stamp(is.pr.mergedAt),
		}
	}
	return m
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// association is how login relates to r, as author_association says.
func (s *Server) association(r *repoState, login string) string {
	if login == r.owner {
		return "OWNER"
	}
	if s.orgs[r.owner] && login == s.login {
		return "MEMBER"
	}
	return "CONTRIBUTOR"
}

// commentObj is an issue-comment object.
func (s *Server) commentObj(r *repoState, is *issue, c *comment) map[string]any {
	m := s.obj("issue-comment", r)
	kind := "issues"
	if is.pr != nil {
		kind = "pull"
	}
	m["id"] = c.id
	m["node_id"] = nodeID("IssueComment", c.id)
	m["url"] = s.apiRepo(r) + "/issues/comments/" + strconv.FormatInt(c.id, 10)
	m["html_url"] = fmt.Sprintf("%s/%s/%d#issuecomment-%d", webRepo(r), kind, is.number, c.id)
	m["body"] = c.body
	m["user"] = s.user(c.user)
	m["created_at"] = stamp(c.created)
	m["updated_at"] = stamp(c.updated)
	m["issue_url"] = s.apiRepo(r) + "/issues/" + strconv.Itoa(is.number)
	m["author_association"] = s.association(r, c.user)
	return m
}

// branchSide is the head or base of a pull request: tmpl (from the
// example) filled for branch of r at sha.
func (s *Server) branchSide(r *repoState, tmpl map[string]any, branch, sha string) map[string]any {
	tmpl["label"] = r.owner + ":" + branch
	tmpl["ref"] = branch
	tmpl["sha"] = sha
	tmpl["user"] = s.user(r.owner)
	if repo, ok := tmpl["repo"].(map[string]any); ok {
		s.fillRepo(repo, r)
		delete(repo, "template_repository")
		delete(repo, "organization")
		delete(repo, "parent")
		delete(repo, "source")
		repo["license"] = nil
		repo["topics"] = []any{}
	}
	return tmpl
}

// mergeState is whether a pull request can merge and GitHub's
// mergeable_state for it.
func (r *repoState) mergeState(is *issue) (mergeable any, state string) {
	p := is.pr
	if p.merged() || is.state == "closed" {
		return nil, "unknown"
	}
	head, base := r.branches[p.head], r.branches[p.base]
	mb := r.mergeBase(head, base)
	if _, conflicts := merge3(r.commits[mb].files, r.commits[base].files, r.commits[head].files); len(conflicts) > 0 {
		return false, "dirty"
	}
	if c, ok := r.checks[is.number]; ok && c != "success" {
		return true, "blocked"
	}
	if latestReviews(p)["CHANGES_REQUESTED"] {
		return true, "blocked"
	}
	if len(r.only(base, head)) > 0 {
		return true, "behind"
	}
	return true, "clean"
}

// latestReviews is the set of states of each reviewer's latest
// approving or change-requesting review.
func latestReviews(p *pull) map[string]bool {
	last := map[string]string{}
	for _, rv := range p.reviews {
		if rv.state == "APPROVED" || rv.state == "CHANGES_REQUESTED" || rv.state == "DISMISSED" {
			last[rv.user] = rv.state
		}
	}
	out := map[string]bool{}
	for _, st := range last {
		out[st] = true
	}
	return out
}

// pullObj is a pull-request object (full, from pulls/get) or a
// pull-request-simple (from pulls/list).
func (s *Server) pullObj(r *repoState, is *issue, full bool) map[string]any {
	var m map[string]any
	if full {
		m = s.obj("pull-request", r)
	} else {
		m = s.first("pull-request-simple-items", r)
	}
	p := is.pr
	n := strconv.Itoa(is.number)
	api, web := s.apiRepo(r)+"/pulls/"+n, webRepo(r)+"/pull/"+n
	headSHA, baseSHA := r.branches[p.head], r.branches[p.base]
	if p.merged() {
		headSHA, baseSHA = p.headSHA, p.baseSHA
	}
	m["url"] = api
	m["id"] = is.id
	m["node_id"] = nodeID("PullRequest", is.id)
	m["html_url"] = web
	m["diff_url"] = web + ".diff"
	m["patch_url"] = web + ".patch"
	m["issue_url"] = s.apiRepo(r) + "/issues/" + n
	m["commits_url"] = api + "/commits"
	m["review_comments_url"] = api + "/comments"
	m["review_comment_url"] = s.apiRepo(r) + "/pulls/comments{/number}"
	m["comments_url"] = s.apiRepo(r) + "/issues/" + n + "/comments"
	m["statuses_url"] = s.apiRepo(r) + "/statuses/" + headSHA
	m["number"] = is.number
	m["state"] = is.state
	m["locked"] = false
	m["active_lock_reason"] = nil
	m["title"] = is.title
	m["body"] = nilIfEmpty(is.body)
	m["user"] = s.user(is.user)
	m["labels"] = s.labelsOf(r, is)
	m["milestone"] = nil
	m["assignee"] = nil
	m["assignees"] = []any{}
	m["requested_reviewers"] = []any{}
	m["requested_teams"] = []any{}
	m["created_at"] = stamp(is.created)
	m["updated_at"] = stamp(is.updated)
	m["closed_at"] = stamp(is.closed)
	m["merged_at"] = stamp(p.mergedAt)
	m["merge_commit_sha"] = nilIfEmpty(p.mergeCommit)
	m["draft"] = false
	m["auto_merge"] = nil
	m["author_association"] = s.association(r, is.user)
	m["head"] = s.branchSide(r, m["head"].(map[string]any), p.head, headSHA)
	m["base"] = s.branchSide(r, m["base"].(map[string]any), p.base, baseSHA)
	m["_links"] = map[string]any{
		"self": map[string]any{"href": api}, "html": map[string]any{"href": web},
		"issue": map[string]any{"href": s.apiRepo(r) + "/issues/" + n}, "comments": map[string]any{"href": s.apiRepo(r) + "/issues/" + n + "/comments"},
		"review_comments": map[string]any{"href": api + "/comments"}, "review_comment": map[string]any{"href": s.apiRepo(r) + "/pulls/comments{/number}"},
		"commits": map[string]any{"href": api + "/commits"}, "statuses": map[string]any{"href": s.apiRepo(r) + "/statuses/" + headSHA},
	}
	if !full {
		return m
	}
	m["merged"] = p.merged()
	m["mergeable"], m["mergeable_state"] = r.mergeState(is)
	m["rebaseable"] = m["mergeable"]
	m["merged_by"] = nil
	if p.mergedBy != "" {
		m["merged_by"] = s.user(p.mergedBy)
	}
	m["comments"] = len(is.comments)
	m["review_comments"] = 0
	m["maintainer_can_modify"] = false
	mb := r.mergeBase(headSHA, baseSHA)
	commits := r.only(headSHA, baseSHA)
	files := diffTrees(r.commits[mb].files, r.commits[headSHA].files)
	adds, dels := 0, 0
	for _, f := range files {
		adds += f.additions
		dels += f.deletions
	}
	m["commits"], m["additions"], m["deletions"], m["changed_files"] = len(commits), adds, dels, len(files)
	return m
}

// reviewObj is a pull-request-review object.
func (s *Server) reviewObj(r *repoState, is *issue, rv *review) map[string]any {
	m := s.obj("pull-request-review", r)
	web := fmt.Sprintf("%s/pull/%d#pullrequestreview-%d", webRepo(r), is.number, rv.id)
	api := fmt.Sprintf("%s/pulls/%d", s.apiRepo(r), is.number)
	m["id"] = rv.id
	m["node_id"] = nodeID("PullRequestReview", rv.id)
	m["user"] = s.user(rv.user)
	m["body"] = rv.body
	m["state"] = rv.state
	m["html_url"] = web
	m["pull_request_url"] = api
	m["_links"] = map[string]any{"html": map[string]any{"href": web}, "pull_request": map[string]any{"href": api}}
	m["submitted_at"] = stamp(rv.submitted)
	m["commit_id"] = rv.commitID
	m["author_association"] = s.association(r, rv.user)
	return m
}

// workflowObj is a workflow object.
func (s *Server) workflowObj(r *repoState, w *workflow) map[string]any {
	m := s.rewrite(s.spec.example("workflow-paginated"), r).(map[string]any)["workflows"].([]any)[0].(map[string]any)
	id := strconv.FormatInt(w.id, 10)
	m["id"] = w.id
	m["node_id"] = nodeID("Workflow", w.id)
	m["name"] = w.name
	m["path"] = w.path
	m["state"] = "active"
	m["created_at"] = stamp(w.created)
	m["updated_at"] = stamp(w.created)
	m["url"] = s.apiRepo(r) + "/actions/workflows/" + id
	m["html_url"] = webRepo(r) + "/blob/" + r.defaultBranch + "/" + w.path
	m["badge_url"] = webRepo(r) + "/workflows/" + url.PathEscape(w.name) + "/badge.svg"
	return m
}

// runObj is a workflow-run object.
func (s *Server) runObj(r *repoState, rn *run) map[string]any {
	m := s.rewrite(s.spec.example("workflow-run-paginated"), r).(map[string]any)["workflow_runs"].([]any)[0].(map[string]any)
	var w *workflow
	for _, x := range r.workflows {
		if x.id == rn.workflowID {
			w = x
		}
	}
	id := strconv.FormatInt(rn.id, 10)
	api := s.apiRepo(r) + "/actions/runs/" + id
	m["id"] = rn.id
	m["name"] = w.name
	m["node_id"] = nodeID("WorkflowRun", rn.id)
	m["check_suite_id"] = rn.id + 1
	m["check_suite_node_id"] = nodeID("CheckSuite", rn.id+1)
	m["head_branch"] = rn.branch
	m["head_sha"] = rn.sha
	m["path"] = w.path + "@" + rn.branch
	m["run_number"] = rn.number
	m["run_attempt"] = 1
	m["event"] = rn.event
	m["display_title"] = w.name
	m["status"] = rn.status
	m["conclusion"] = nilIfEmpty(rn.conclusion)
	m["workflow_id"] = w.id
	m["url"] = api
	m["html_url"] = webRepo(r) + "/actions/runs/" + id
	m["pull_requests"] = []any{}
	m["created_at"] = stamp(rn.created)
	m["updated_at"] = stamp(rn.updated)
	m["run_started_at"] = stamp(rn.created)
	m["actor"] = s.user(rn.actor)
	m["triggering_actor"] = s.user(rn.actor)
	m["jobs_url"] = api + "/jobs"
	m["logs_url"] = api + "/logs"
	m["check_suite_url"] = s.apiRepo(r) + "/check-suites/" + strconv.FormatInt(rn.id+1, 10)
	m["artifacts_url"] = api + "/artifacts"
	m["cancel_url"] = api + "/cancel"
	m["rerun_url"] = api + "/rerun"
	m["workflow_url"] = s.apiRepo(r) + "/actions/workflows/" + strconv.FormatInt(w.id, 10)
	m["previous_attempt_url"] = nil
	c := r.commits[rn.sha]
	m["head_commit"] = map[string]any{
		"id": c.sha, "tree_id": c.tree, "message": c.message, "timestamp": stamp(c.when),
		"author":    map[string]any{"name": c.author, "email": noreplyEmail(c.author)},
		"committer": map[string]any{"name": c.author, "email": noreplyEmail(c.author)},
	}
	repo := s.repoObj(r)
	for _, k := range []string{"repository", "head_repository"} {
		if old, ok := m[k].(map[string]any); ok {
			for key := range old {
				if v, ok := repo[key]; ok {
					old[key] = v
				}
			}
		}
	}
	return m
}

// reactions is an empty reaction-rollup.
func reactions(url string) map[string]any {
	m := map[string]any{"url": url, "total_count": 0}
	for _, k := range []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "eyes", "rocket"} {
		m[k] = 0
	}
	return m
}
