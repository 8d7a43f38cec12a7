package githubfake

import (
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// route is the handler of one operation: write when it needs the token,
// push when it also needs write access to the repository (without it
// GitHub answers 404, as if the repository were not there).
type route struct {
	fn    func(*call) reply
	write bool
	push  bool
}

// routes maps "METHOD template" (as the OpenAPI description spells the
// template) to its handler; any other operation answers 404.
var routes = map[string]route{
	"GET /repos/{owner}/{repo}":                                             {fn: getRepo},
	"GET /repos/{owner}/{repo}/contents/{path}":                             {fn: getContent},
	"PUT /repos/{owner}/{repo}/contents/{path}":                             {fn: putContent, write: true, push: true},
	"GET /repos/{owner}/{repo}/branches":                                    {fn: listBranches},
	"GET /repos/{owner}/{repo}/git/ref/{ref}":                               {fn: getRef},
	"POST /repos/{owner}/{repo}/git/refs":                                   {fn: createRef, write: true, push: true},
	"GET /repos/{owner}/{repo}/pulls":                                       {fn: listPulls},
	"POST /repos/{owner}/{repo}/pulls":                                      {fn: createPull, write: true},
	"GET /repos/{owner}/{repo}/pulls/{pull_number}":                         {fn: getPull},
	"PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge":                   {fn: mergePull, write: true, push: true},
	"POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews":                {fn: createReview, write: true},
	"GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews":                 {fn: listReviews},
	"GET /repos/{owner}/{repo}/issues":                                      {fn: listIssues},
	"POST /repos/{owner}/{repo}/issues":                                     {fn: createIssue, write: true},
	"GET /repos/{owner}/{repo}/issues/{issue_number}/comments":              {fn: listComments},
	"POST /repos/{owner}/{repo}/issues/{issue_number}/comments":             {fn: createComment, write: true},
	"POST /repos/{owner}/{repo}/labels":                                     {fn: createLabel, write: true, push: true},
	"GET /repos/{owner}/{repo}/actions/workflows":                           {fn: listWorkflows},
	"POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches": {fn: dispatchWorkflow, write: true, push: true},
	"GET /repos/{owner}/{repo}/actions/runs":                                {fn: listRuns},
	"GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs":        {fn: listRuns},
	"GET /repos/{owner}/{repo}/compare/{basehead}":                          {fn: compare},
	"GET /repos/{owner}/{repo}/commits/{ref}":                               {fn: getCommit},
	"GET /repos/{owner}/{repo}/commits/{ref}/status":                        {fn: combinedStatus},
	"GET /repos/{owner}/{repo}/commits/{ref}/check-runs":                    {fn: checkRuns},
	"GET /user":       {fn: getUser, write: true},
	"GET /rate_limit": {fn: getRateLimit},
}

func str(m map[string]any, k string) string {
	v, _ := m[k].(string)
	return v
}

func getRepo(c *call) reply { return jsonReply(http.StatusOK, c.s.repoObj(c.repo)) }

// resolve is the commit sha a ref names (a branch, or a commit sha) and
// the name to show for it; ok is false when it names neither.
func (r *repoState) resolve(ref string) (sha, name string, ok bool) {
	if ref == "" {
		ref = r.defaultBranch
	}
	ref = strings.TrimPrefix(ref, "refs/heads/")
	if sha, ok := r.branches[ref]; ok {
		return sha, ref, true
	}
	if r.commits[ref] != nil {
		return ref, ref, true
	}
	return "", "", false
}

func getContent(c *call) reply {
	r := c.repo
	sha, ref, ok := r.resolve(c.query.Get("ref"))
	if !ok {
		return c.errorReply(http.StatusNotFound, "No commit found for the ref "+c.query.Get("ref"))
	}
	files := r.commits[sha].files
	path := strings.Trim(c.path["path"], "/")
	if content, ok := files[path]; ok {
		if accept := c.r.Header.Get("Accept"); strings.Contains(accept, ".raw") {
			// GitHub answers in the raw media type asked for
			// (application/vnd.github.raw, or .v3.raw).
			media, _, _ := strings.Cut(accept, ";")
			media = strings.TrimSuffix(strings.TrimSpace(media), "+json")
			return reply{status: http.StatusOK, raw: []byte(content), ctype: media + "; charset=utf-8",
				header: http.Header{"X-Github-Media-Type": {"github.v3; param=raw"}}}
		}
		return jsonReply(http.StatusOK, c.s.contentObj(r, ref, path, content, true))
	}
	// A directory: its entries, files and subdirectories, by name.
	entries := map[string]map[string]any{}
	prefix := ""
	if path != "" {
		prefix = path + "/"
	}
	for p, content := range files {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		if dir, _, nested := strings.Cut(rest, "/"); nested {
			if _, seen := entries[dir]; !seen { // once per subdirectory: it hashes its tree
				entries[dir] = c.s.dirObj(r, ref, prefix+dir, files)
			}
		} else {
			entries[rest] = c.s.contentObj(r, ref, p, content, false)
		}
	}
	if len(entries) == 0 {
		return c.notFound()
	}
	var list []any
	for _, k := range sortedKeys(entries) {
		list = append(list, entries[k])
	}
	return jsonReply(http.StatusOK, list)
}

func putContent(c *call) reply {
	r := c.repo
	path := strings.Trim(c.path["path"], "/")
	branch := str(c.body, "branch")
	if branch == "" {
		branch = r.defaultBranch
	}
	parent, ok := r.branches[branch]
	if !ok {
		return c.errorReply(http.StatusNotFound, "Branch "+branch+" not found")
	}
	data, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(str(c.body, "content"), "\n", ""))
	if err != nil {
		return c.errorReply(http.StatusUnprocessableEntity, "content is not valid Base64")
	}
	old, exists := r.commits[parent].files[path]
	given := str(c.body, "sha")
	switch {
	case exists && given == "":
		return c.errorReply(http.StatusUnprocessableEntity, "Invalid request.\n\n\"sha\" wasn't supplied.")
	case exists && given != blobSHA(old):
		return c.errorReply(http.StatusConflict, path+" does not match "+given)
	}
	tree := maps.Clone(r.commits[parent].files)
	tree[path] = string(data)
	cm := newCommit(tree, []string{parent}, str(c.body, "message"), c.s.login, c.s.now())
	r.commits[cm.sha] = cm
	r.branches[branch] = cm.sha
	status := http.StatusCreated
	if exists {
		status = http.StatusOK
	}
	content := c.s.contentObj(r, branch, path, string(data), false)
	content["url"] = c.s.apiRepo(r) + "/contents/" + escapePath(path) + "?ref=" + branch
	return jsonReply(status, map[string]any{"content": content, "commit": c.s.fileCommitObj(r, cm)})
}

