package spawn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// PROptions say how a run's branch reaches its reviewers.
type PROptions struct {
	// Open pushes the branch and opens a pull request when the origin is
	// on GitHub; otherwise a patch file is written.
	Open bool
	// Base is the branch to merge into (default: the repository's current
	// branch).
	Base string
	// APIBase is GitHub's REST API (default https://api.github.com; GitHub
	// Enterprise: https://HOST/api/v3).
	APIBase string
	// Host is the origin's host that counts as GitHub (default github.com).
	Host string
	// Token authenticates to GitHub (default: $GITHUB_TOKEN, then gh's
	// hosts.yml).
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
	if token == "" {
		token = githubToken()
	}
	if token == "" {
		in.Note = "pushed; no GitHub token (set GITHUB_TOKEN or log in with gh) to open the pull request"
		return in, nil
	}
	api := strings.TrimSuffix(o.APIBase, "/")
	if api == "" {
		api = "https://api.github.com"
	}
	payload, _ := json.Marshal(map[string]string{"title": red(title), "head": branch, "base": in.Base, "body": red(body)})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, api+"/repos/"+url.PathEscape(owner)+"/"+url.PathEscape(name)+"/pulls", bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("open the pull request: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusCreated {
		var e struct {
			Message string `json:"message"`
			Errors  []struct {
				Message string `json:"message"`
			} `json:"errors"`
		}
		_ = json.Unmarshal(b, &e)
		msg := e.Message
		for _, x := range e.Errors {
			msg += "; " + x.Message
		}
		return in, fmt.Errorf("GitHub refused the pull request (%s): %s", resp.Status, msg)
	}
	var pr struct {
		HTMLURL string `json:"html_url"`
		Number  int    `json:"number"`
	}
	if err := json.Unmarshal(b, &pr); err != nil {
		return in, fmt.Errorf("GitHub's answer: %w", err)
	}
	in.PRURL, in.PRNumber = pr.HTMLURL, pr.Number
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

// githubToken is $GITHUB_TOKEN, else the oauth_token in gh's hosts.yml.
func githubToken() string {
	if t := os.Getenv("GITHUB_TOKEN"); t != "" {
		return t
	}
	dir := os.Getenv("GH_CONFIG_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".config", "gh")
	}
	b, err := os.ReadFile(filepath.Join(dir, "hosts.yml"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "oauth_token:"); ok {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}
