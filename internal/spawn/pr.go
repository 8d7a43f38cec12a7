package spawn

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/barrhawk/barrhawk/internal/githubapi"
	"github.com/google/go-github/v75/github"
)

// PROptions say how a run's branch reaches its reviewers.
type PROptions struct {
	// Open pushes the branch and opens a pull request when the origin is
	// on GitHub; otherwise a patch file is written.
	Open bool
	// Base is the branch to merge into (default: the repository's current
	// branch).
	Base string
	// APIBase is GitHub's REST API ("": as githubapi.FindAPI finds it:
	// GITHUB_API_URL, else https://api.github.com; GitHub Enterprise:
	// https://HOST/api/v3).
	APIBase string
	// Host is the origin's host that counts as GitHub (default github.com).
	Host string
	// Token authenticates to GitHub ("": as gh finds it, see
	// githubapi.FindToken).
	Token string
	// Redact removes secrets from the pull request's title and body.
	Redact func(string) string
	// Progress is told of each step that reaches outside the repository,
	// before it (pushing) and after it (pushed, pull request opened): the
	// caller records it, so that a run whose worker dies mid-way still
	// says what was pushed.
	Progress func(Integration)
}

// stepPushing is Integration.Step while the branch is being pushed.
const stepPushing = "pushing"

// Integration is how the branch was handed over.
type Integration struct {
	Base      string   `json:"base"`
	Pushed    bool     `json:"pushed"`
	PRURL     string   `json:"prUrl,omitempty"`
	PRNumber  int      `json:"prNumber,omitempty"`
	Conflicts []string `json:"conflicts,omitempty"`
	Patch     string   `json:"patch,omitempty"`
	Note      string   `json:"note,omitempty"`
	// Step is the step under way (pushing), while integration runs.
	Step string `json:"step,omitempty"`
}

// Integrate checks the branch against its base for conflicts (git
// merge-tree --write-tree, nothing checked out), then pushes it and opens
// a pull request through GitHub's REST API when asked and the origin is on
// GitHub, or else writes a patch file into dir. A conflict is reported and
// no pull request opened.
func Integrate(ctx context.Context, repo, branch, title, body, dir string, o PROptions) (*Integration, error) {
	gitIn := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if err != nil {
			return out.String(), fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
		}
		return out.String(), nil
	}
	red := o.Redact
	if red == nil {
		red = func(s string) string { return s }
	}
	in := &Integration{Base: o.Base}
	if in.Base == "" {
		b, err := gitIn("symbolic-ref", "--short", "HEAD")
		if err != nil {
			return nil, fmt.Errorf("the repository's current branch (give a base): %w", err)
		}
		in.Base = strings.TrimSpace(b)
	}
	out, err := gitIn("merge-tree", "--write-tree", "--name-only", in.Base, branch)
	if err != nil {
		if !strings.Contains(err.Error(), "exit status 1") {
			return nil, fmt.Errorf("check %s against %s: %w", branch, in.Base, err)
		}
		// Exit status 1: conflicts; the files follow the tree's id.
		lines := strings.Split(out, "\n")
		for _, l := range lines[1:] {
			if l == "" {
				break
			}
			in.Conflicts = append(in.Conflicts, l)
		}
		in.Note = fmt.Sprintf("%s conflicts with %s in %s; resolve them (or run the agent again on an updated base) before merging", branch, in.Base, strings.Join(in.Conflicts, ", "))
	}
	owner, name, onGitHub := "", "", false
	if originURL, err := gitIn("config", "--get", "remote.origin.url"); err == nil { // as written: get-url applies insteadOf
		owner, name, onGitHub = githubRepo(strings.TrimSpace(originURL), o.Host)
	}
	if !o.Open || !onGitHub || len(in.Conflicts) > 0 {
		patch, err := gitIn("format-patch", "--stdout", in.Base+".."+branch)
		if err != nil {
			return nil, err
		}
		in.Patch = filepath.Join(dir, strings.ReplaceAll(branch, "/", "-")+".patch")
		if err := os.WriteFile(in.Patch, []byte(red(patch)), 0o644); err != nil {
			return nil, err
		}
		switch {
		case len(in.Conflicts) > 0:
		case o.Open && !onGitHub:
			in.Note = "the origin is not on GitHub: the branch " + branch + " stays, with a patch file"
		default:
			in.Note = "the branch " + branch + " stays in the repository, with a patch file"
		}
		return in, nil
	}
	progress := func() {
		if o.Progress != nil {
			o.Progress(*in)
		}
	}
	in.Step = stepPushing
	progress()
	if _, err := gitIn("push", "--quiet", "origin", branch+":refs/heads/"+branch); err != nil {
		return nil, fmt.Errorf("push %s: %w", branch, err)
	}
	in.Pushed, in.Step = true, ""
	progress()
	token := o.Token
	if token == "" { // the token for the origin's host, as gh keeps it
		host := o.Host
		if host == "" {
			host = "github.com"
		}
		token, _ = githubapi.TokenForHost(host)
	}
	gh, err := githubapi.New(githubapi.Options{API: o.APIBase, Token: token})
	if err != nil {
		return in, err
	}
	if !gh.Authenticated() {
		in.Note = "pushed; no GitHub token (set GH_TOKEN or GITHUB_TOKEN, or log in with gh) to open the pull request"
		return in, nil
	}
	pr, existing, err := gh.OpenPR(ctx, owner, name, &github.NewPullRequest{Title: github.Ptr(red(title)), Head: github.Ptr(branch), Base: github.Ptr(in.Base), Body: github.Ptr(red(body))})
	if err != nil {
		return in, fmt.Errorf("open the pull request: %w", gh.Err("GitHub refused the pull request", err))
	}
	if existing {
		in.Note = "the branch already had an open pull request; the push updated it"
	}
	in.PRURL, in.PRNumber = pr.GetHTMLURL(), pr.GetNumber()
	progress()
	return in, nil
}

var (
	sshRemote   = regexp.MustCompile(`^(?:ssh://)?git@([^:/]+)[:/]([^/]+)/([^/]+?)(?:\.git)?/?$`)
	httpsRemote = regexp.MustCompile(`^https?://(?:[^@/]+@)?([^/]+)/([^/]+)/([^/]+?)(?:\.git)?/?$`)
)

// githubRepo reads owner and repository from a GitHub remote URL.
func githubRepo(remote, host string) (owner, name string, ok bool) {
	if host == "" {
		host = "github.com"
	}
	for _, re := range []*regexp.Regexp{sshRemote, httpsRemote} {
		if m := re.FindStringSubmatch(remote); m != nil && strings.EqualFold(m[1], host) {
			return m[2], m[3], true
		}
	}
	return "", "", false
}