func listBranches(c *call) reply {
	r := c.repo
	names := sortedKeys(r.branches)
	if c.query.Get("protected") == "true" {
		names = nil
	}
	out, h := pageOf(c, names, func(name string) any {
		sha := r.branches[name]
		return map[string]any{
			"name":      name,
			"commit":    map[string]any{"sha": sha, "url": c.s.apiRepo(r) + "/commits/" + sha},
			"protected": false,
		}
	})
	return reply{status: http.StatusOK, body: out, header: h}
}

func getRef(c *call) reply {
	branch, ok := strings.CutPrefix(c.path["ref"], "heads/")
	if _, exists := c.repo.branches[branch]; !ok || !exists {
		return c.notFound()
	}
	return jsonReply(http.StatusOK, c.s.refObj(c.repo, branch))
}

func createRef(c *call) reply {
	r := c.repo
	ref, sha := str(c.body, "ref"), str(c.body, "sha")
	if !strings.HasPrefix(ref, "refs/") || strings.Count(ref, "/") < 2 {
		return c.errorReply(http.StatusUnprocessableEntity, "Reference name must start with 'refs/' and have at least two slashes.")
	}
	branch, ok := strings.CutPrefix(ref, "refs/heads/")
	if !ok {
		return c.errorReply(http.StatusUnprocessableEntity, "Reference update failed")
	}
	if r.commits[sha] == nil {
		return c.errorReply(http.StatusUnprocessableEntity, "Object does not exist")
	}
	if _, exists := r.branches[branch]; exists {
		return c.errorReply(http.StatusUnprocessableEntity, "Reference already exists")
	}
	r.branches[branch] = sha
	rep := jsonReply(http.StatusCreated, c.s.refObj(r, branch))
	rep.header = http.Header{"Location": {c.s.apiRepo(r) + "/git/refs/heads/" + escapePath(branch)}}
	return rep
}

// pulls lists the pull requests of r, newest first.
func (r *repoState) pulls() []*issue {
	var out []*issue
	for i := len(r.issues) - 1; i >= 0; i-- {
		if r.issues[i].pr != nil {
			out = append(out, r.issues[i])
		}
	}
	return out
}

