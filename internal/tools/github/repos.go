package github

// Connections (gh_connect, gh_disconnect), repositories, files, branches
// and comparisons.

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/barrhawk/barrhawk/internal/githubapi"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/google/go-github/v75/github"
)

func connectionTools() []tool.Tool { return []tool.Tool{connectTool(), disconnectTool()} }

func repoTools() []tool.Tool {
	return []tool.Tool{repoInfoTool(), fileReadTool(), fileWriteTool(), branchListTool(), branchCreateTool(), diffTool()}
}

// connectTool is gh_connect: a connection under an alias, checked by
// asking GitHub who the token is.
func connectTool() tool.Tool {
	type args struct {
		Token string `json:"token"`
		Alias string `json:"alias"`
		API   string `json:"api"`
	}
	return tool.Tool{
		Def: def("gh_connect", groupRepos, "Connect to GitHub with a token, under an alias the other gh_* tools take (optional: without it they use the token found as gh finds it: GH_TOKEN, GITHUB_TOKEN, gh's login). Checks the token: answers {alias, login, api, scopes, rateLimit: {limit, remaining, reset}}. The token is never shown.", false,
			schema.Object(
				schema.String("token", "A personal access token, or a GitHub App or Actions token").Required(),
				schema.String("alias", "The connection's name (default \"default\", which replaces the environment's token)"),
				schema.String("api", "The REST API (default: github.api, GITHUB_API_URL, else https://api.github.com; GitHub Enterprise Server: https://HOST/api/v3)"),
			)).
			WithPhrases("github token", "authenticate github", "gh auth login", "PAT", "github login", "api rate limit", "personal access token", "github enterprise api"),
		Run: tool.Typed(func(ctx context.Context, in args, call *tool.Call) (any, error) {
			if err := call.NeedResources("GitHub tools"); err != nil {
				return nil, err
			}
			alias := in.Alias
			if alias == "" {
				alias = defaultAlias
			}
			api, from := in.API, "the api argument"
			if api == "" {
				api, from = githubapi.FindAPI(settings.Get().API)
			}
			if strings.TrimSpace(in.Token) == "" {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"token\" is empty; give a personal access token (or leave gh_connect out to use GH_TOKEN, GITHUB_TOKEN or gh's login)")
			}
			c, err := githubapi.New(githubapi.Options{API: api, APIFrom: from, Token: in.Token})
			if err != nil {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "%v", err)
			}
			c.TokenFrom = "gh_connect"
			user, resp, err := c.Users.Get(ctx, "")
			if err != nil {
				return nil, c.Err("check the token (GET /user)", err)
			}
			call.Resources.Put(tool.KindGitHub, alias, &conn{Client: c, explicit: true}, nil)
			out := map[string]any{"alias": alias, "login": user.GetLogin(), "api": c.API}
			if s := resp.Header.Get("X-OAuth-Scopes"); s != "" {
				out["scopes"] = strings.Split(strings.ReplaceAll(s, " ", ""), ",")
			}
			if resp.Rate.Limit > 0 {
				out["rateLimit"] = map[string]any{"limit": resp.Rate.Limit, "remaining": resp.Rate.Remaining, "reset": ts(&resp.Rate.Reset)}
			}
			return cleaned(c, out)
		}),
	}
}

// disconnectTool is gh_disconnect.
func disconnectTool() tool.Tool {
	type args struct {
		Alias string `json:"alias"`
	}
	return tool.Tool{
		Def: def("gh_disconnect", groupRepos, "Forget a GitHub connection gh_connect made (default alias \"default\": the next call uses the environment's token again). Answers {alias, disconnected}.", false,
			schema.Object(schema.String("alias", "The connection (default \"default\")"))).
			WithPhrases("gh auth logout", "forget github token", "log out of github", "drop github connection", "switch github account"),
		Run: tool.Typed(func(_ context.Context, in args, call *tool.Call) (any, error) {
			if err := call.NeedResources("GitHub tools"); err != nil {
				return nil, err
			}
			alias := in.Alias
			if alias == "" {
				alias = defaultAlias
			}
			ok, err := call.Resources.Close(tool.KindGitHub, alias)
			if err != nil {
				return nil, err
			}
			return map[string]any{"alias": alias, "disconnected": ok}, nil
		}),
	}
}

