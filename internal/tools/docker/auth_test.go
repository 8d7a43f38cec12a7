package docker

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/docker/docker/api/types/registry"
)

// dockerConfig writes a Docker config.json and points DOCKER_CONFIG at it.
func dockerConfig(t *testing.T, cfg string) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o600))
	t.Setenv("DOCKER_CONFIG", dir)
}

// decodeAuth reads what registryAuth encoded for the daemon.
func decodeAuth(t *testing.T, enc string) registry.AuthConfig {
	t.Helper()
	var ac registry.AuthConfig
	if enc == "" {
		return ac
	}
	b, err := base64.URLEncoding.DecodeString(enc)
	must(t, err)
	must(t, json.Unmarshal(b, &ac))
	return ac
}

// Credentials come from the user's config as the docker CLI stores them:
// by registry host, and Docker Hub's under its index URL.
func TestRegistryAuthFromTheDockerConfig(t *testing.T) {
	basic := func(u, p string) string { return base64.StdEncoding.EncodeToString([]byte(u + ":" + p)) }
	dockerConfig(t, `{"auths":{
		"registry.example.com": {"auth": "`+basic("ci", "s3cret-registry")+`"},
		"https://index.docker.io/v1/": {"auth": "`+basic("hubuser", "s3cret-hub")+`"}}}`)
	for _, c := range []struct{ ref, user, pass string }{
		{"registry.example.com/team/app:1", "ci", "s3cret-registry"},
		{"busybox:1.36", "hubuser", "s3cret-hub"},
		{"docker.io/library/alpine", "hubuser", "s3cret-hub"},
		{"ghcr.io/owner/app", "", ""},
	} {
		ac := decodeAuth(t, registryAuth(c.ref))
		if ac.Username != c.user || ac.Password != c.pass {
			t.Errorf("%s: user %q password %q, want %q %q", c.ref, ac.Username, ac.Password, c.user, c.pass)
		}
	}
}

// A pull that fails says why without the credentials it carried.
func TestPullNeverShowsCredentials(t *testing.T) {
	s := rootedSession(t, t.TempDir())
	dockerConfig(t, `{"auths":{"registry.invalid":{"auth":"`+base64.StdEncoding.EncodeToString([]byte("ci:s3cret-never-shown"))+`"}}}`)
	_, e := s.Run("docker_pull", `{"image":"registry.invalid/team/app:1"}`)
	if e == nil || strings.Contains(e.Message, "s3cret") || strings.Contains(e.Message, base64.StdEncoding.EncodeToString([]byte("ci:s3cret-never-shown"))) {
		t.Fatalf("pull error: %v", e)
	}
}

// A build reports each step as progress.
func TestBuildSendsProgress(t *testing.T) {
	dir := t.TempDir()
	s := rootedSession(t, dir)
	must(t, os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte("FROM "+testImage+"\nRUN echo building-now\n"), 0o644))
	var got []string
	s.Ctx = tool.WithProgress(tool.WithRoots(context.Background(), []string{dir}), func(_, _ float64, msg string) { got = append(got, msg) })
	tag := uniq("barrhawk-test/progress") + ":1"
	s.MustRun("docker_build", `{"path":".","tag":"`+tag+`","noCache":true}`)
	t.Cleanup(func() { removeImage(t, tag) })
	all := strings.Join(got, "\n")
	for _, want := range []string{"Step 1/3 : FROM " + testImage, "Step 2/3 : RUN echo building-now", "building-now"} {
		if !strings.Contains(all, want) {
			t.Errorf("progress lacks %q (the classic builder adds our LABEL as step 3):\n%q", want, got)
		}
	}
}