// stateMatches says whether an issue's state passes a ?state= filter
// (default open).
func stateMatches(filter, state string) bool {
	return filter == "all" || state == filter || (filter == "" && state == "open")
}

func listPulls(c *call) reply {
	r := c.repo
	var list []*issue
	for _, is := range r.pulls() {
		if !stateMatches(c.query.Get("state"), is.state) {
			continue
		}
		if head := c.query.Get("head"); head != "" {
			owner, branch, ok := strings.Cut(head, ":")
			if !ok {
				owner, branch = r.owner, head
			}
			if owner != r.owner || branch != is.pr.head {
				continue
			}
		}
		if base := c.query.Get("base"); base != "" && base != is.pr.base {
			continue
		}
		list = append(list, is)
	}
	if c.query.Get("direction") == "asc" {
		slices.Reverse(list)
	}
	out, h := pageOf(c, list, func(is *issue) any { return c.s.pullObj(r, is, false) })
	return reply{status: http.StatusOK, body: out, header: h}
}

func createPull(c *call) reply {
	r := c.repo
	head, base := str(c.body, "head"), str(c.body, "base")
	if owner, branch, ok := strings.Cut(head, ":"); ok {
		if owner != r.owner {
			return c.validationFailed(map[string]any{"resource": "PullRequest", "code": "invalid", "field": "head"})
		}
		head = branch
	}
	if str(c.body, "title") == "" {
		return c.validationFailed(map[string]any{"resource": "PullRequest", "code": "missing_field", "field": "title"})
	}
	headSHA, okHead := r.branches[head]
	baseSHA, okBase := r.branches[base]
	switch {
	case !okBase:
		return c.validationFailed(map[string]any{"resource": "PullRequest", "code": "invalid", "field": "base"})
	case !okHead:
		return c.validationFailed(map[string]any{"resource": "PullRequest", "code": "invalid", "field": "head"})
	}
	for _, is := range r.pulls() {
		if is.state == "open" && is.pr.head == head && is.pr.base == base {
			return c.validationFailed(map[string]any{"resource": "PullRequest", "code": "custom", "message": "A pull request already exists for " + r.owner + ":" + head + "."})
		}
	}
	if len(r.only(headSHA, baseSHA)) == 0 {
		return c.validationFailed(map[string]any{"resource": "PullRequest", "code": "custom", "message": "No commits between " + base + " and " + head})
	}
	is := c.s.addIssue(r, str(c.body, "title"), str(c.body, "body"), c.s.login, nil, &pull{head: head, base: base})
	rep := jsonReply(http.StatusCreated, c.s.pullObj(r, is, true))
	rep.header = http.Header{"Location": {c.s.apiRepo(r) + "/pulls/" + strconv.Itoa(is.number)}}
	return rep
}

// issueAt is issue (or pull request) number n of r, or nil.
func (c *call) issueAt(param string) *issue {
	n, err := strconv.Atoi(c.path[param])
	if err != nil || n < 1 || n > len(c.repo.issues) {
		return nil
	}
	return c.repo.issues[n-1]
}

// pullAt is pull request path parameter pull_number of r, or nil.
func (c *call) pullAt() *issue {
	is := c.issueAt("pull_number")
	if is == nil || is.pr == nil {
		return nil
	}
	return is
}

func getPull(c *call) reply {
	is := c.pullAt()
	if is == nil {
		return c.notFound()
	}
	return jsonReply(http.StatusOK, c.s.pullObj(c.repo, is, true))
}