// repoInfoTool is gh_repo_info.
func repoInfoTool() tool.Tool {
	return tool.Tool{
		Def: def("gh_repo_info", groupRepos, "A repository's facts: {fullName, description, private, visibility, defaultBranch, url, language, topics, stars, forks, openIssues, archived, fork, license, pushedAt, updatedAt, permissions}.", false, repoProps()).
			WithPhrases("repo details", "default branch", "what is the default branch", "repository metadata", "stars and forks", "gh repo view", "repo visibility", "is repo private", "repo license", "repo topics", "stars and open issues of a repo", "default branch and visibility"),
		Run: run(func(ctx context.Context, in repoArgs, c *conn) (any, error) {
			r, _, err := c.Repositories.Get(ctx, in.Owner, in.Repo)
			if err != nil {
				return nil, c.Err("repository "+in.full(), err)
			}
			out := map[string]any{
				"fullName": r.GetFullName(), "description": r.GetDescription(), "private": r.GetPrivate(), "visibility": r.GetVisibility(),
				"defaultBranch": r.GetDefaultBranch(), "url": r.GetHTMLURL(), "language": r.GetLanguage(), "topics": r.Topics,
				"stars": r.GetStargazersCount(), "forks": r.GetForksCount(), "openIssues": r.GetOpenIssuesCount(),
				"archived": r.GetArchived(), "fork": r.GetFork(), "pushedAt": ts(r.PushedAt), "updatedAt": ts(r.UpdatedAt),
			}
			if l := r.GetLicense(); l != nil {
				out["license"] = l.GetSPDXID()
			}
			if p := r.GetPermissions(); p != nil {
				out["permissions"] = p
			}
			return out, nil
		}),
	}
}

// defaultMaxFileBytes bounds the content gh_file_read answers.
const defaultMaxFileBytes = 100 << 10

// fileReadTool is gh_file_read: a file decoded (text as text, anything
// else as base64) with its size and blob sha, or a directory's entries.
func fileReadTool() tool.Tool {
	type args struct {
		repoArgs
		Path     string `json:"path"`
		Ref      string `json:"ref"`
		MaxBytes int    `json:"maxBytes"`
	}
	return tool.Tool{
		Def: def("gh_file_read", groupRepos, "Read a file of a repository at a ref: {path, ref, size, sha, encoding (utf-8, or base64 for binary), content}, the content cut at maxBytes with a note. sha is what gh_file_write takes to replace the file. A directory answers its entries [{name, type, size, sha}].", false,
			repoProps(
				schema.String("path", "The file's path in the repository").Required(),
				schema.String("ref", "A branch, tag or commit sha (default: the default branch)"),
				schema.Integer("maxBytes", fmt.Sprintf("The most content bytes to answer (default %d)", defaultMaxFileBytes)).Min(1),
			)).
			WithPhrases("read file from github", "file contents on github", "raw file", "gh api contents", "view file in repo", "file at commit", "read file on a branch", "readme of a remote repo", "browse repo directory", "a file on a branch of a repo"),
		Run: run(func(ctx context.Context, in args, c *conn) (any, error) {
			path := strings.Trim(in.Path, "/")
			file, dir, _, err := c.Repositories.GetContents(ctx, in.Owner, in.Repo, path, &github.RepositoryContentGetOptions{Ref: in.Ref})
			if err != nil {
				return nil, c.Err(fmt.Sprintf("read %s in %s%s", path, in.full(), atRef(in.Ref)), err)
			}
			if file == nil {
				entries := make([]map[string]any, 0, len(dir))
				for _, e := range dir {
					entries = append(entries, map[string]any{"name": e.GetName(), "type": e.GetType(), "size": e.GetSize(), "sha": e.GetSHA()})
				}
				return map[string]any{"path": path, "ref": in.Ref, "type": "dir", "entries": entries, "count": len(entries)}, nil
			}
			var raw []byte
			if file.GetEncoding() == "none" || (file.Content == nil && file.GetSize() > 0) {
				// Over 1 MB GitHub leaves the content out: read the blob.
				if raw, _, err = c.Git.GetBlobRaw(ctx, in.Owner, in.Repo, file.GetSHA()); err != nil {
					return nil, c.Err("read the blob of "+path, err)
				}
			} else {
				text, err := file.GetContent()
				if err != nil {
					return nil, fmt.Errorf("decode %s: %w", path, err)
				}
				raw = []byte(text)
			}
			limit := in.MaxBytes
			if limit <= 0 {
				limit = defaultMaxFileBytes
			}
			out := map[string]any{"path": file.GetPath(), "ref": in.Ref, "size": file.GetSize(), "sha": file.GetSHA(), "url": file.GetHTMLURL()}
			if len(raw) > limit {
				out["truncated"] = true
				out["note"] = fmt.Sprintf("content cut at %d of %d bytes; raise maxBytes to read more", limit, len(raw))
			}
			if utf8.Valid(raw) {
				out["encoding"], out["content"] = "utf-8", tool.CutText(string(raw), limit) // on a character's boundary
			} else {
				out["encoding"], out["content"] = "base64", base64.StdEncoding.EncodeToString(raw[:min(len(raw), limit)])
			}
			return out, nil
		}),
	}
}

