package githubfake

import (
	"fmt"
	"maps"
	"strings"
	"time"
)

// repoState is one repository: its branches, commits, issues and pull
// requests (one number sequence), labels, workflows and runs.
type repoState struct {
	id            int64
	owner, name   string
	private       bool
	description   string
	defaultBranch string
	created       time.Time

	branches  map[string]string // name → commit sha
	commits   map[string]*commit
	issues    []*issue // by number - 1
	labels    map[string]*label
	workflows []*workflow
	runs      []*run
	checks    map[int]string // pull request number → combined state
	nextID    int64
}

type label struct {
	id                 int64
	name, color, descr string
}

// issue is an issue or, when pr is set, a pull request.
type issue struct {
	id                       int64
	number                   int
	title, body, state, user string
	labels                   []string
	created, updated, closed time.Time
	comments                 []*comment
	pr                       *pull
}

type pull struct {
	head, base  string
	headSHA     string // when merged: the head it merged
	baseSHA     string
	mergedAt    time.Time
	mergeCommit string
	mergedBy    string
	reviews     []*review
}

// merged reports whether the pull request was merged.
func (p *pull) merged() bool { return p.mergeCommit != "" }

type review struct {
	id                          int64
	user, state, body, commitID string
	submitted                   time.Time
}

type comment struct {
	id               int64
	user, body       string
	created, updated time.Time
}

type workflow struct {
	id         int64
	path, name string
	created    time.Time
}

type run struct {
	id, workflowID     int64
	number             int
	branch, sha, event string
	status, conclusion string
	reads              int
	actor              string
	created, updated   time.Time
}

func (r *repoState) newID() int64 {
	r.nextID++
	return r.id*1000 + r.nextID
}

func (r *repoState) key() string { return r.owner + "/" + r.name }

// AddRepo adds a repository whose default branch holds one commit of
// r.Files. Adding one that exists replaces it.
func (s *Server) AddRepo(owner, name string, r Repo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.DefaultBranch == "" {
		r.DefaultBranch = "main"
	}
	s.nextID++
	st := &repoState{
		id: s.nextID, owner: owner, name: name, private: r.Private, description: r.Description,
		defaultBranch: r.DefaultBranch, created: s.now(),
		branches: map[string]string{}, commits: map[string]*commit{}, labels: map[string]*label{},
		checks: map[int]string{},
	}
	files := maps.Clone(r.Files)
	if files == nil {
		files = map[string]string{}
	}
	c := newCommit(files, nil, "Initial commit", owner, s.now())
	st.commits[c.sha] = c
	st.branches[r.DefaultBranch] = c.sha
	if old := s.repos[st.key()]; old != nil {
		delete(s.byID, old.id)
	}
	s.repos[st.key()] = st
	s.byID[st.id] = st
}

// mustRepo is the repository owner/name, panicking when there is none:
// for the helpers tests call.
func (s *Server) mustRepo(owner, name string) *repoState {
	r := s.repos[owner+"/"+name]
	if r == nil {
		panic(fmt.Sprintf("githubfake: no repository %s/%s (AddRepo first)", owner, name))
	}
	return r
}

// AddWorkflow adds an Actions workflow at path (such as
// ".github/workflows/ci.yml") named name, and returns its id.
func (s *Server) AddWorkflow(owner, repo, path, name string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	w := &workflow{id: r.newID(), path: path, name: name, created: s.now()}
	r.workflows = append(r.workflows, w)
	return w.id
}

// SetPRChecks sets the combined state of the required status checks of
// pull request number: "success", "pending", "failure" or "error". Any
// but success makes its mergeable_state "blocked" (the base branch
// requires the checks), and a merge is refused with 405.
func (s *Server) SetPRChecks(owner, repo string, number int, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustRepo(owner, repo).checks[number] = state
}

// CommitFiles makes a commit writing files (path → content) on branch as
// author, creating the branch from the default one when missing, and
// returns the commit's sha. It stands for a push made outside the API.
func (s *Server) CommitFiles(owner, repo, branch, message, author string, files map[string]string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	parent, ok := r.branches[branch]
	if !ok {
		parent = r.branches[r.defaultBranch]
	}
	tree := maps.Clone(r.commits[parent].files)
	maps.Copy(tree, files)
	c := newCommit(tree, []string{parent}, message, author, s.now())
	r.commits[c.sha] = c
	r.branches[branch] = c.sha
	return c.sha
}

// OpenPR opens a pull request from head into base by author (a user
// other than the token's can then be reviewed by it), as if made on the
// web, and returns its number.
func (s *Server) OpenPR(owner, repo, head, base, title, author string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	return s.addIssue(r, title, "", author, nil, &pull{head: head, base: base}).number
}

func (s *Server) addIssue(r *repoState, title, body, user string, labels []string, pr *pull) *issue {
	now := s.now()
	is := &issue{id: r.newID(), number: len(r.issues) + 1, title: title, body: body, state: "open", user: user, labels: labels, created: now, updated: now, pr: pr}
	for _, l := range labels {
		r.label(l)
	}
	r.issues = append(r.issues, is)
	return is
}

// label is the label named name, made (grey, as GitHub makes it) when
// missing.
func (r *repoState) label(name string) *label {
	if l := r.labels[strings.ToLower(name)]; l != nil {
		return l
	}
	l := &label{id: r.newID(), name: name, color: "ededed"}
	r.labels[strings.ToLower(name)] = l
	return l
}

// File is the content of path on branch of owner/repo, and whether it is
// there.
func (s *Server) File(owner, repo, branch, path string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	sha, ok := r.branches[branch]
	if !ok {
		return "", false
	}
	content, ok := r.commits[sha].files[path]
	return content, ok
}

// Branch is the sha of the commit branch of owner/repo points at, and
// whether the branch exists.
func (s *Server) Branch(owner, repo, branch string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sha, ok := s.mustRepo(owner, repo).branches[branch]
	return sha, ok
}

// PR is the state of a pull request, for tests to inspect.
type PR struct {
	Number             int
	Title, Body, State string
	Head, Base, User   string
	Merged             bool
	MergeCommitSHA     string
	Reviews            []string // states, in order: APPROVED, CHANGES_REQUESTED, COMMENTED
	Comments           []string // bodies of its issue comments
}

// PullRequest is pull request number of owner/repo, and whether it exists.
func (s *Server) PullRequest(owner, repo string, number int) (PR, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(owner, repo)
	if number < 1 || number > len(r.issues) || r.issues[number-1].pr == nil {
		return PR{}, false
	}
	is := r.issues[number-1]
	p := PR{Number: number, Title: is.title, Body: is.body, State: is.state, Head: is.pr.head, Base: is.pr.base, User: is.user, Merged: is.pr.merged(), MergeCommitSHA: is.pr.mergeCommit}
	for _, rv := range is.pr.reviews {
		p.Reviews = append(p.Reviews, rv.state)
	}
	for _, c := range is.comments {
		p.Comments = append(p.Comments, c.body)
	}
	return p, true
}

// Run is the state of a workflow run, for tests to inspect.
type Run struct {
	ID, WorkflowID     int64
	Branch, SHA, Event string
	Status, Conclusion string
}

// Runs lists the workflow runs of owner/repo, oldest first.
func (s *Server) Runs(owner, repo string) []Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Run
	for _, rn := range s.mustRepo(owner, repo).runs {
		out = append(out, Run{ID: rn.id, WorkflowID: rn.workflowID, Branch: rn.branch, SHA: rn.sha, Event: rn.event, Status: rn.status, Conclusion: rn.conclusion})
	}
	return out
}