func mergePull(c *call) reply {
	r, is := c.repo, c.pullAt()
	if is == nil {
		return c.notFound()
	}
	p := is.pr
	if p.merged() || is.state != "open" {
		return c.errorReply(http.StatusMethodNotAllowed, "Pull Request is not mergeable")
	}
	headSHA, baseSHA := r.branches[p.head], r.branches[p.base]
	if sha := str(c.body, "sha"); sha != "" && sha != headSHA {
		return c.errorReply(http.StatusConflict, "Head branch was modified. Review and try the merge again.")
	}
	if mergeable, state := r.mergeState(is); mergeable != true || state == "blocked" {
		return c.errorReply(http.StatusMethodNotAllowed, "Pull Request is not mergeable")
	}
	mb := r.mergeBase(headSHA, baseSHA)
	tree, _ := merge3(r.commits[mb].files, r.commits[baseSHA].files, r.commits[headSHA].files)
	method := str(c.body, "merge_method")
	title := str(c.body, "commit_title")
	var cm *commit
	switch method {
	case "squash", "rebase":
		if title == "" {
			title = fmt.Sprintf("%s (#%d)", is.title, is.number)
		}
		cm = newCommit(tree, []string{baseSHA}, title, c.s.login, c.s.now())
	default:
		if title == "" {
			title = fmt.Sprintf("Merge pull request #%d from %s/%s", is.number, r.owner, p.head)
		}
		msg := title
		if body := str(c.body, "commit_message"); body != "" {
			msg += "\n\n" + body
		}
		cm = newCommit(tree, []string{baseSHA, headSHA}, msg, c.s.login, c.s.now())
	}
	r.commits[cm.sha] = cm
	r.branches[p.base] = cm.sha
	now := c.s.now()
	p.mergedAt, p.mergeCommit, p.mergedBy = now, cm.sha, c.s.login
	p.headSHA, p.baseSHA = headSHA, baseSHA
	is.state, is.closed, is.updated = "closed", now, now
	out := c.s.spec.example("pull-request-merge-result-response-if-merge-was-successful").(map[string]any)
	out["sha"] = cm.sha
	out["merged"] = true
	out["message"] = "Pull Request successfully merged"
	return jsonReply(http.StatusOK, out)
}

func createReview(c *call) reply {
	r, is := c.repo, c.pullAt()
	if is == nil {
		return c.notFound()
	}
	event := str(c.body, "event")
	body := str(c.body, "body")
	unprocessable := func(msg string) reply {
		b := c.errorBody(http.StatusUnprocessableEntity, "Unprocessable Entity")
		b["errors"] = []any{msg}
		return jsonReply(http.StatusUnprocessableEntity, b)
	}
	state := map[string]string{"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED", "": "PENDING"}[event]
	switch {
	case (event == "REQUEST_CHANGES" || event == "COMMENT") && body == "":
		return unprocessable("Body is required when using " + event + " event")
	case event == "APPROVE" && is.user == c.s.login:
		return unprocessable("Review Can not approve your own pull request")
	case event == "REQUEST_CHANGES" && is.user == c.s.login:
		return unprocessable("Review Can not request changes on your own pull request")
	}
	commitID := str(c.body, "commit_id")
	if commitID == "" {
		commitID = r.branches[is.pr.head]
	}
	rv := &review{id: r.newID(), user: c.s.login, state: state, body: body, commitID: commitID}
	if state != "PENDING" {
		rv.submitted = c.s.now()
	}
	is.pr.reviews = append(is.pr.reviews, rv)
	return jsonReply(http.StatusOK, c.s.reviewObj(r, is, rv))
}

func listReviews(c *call) reply {
	is := c.pullAt()
	if is == nil {
		return c.notFound()
	}
	out, h := pageOf(c, is.pr.reviews, func(rv *review) any { return c.s.reviewObj(c.repo, is, rv) })
	return reply{status: http.StatusOK, body: out, header: h}
}

func listIssues(c *call) reply {
	r := c.repo
	var want []string
	if l := c.query.Get("labels"); l != "" {
		want = strings.Split(l, ",")
	}
	var list []*issue
	for i := len(r.issues) - 1; i >= 0; i-- {
		is := r.issues[i]
		if !stateMatches(c.query.Get("state"), is.state) {
			continue
		}
		has := true
		for _, w := range want {
			if !slices.ContainsFunc(is.labels, func(l string) bool { return strings.EqualFold(l, strings.TrimSpace(w)) }) {
				has = false
			}
		}
		if creator := c.query.Get("creator"); creator != "" && creator != is.user {
			has = false
		}
		if has {
			list = append(list, is)
		}
	}
	if c.query.Get("direction") == "asc" {
		slices.Reverse(list)
	}
	out, h := pageOf(c, list, func(is *issue) any { return c.s.issueObj(r, is) })
	return reply{status: http.StatusOK, body: out, header: h}
}