// atRef is " at REF", or "" for the default branch.
func atRef(ref string) string {
	if ref == "" {
		return ""
	}
	return " at " + ref
}

// fileWriteTool is gh_file_write: create a file, or replace it given the
// sha that was read (no silent overwrite); the same content again is no
// new commit.
func fileWriteTool() tool.Tool {
	type args struct {
		repoArgs
		Path     string `json:"path"`
		Content  string `json:"content"`
		Encoding string `json:"encoding"`
		Message  string `json:"message"`
		Branch   string `json:"branch"`
		SHA      string `json:"sha"`
	}
	return tool.Tool{
		Def: def("gh_file_write", groupRepos, "Create or update a file in a repository as one commit: {path, branch, sha, commit: {sha, url}, created}. Replacing an existing file needs its current sha (from gh_file_read): a stale or missing sha is refused, never a silent overwrite. Writing the content the file already has makes no commit ({unchanged: true}).", true,
			repoProps(
				schema.String("path", "The file's path in the repository").Required(),
				schema.String("content", "The new content").Required(),
				schema.String("encoding", "How content is written: utf-8 (default) or base64 (for binary files)").EnumStrings("utf-8", "base64"),
				schema.String("message", "The commit message").Required(),
				schema.String("branch", "The branch to commit to (default: the default branch)"),
				schema.String("sha", "The blob sha of the file being replaced, as gh_file_read answered it; required to replace an existing file"),
			)).
			WithPhrases("commit a file", "update file on github", "push change via api", "edit file in repo", "create file in repo", "commit without clone"),
		Run: run(func(ctx context.Context, in args, c *conn) (any, error) {
			path := strings.Trim(in.Path, "/")
			content := []byte(in.Content)
			if in.Encoding == "base64" {
				var err error
				if content, err = base64.StdEncoding.DecodeString(in.Content); err != nil {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"content\" is not base64 (encoding: base64): %v", err)
				}
			}
			where := fmt.Sprintf("%s in %s%s", path, in.full(), onBranch(in.Branch))
			cur, _, _, err := c.Repositories.GetContents(ctx, in.Owner, in.Repo, path, &github.RepositoryContentGetOptions{Ref: in.Branch})
			var er *github.ErrorResponse
			switch {
			case err == nil && cur == nil:
				return nil, tool.Errorf(tool.CodeInvalidArgs, "%s is a directory; give a file's path", where)
			case err == nil && (in.SHA == "" || in.SHA == cur.GetSHA()) && sameContent(cur, content):
				return map[string]any{"path": path, "branch": in.Branch, "sha": cur.GetSHA(), "unchanged": true, "note": "the file already has this content; no commit was made"}, nil
			case err == nil && in.SHA == "":
				return nil, tool.Errorf(tool.CodeInvalidArgs, "%s exists (sha %s): to replace it pass sha: %q, the sha you read (gh_file_read), so that a change made since is not overwritten", where, cur.GetSHA(), cur.GetSHA())
			case err == nil: // replaced, given the sha it has
			case errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound:
				cur = nil
			default:
				return nil, c.Err("read "+where+" before writing it", err)
			}
			opts := &github.RepositoryContentFileOptions{Message: github.Ptr(in.Message), Content: content}
			if in.Branch != "" {
				opts.Branch = github.Ptr(in.Branch)
			}
			if in.SHA != "" {
				opts.SHA = github.Ptr(in.SHA)
			}
			// One PUT creates or updates (go-github's CreateFile and UpdateFile are it).
			res, _, err := c.Repositories.UpdateFile(ctx, in.Owner, in.Repo, path, opts)
			if err != nil {
				if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusConflict {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "%s changed since sha %s was read (GitHub: %s); read it again (gh_file_read) and write over what is there now", where, in.SHA, er.Message)
				}
				return nil, c.Err("write "+where, err)
			}
			return map[string]any{"path": res.Content.GetPath(), "branch": in.Branch, "sha": res.Content.GetSHA(), "created": cur == nil,
				"commit": map[string]any{"sha": res.Commit.GetSHA(), "url": res.Commit.GetHTMLURL()}}, nil
		}),
	}
}

