package spawn

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/testsupport/githubfake"
)

func gitC(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// repoWithBranch: main with a file, and branch spawn/x changing another.
func repoWithBranch(t *testing.T) string {
	dir := gitRepo(t)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	gitC(t, dir, "add", ".")
	gitC(t, dir, "commit", "-q", "-m", "a")
	gitC(t, dir, "checkout", "-q", "-b", "spawn/x")
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644)
	gitC(t, dir, "add", ".")
	gitC(t, dir, "commit", "-q", "-m", "b")
	gitC(t, dir, "checkout", "-q", "main")
	return dir
}

// A pull request against a GitHub origin: the branch is pushed and the
// pull request opened through GitHub's REST API (the fake GitHub stands
// in, checking each request against GitHub's description); opening it
// again finds the one open, and GitHub's refusal says why.
func TestIntegrateOpensAPullRequest(t *testing.T) {
	t.Parallel()
	repo := repoWithBranch(t)
	bare := t.TempDir()
	gitC(t, bare, "init", "-q", "--bare")
	gitC(t, repo, "remote", "add", "origin", "https://github.com/acme/app.git")
	gitC(t, repo, "config", "url."+bare+".insteadOf", "https://github.com/acme/app.git")
	gh := githubfake.Start(t, githubfake.Options{Orgs: []string{"acme"}})
	gh.AddRepo("acme", "app", githubfake.Repo{Files: map[string]string{"a.txt": "a\n"}})
	// What the push makes on GitHub.
	gh.CommitFiles("acme", "app", "spawn/x", "b", gh.Login(), map[string]string{"b.txt": "b\n"})
	opts := PROptions{Open: true, APIBase: gh.URL(), Token: gh.Token(), Redact: func(s string) string { return strings.ReplaceAll(s, "sk-secret-1234", "[REDACTED]") }}
	in, err := Integrate(context.Background(), repo, "spawn/x", "Add b", "Body with sk-secret-1234", t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !in.Pushed || in.PRNumber == 0 || !strings.HasSuffix(in.PRURL, "/acme/app/pull/"+strconv.Itoa(in.PRNumber)) || in.Base != "main" {
		t.Errorf("integration: %+v", in)
	}
	pr, ok := gh.PullRequest("acme", "app", in.PRNumber)
	if !ok || pr.Head != "spawn/x" || pr.Base != "main" || pr.Title != "Add b" || pr.Body != "Body with [REDACTED]" {
		t.Errorf("the pull request GitHub has: %+v", pr)
	}
	if out := gitC(t, bare, "branch", "--list", "spawn/x"); !strings.Contains(out, "spawn/x") {
		t.Errorf("not pushed: %q", out)
	}
	again, err := Integrate(context.Background(), repo, "spawn/x", "Add b", "b", t.TempDir(), opts)
	if err != nil || again.PRNumber != in.PRNumber || !strings.Contains(again.Note, "already had an open pull request") {
		t.Errorf("integrating again: %+v, %v", again, err)
	}
	// GitHub refusing says why: a base it does not have.
	gitC(t, repo, "branch", "-q", "release", "main")
	opts.Base = "release"
	if _, err := Integrate(context.Background(), repo, "spawn/x", "t", "b", t.TempDir(), opts); err == nil || !strings.Contains(err.Error(), "422") {
		t.Errorf("refused: %v", err)
	}
	for _, v := range gh.Violations() {
		t.Errorf("a request GitHub's description does not allow: %s", v)
	}
}

// Without a GitHub origin the branch stays and a patch is written.
func TestIntegrateWritesAPatch(t *testing.T) {
	t.Parallel()
	repo := repoWithBranch(t)
	gitC(t, repo, "remote", "add", "origin", t.TempDir())
	dir := t.TempDir()
	in, err := Integrate(context.Background(), repo, "spawn/x", "t", "b", dir, PROptions{Open: true})
	if err != nil {
		t.Fatal(err)
	}
	patch, _ := os.ReadFile(in.Patch)
	if in.Pushed || !strings.HasPrefix(string(patch), "From ") || !strings.Contains(string(patch), "+b") || !strings.Contains(in.Note, "not on GitHub") {
		t.Errorf("integration %+v: %s", in, patch)
	}
}

// A branch that conflicts with its base is reported, and no pull request
// opened.
func TestIntegrateFindsConflicts(t *testing.T) {
	t.Parallel()
	repo := repoWithBranch(t)
	os.WriteFile(filepath.Join(repo, "b.txt"), []byte("other\n"), 0o644)
	gitC(t, repo, "add", ".")
	gitC(t, repo, "commit", "-q", "-m", "conflicting b")
	called := false
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { called = true }))
	defer api.Close()
	gitC(t, repo, "remote", "add", "origin", "git@github.com:acme/app.git")
	in, err := Integrate(context.Background(), repo, "spawn/x", "t", "b", t.TempDir(), PROptions{Open: true, APIBase: api.URL, Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(in.Conflicts, ",") != "b.txt" || in.Pushed || called || !strings.Contains(in.Note, "conflicts with main in b.txt") {
		t.Errorf("integration: %+v", in)
	}
}

func TestGitHubRepo(t *testing.T) {
	for remote, want := range map[string]string{
		"https://github.com/acme/app.git":   "acme/app",
		"https://token@github.com/acme/app": "acme/app",
		"git@github.com:acme/app.git":       "acme/app",
		"ssh://git@github.com/acme/app.git": "acme/app",
		"https://gitlab.com/acme/app.git":   "",
		"/srv/repos/app.git":                "",
	} {
		o, n, ok := githubRepo(remote, "")
		if got := map[bool]string{true: o + "/" + n, false: ""}[ok]; got != want {
			t.Errorf("%s: %q, want %q", remote, got, want)
		}
	}
	if o, n, ok := githubRepo("https://ghe.corp/acme/app.git", "ghe.corp"); !ok || o != "acme" || n != "app" {
		t.Error("an Enterprise host")
	}
}