func createIssue(c *call) reply {
	r := c.repo
	title := fmt.Sprint(c.body["title"])
	if f, ok := c.body["title"].(float64); ok {
		title = strconv.FormatFloat(f, 'f', -1, 64)
	}
	var labels []string
	if ls, ok := c.body["labels"].([]any); ok {
		for _, l := range ls {
			switch l := l.(type) {
			case string:
				labels = append(labels, l)
			case map[string]any:
				labels = append(labels, str(l, "name"))
			}
		}
	}
	is := c.s.addIssue(r, title, str(c.body, "body"), c.s.login, labels, nil)
	rep := jsonReply(http.StatusCreated, c.s.issueObj(r, is))
	rep.header = http.Header{"Location": {c.s.apiRepo(r) + "/issues/" + strconv.Itoa(is.number)}}
	return rep
}

func listComments(c *call) reply {
	is := c.issueAt("issue_number")
	if is == nil {
		return c.notFound()
	}
	out, h := pageOf(c, is.comments, func(cm *comment) any { return c.s.commentObj(c.repo, is, cm) })
	return reply{status: http.StatusOK, body: out, header: h}
}

func createComment(c *call) reply {
	r, is := c.repo, c.issueAt("issue_number")
	if is == nil {
		return c.notFound()
	}
	now := c.s.now()
	cm := &comment{id: r.newID(), user: c.s.login, body: str(c.body, "body"), created: now, updated: now}
	is.comments = append(is.comments, cm)
	is.updated = now
	rep := jsonReply(http.StatusCreated, c.s.commentObj(r, is, cm))
	rep.header = http.Header{"Location": {c.s.apiRepo(r) + "/issues/comments/" + strconv.FormatInt(cm.id, 10)}}
	return rep
}

var hexColor = regexp.MustCompile(`^#?[0-9a-fA-F]{6}$`)

func createLabel(c *call) reply {
	r := c.repo
	name, color := str(c.body, "name"), str(c.body, "color")
	if color != "" && !hexColor.MatchString(color) {
		return c.validationFailed(map[string]any{"resource": "Label", "code": "invalid", "field": "color"})
	}
	if r.labels[strings.ToLower(name)] != nil {
		return c.validationFailed(map[string]any{"resource": "Label", "code": "already_exists", "field": "name"})
	}
	l := r.label(name)
	if color != "" {
		l.color = strings.TrimPrefix(color, "#")
	}
	l.descr = str(c.body, "description")
	return jsonReply(http.StatusCreated, c.s.labelObj(r, l))
}

func listWorkflows(c *call) reply {
	list, h := pageOf(c, c.repo.workflows, func(w *workflow) any { return c.s.workflowObj(c.repo, w) })
	return reply{status: http.StatusOK, body: map[string]any{"total_count": len(c.repo.workflows), "workflows": list}, header: h}
}

// workflow is the workflow a workflow_id names: its id, or its file name.
func (c *call) workflow() *workflow {
	id := c.path["workflow_id"]
	for _, w := range c.repo.workflows {
		if strconv.FormatInt(w.id, 10) == id || w.path == id || w.path[strings.LastIndex(w.path, "/")+1:] == id {
			return w
		}
	}
	return nil
}

func dispatchWorkflow(c *call) reply {
	r, w := c.repo, c.workflow()
	if w == nil {
		return c.notFound()
	}
	ref := strings.TrimPrefix(str(c.body, "ref"), "refs/heads/")
	sha, ok := r.branches[ref]
	if !ok {
		return c.errorReply(http.StatusUnprocessableEntity, "No ref found for: "+str(c.body, "ref"))
	}
	now := c.s.now()
	number := 1
	for _, rn := range r.runs {
		if rn.workflowID == w.id {
			number++
		}
	}
	rn := &run{id: r.newID(), workflowID: w.id, number: number, branch: ref, sha: sha, event: "workflow_dispatch", status: "queued", actor: c.s.login, created: now, updated: now}
	r.runs = append(r.runs, rn)
	if b, _ := c.body["return_run_details"].(bool); b {
		return jsonReply(http.StatusOK, map[string]any{
			"workflow_run_id": rn.id,
			"run_url":         c.s.apiRepo(r) + "/actions/runs/" + strconv.FormatInt(rn.id, 10),
			"html_url":        webRepo(r) + "/actions/runs/" + strconv.FormatInt(rn.id, 10),
		})
	}
	return reply{status: http.StatusNoContent}
}

// advance moves a run one step each time it is listed: queued when first
// seen, completed with success from the next look on.
func (s *Server) advance(rn *run) {
	rn.reads++
	if rn.reads >= 2 && rn.status != "completed" {
		rn.status, rn.conclusion, rn.updated = "completed", "success", s.now()
	}
}