// onBranch is " on BRANCH", or "" for the default branch.
func onBranch(b string) string {
	if b == "" {
		return ""
	}
	return " on " + b
}

// sameContent reports whether a file GitHub answered holds content.
func sameContent(f *github.RepositoryContent, content []byte) bool {
	have, err := f.GetContent()
	return err == nil && have == string(content)
}

// branchListTool is gh_branch_list.
func branchListTool() tool.Tool {
	type args struct {
		repoArgs
		Protected *bool `json:"protected"`
		Limit     int   `json:"limit"`
	}
	type row struct {
		Name      string `json:"name"`
		SHA       string `json:"sha"`
		Protected bool   `json:"protected,omitempty"`
	}
	return tool.Tool{
		Def: def("gh_branch_list", groupRepos, "List a repository's branches: {branches: [{name, sha, protected}], count, total}.", false,
			repoProps(schema.Boolean("protected", "Only protected branches (true) or only unprotected (false)"), limitProp("branches"))).
			WithPhrases("list branches", "git branch -r", "remote branches", "protected branches", "which branches exist"),
		Run: run(func(ctx context.Context, in args, c *conn) (any, error) {
			l, err := githubapi.List(ctx, in.Limit, func(ctx context.Context, o github.ListOptions) ([]row, *github.Response, error) {
				bs, resp, err := c.Repositories.ListBranches(ctx, in.Owner, in.Repo, &github.BranchListOptions{Protected: in.Protected, ListOptions: o})
				rows := make([]row, 0, len(bs))
				for _, b := range bs {
					rows = append(rows, row{Name: b.GetName(), SHA: short(b.GetCommit().GetSHA()), Protected: b.GetProtected()})
				}
				return rows, resp, err
			})
			if err != nil {
				return nil, c.Err("list the branches of "+in.full(), err)
			}
			return listAnswer("branches", l), nil
		}),
	}
}

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// branchCreateTool is gh_branch_create: safe to repeat (the branch already
// there at the same commit is answered as it is).
func branchCreateTool() tool.Tool {
	type args struct {
		repoArgs
		Branch string `json:"branch"`
		From   string `json:"from"`
	}
	return tool.Tool{
		Def: def("gh_branch_create", groupRepos, "Create a branch from another branch, a tag or a commit sha (default: the default branch): {branch, sha, from, created}. A branch that already points there is answered with created: false.", true,
			repoProps(
				schema.String("branch", "The new branch's name").Required(),
				schema.String("from", "A branch, tag or full commit sha to start from (default: the default branch)"),
			)).
			WithPhrases("new branch", "git checkout -b", "create a git branch", "branch off a tag", "new branch from a commit", "cut a branch", "start a branch", "cut a branch from a tag"),
		Run: run(func(ctx context.Context, in args, c *conn) (any, error) {
			branch := strings.TrimPrefix(in.Branch, "refs/heads/")
			from := in.From
			if from == "" {
				r, _, err := c.Repositories.Get(ctx, in.Owner, in.Repo)
				if err != nil {
					return nil, c.Err("repository "+in.full(), err)
				}
				from = r.GetDefaultBranch()
			}
			sha := from
			if !fullSHA.MatchString(from) {
				// A branch most often; else a tag or a short sha.
				if ref, _, err := c.Git.GetRef(ctx, in.Owner, in.Repo, "heads/"+from); err == nil {
					sha = ref.GetObject().GetSHA()
				} else if sha, _, err = c.Repositories.GetCommitSHA1(ctx, in.Owner, in.Repo, from, ""); err != nil {
					return nil, c.Err(fmt.Sprintf("find %q in %s (from: a branch, tag or commit sha)", from, in.full()), err)
				}
			}
			ref, _, err := c.Git.CreateRef(ctx, in.Owner, in.Repo, github.CreateRef{Ref: "refs/heads/" + branch, SHA: sha})
			if err == nil {
				return map[string]any{"branch": branch, "sha": ref.GetObject().GetSHA(), "from": from, "created": true}, nil
			}
			var er *github.ErrorResponse
			if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusUnprocessableEntity {
				if have, _, gerr := c.Git.GetRef(ctx, in.Owner, in.Repo, "heads/"+branch); gerr == nil {
					if have.GetObject().GetSHA() == sha {
						return map[string]any{"branch": branch, "sha": sha, "from": from, "created": false, "note": "the branch already points there"}, nil
					}
					return nil, tool.Errorf(tool.CodeInvalidArgs, "branch %q already exists in %s at %s, not at %s (%s); pick another name, or delete it first", branch, in.full(), short(have.GetObject().GetSHA()), short(sha), from)
				}
			}
			return nil, c.Err(fmt.Sprintf("create branch %q in %s", branch, in.full()), err)
		}),
	}
}

