package spawn

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
// REST API called as GitHub documents it (a local server stands in).
func TestIntegrateOpensAPullRequest(t *testing.T) {
	t.Parallel()
	repo := repoWithBranch(t)
	bare := t.TempDir()
	gitC(t, bare, "init", "-q", "--bare")
	gitC(t, repo, "remote", "add", "origin", "https://github.com/acme/app.git")
	gitC(t, repo, "config", "url."+bare+".insteadOf", "https://github.com/acme/app.git")
	var got map[string]string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/repos/acme/app/pulls" || r.Header.Get("Authorization") != "Bearer tok-123" ||
			r.Header.Get("Accept") != "application/vnd.github+json" || r.Header.Get("X-GitHub-Api-Version") == "" {
			http.Error(w, `{"message":"bad request"}`, http.StatusBadRequest)
			return
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &got)
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"number":7,"html_url":"https://github.com/acme/app/pull/7"}`)
	}))
	defer api.Close()
	in, err := Integrate(context.Background(), repo, "spawn/x", "Add b", "Body with sk-secret-1234", t.TempDir(),
		PROptions{Open: true, APIBase: api.URL, Token: "tok-123", Redact: func(s string) string { return strings.ReplaceAll(s, "sk-secret-1234", "[REDACTED]") }})
	if err != nil {
		t.Fatal(err)
	}
	if !in.Pushed || in.PRURL != "https://github.com/acme/app/pull/7" || in.PRNumber != 7 || in.Base != "main" {
		t.Errorf("integration: %+v", in)
	}
	if got["head"] != "spawn/x" || got["base"] != "main" || got["title"] != "Add b" || got["body"] != "Body with [REDACTED]" {
		t.Errorf("payload: %v", got)
	}
	if out := gitC(t, bare, "branch", "--list", "spawn/x"); !strings.Contains(out, "spawn/x") {
		t.Errorf("not pushed: %q", out)
	}
	// GitHub refusing says why.
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnprocessableEntity)
		io.WriteString(w, `{"message":"Validation Failed","errors":[{"message":"A pull request already exists for acme:spawn/x."}]}`)
	}))
	defer refuse.Close()
	if _, err := Integrate(context.Background(), repo, "spawn/x", "t", "b", t.TempDir(), PROptions{Open: true, APIBase: refuse.URL, Token: "t"}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("refused: %v", err)
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