func listRuns(c *call) reply {
	r := c.repo
	var w *workflow
	if _, ok := c.path["workflow_id"]; ok {
		if w = c.workflow(); w == nil {
			return c.notFound()
		}
	}
	status := c.query.Get("status")
	var list []*run
	for i := len(r.runs) - 1; i >= 0; i-- {
		rn := r.runs[i]
		if w != nil && rn.workflowID != w.id {
			continue
		}
		c.s.advance(rn)
		if status != "" && status != rn.status && status != rn.conclusion {
			continue
		}
		if b := c.query.Get("branch"); b != "" && b != rn.branch {
			continue
		}
		if e := c.query.Get("event"); e != "" && e != rn.event {
			continue
		}
		list = append(list, rn)
	}
	out, h := pageOf(c, list, func(rn *run) any { return c.s.runObj(r, rn) })
	return reply{status: http.StatusOK, body: map[string]any{"total_count": len(list), "workflow_runs": out}, header: h}
}

func compare(c *call) reply {
	r := c.repo
	baseRef, headRef, ok := strings.Cut(c.path["basehead"], "...")
	if !ok {
		return c.notFound()
	}
	baseSHA, _, okB := r.resolve(baseRef)
	headSHA, _, okH := r.resolve(headRef)
	if !okB || !okH {
		return c.notFound()
	}
	mb := r.mergeBase(baseSHA, headSHA)
	ahead, behind := r.only(headSHA, baseSHA), r.only(baseSHA, headSHA)
	status := "diverged"
	switch {
	case len(ahead) == 0 && len(behind) == 0:
		status = "identical"
	case len(behind) == 0:
		status = "ahead"
	case len(ahead) == 0:
		status = "behind"
	}
	m := c.s.obj("commit-comparison", r)
	web := webRepo(r) + "/compare/" + baseRef + "..." + headRef
	m["url"] = c.s.apiRepo(r) + "/compare/" + baseRef + "..." + headRef
	m["html_url"] = web
	m["permalink_url"] = webRepo(r) + "/compare/" + r.owner + ":" + baseSHA + "..." + r.owner + ":" + headSHA
	m["diff_url"] = web + ".diff"
	m["patch_url"] = web + ".patch"
	m["base_commit"] = c.s.fullCommitObj(r, r.commits[baseSHA])
	m["merge_base_commit"] = c.s.fullCommitObj(r, r.commits[mb])
	m["status"] = status
	m["ahead_by"], m["behind_by"], m["total_commits"] = len(ahead), len(behind), len(ahead)
	commits := []any{}
	for _, cm := range ahead {
		commits = append(commits, c.s.fullCommitObj(r, cm))
	}
	m["commits"] = commits
	files := []any{}
	for _, f := range diffTrees(r.commits[mb].files, r.commits[headSHA].files) {
		entry := map[string]any{
			"sha": f.sha, "filename": f.filename, "status": f.status,
			"additions": f.additions, "deletions": f.deletions, "changes": f.additions + f.deletions,
			"blob_url":     webRepo(r) + "/blob/" + headSHA + "/" + escapePath(f.filename),
			"raw_url":      webRepo(r) + "/raw/" + headSHA + "/" + escapePath(f.filename),
			"contents_url": c.s.apiRepo(r) + "/contents/" + escapePath(f.filename) + "?ref=" + headSHA,
		}
		if f.patch != "" {
			entry["patch"] = f.patch
		}
		files = append(files, entry)
	}
	m["files"] = files
	return jsonReply(http.StatusOK, m)
}

func getUser(c *call) reply {
	m := c.s.spec.example("private-user-response-with-public-and-private-profile-information").(map[string]any)
	maps.Copy(m, c.s.user(c.s.login))
	m["name"] = c.s.login
	m["email"] = nil
	m["company"], m["blog"], m["location"], m["bio"], m["twitter_username"] = nil, "", nil, nil, nil
	m["hireable"] = nil
	return jsonReply(http.StatusOK, m)
}

func getRateLimit(c *call) reply {
	s := c.s
	m := s.spec.example("rate-limit-overview").(map[string]any)
	limit, used := s.limitFor(c.auth), s.used[c.auth]
	core := map[string]any{"limit": limit, "used": used, "remaining": limit - used, "reset": s.window.Add(time.Hour).Unix()}
	res := m["resources"].(map[string]any)
	res["core"] = core
	m["rate"] = core
	return jsonReply(http.StatusOK, m)
}