// defaultMaxPatchBytes bounds the patches gh_diff answers in all.
const defaultMaxPatchBytes = 60 << 10

// diffTool is gh_diff: what changed between two refs, file by file.
func diffTool() tool.Tool {
	type args struct {
		repoArgs
		Base     string `json:"base"`
		Head     string `json:"head"`
		MaxBytes int    `json:"maxBytes"`
	}
	type file struct {
		File      string `json:"file"`
		Status    string `json:"status"`
		Additions int    `json:"additions"`
		Deletions int    `json:"deletions"`
		From      string `json:"from,omitempty"`
		Patch     string `json:"patch,omitempty"`
		Cut       bool   `json:"patchCut,omitempty"`
	}
	type commit struct {
		SHA     string `json:"sha"`
		Message string `json:"message"`
		Author  string `json:"author"`
	}
	return tool.Tool{
		Def: def("gh_diff", groupRepos, "Compare two refs (base...head, as GitHub's compare): {status, aheadBy, behindBy, totalCommits, commits: [{sha, message, author}], files: [{file, status, additions, deletions, patch}], additions, deletions, url}; the patches together are cut at maxBytes with a note.", false,
			repoProps(
				schema.String("base", "The base branch, tag or sha").Required(),
				schema.String("head", "The head branch, tag or sha (user:branch for a fork)").Required(),
				schema.Integer("maxBytes", fmt.Sprintf("The most patch bytes to answer in all (default %d)", defaultMaxPatchBytes)).Min(0),
			)).
			WithPhrases("compare branches", "git diff", "what changed between commits", "ahead behind", "changed files", "compare refs", "commits between tags", "release changes"),
		Run: run(func(ctx context.Context, in args, c *conn) (any, error) {
			cmp, _, err := c.Repositories.CompareCommits(ctx, in.Owner, in.Repo, in.Base, in.Head, &github.ListOptions{PerPage: 100})
			if err != nil {
				return nil, c.Err(fmt.Sprintf("compare %s...%s in %s", in.Base, in.Head, in.full()), err)
			}
			limit := in.MaxBytes
			if limit <= 0 {
				limit = defaultMaxPatchBytes
			}
			budget := limit
			files := make([]file, 0, len(cmp.Files))
			adds, dels, cut := 0, 0, 0
			for _, f := range cmp.Files {
				row := file{File: f.GetFilename(), Status: f.GetStatus(), Additions: f.GetAdditions(), Deletions: f.GetDeletions(), From: f.GetPreviousFilename()}
				adds, dels = adds+row.Additions, dels+row.Deletions
				if p := f.GetPatch(); p != "" {
					if len(p) <= budget {
						row.Patch, budget = p, budget-len(p)
					} else {
						row.Patch, row.Cut, budget = p[:max(budget, 0)], true, 0
						cut++
					}
				}
				files = append(files, row)
			}
			commits := make([]commit, 0, len(cmp.Commits))
			for _, cm := range cmp.Commits {
				author := cm.GetAuthor().GetLogin()
				if author == "" {
					author = cm.GetCommit().GetAuthor().GetName()
				}
				commits = append(commits, commit{SHA: short(cm.GetSHA()), Message: firstLine(cm.GetCommit().GetMessage()), Author: author})
			}
			out := map[string]any{"status": cmp.GetStatus(), "aheadBy": cmp.GetAheadBy(), "behindBy": cmp.GetBehindBy(), "totalCommits": cmp.GetTotalCommits(),
				"commits": commits, "files": files, "additions": adds, "deletions": dels, "url": cmp.GetHTMLURL()}
			if cut > 0 {
				out["note"] = fmt.Sprintf("patches cut at %d bytes in all (%d files' patches cut or left out); raise maxBytes, or read a file with gh_file_read", limit, cut)
			}
			if len(cmp.Files) >= 300 {
				out["filesNote"] = "GitHub's compare lists at most 300 files"
			}
			return out, nil
		}),
	}
}
