package githubapi

import (
	"os"
	"path/filepath"
	"testing"
)

func TestHost(t *testing.T) {
	for api, want := range map[string]string{
		"https://api.github.com":           "github.com",
		"https://api.github.com/":          "github.com",
		"https://ghe.example.com/api/v3":   "ghe.example.com",
		"https://api.acme.ghe.com":         "acme.ghe.com",
		"http://127.0.0.1:8080":            "127.0.0.1:8080",
		"not a url":                        "",
		"https://ghe.example.com:8443/api": "ghe.example.com:8443",
	} {
		if got := Host(api); got != want {
			t.Errorf("Host(%q) = %q, want %q", api, got, want)
		}
	}
}

func TestFindAPI(t *testing.T) {
	t.Setenv("GITHUB_API_URL", "")
	if api, from := FindAPI(""); api != DefaultAPI || from != "the default" {
		t.Errorf("no setting: %q from %q", api, from)
	}
	t.Setenv("GITHUB_API_URL", "https://ghe.example.com/api/v3/")
	if api, from := FindAPI(""); api != "https://ghe.example.com/api/v3" || from != "GITHUB_API_URL" {
		t.Errorf("GITHUB_API_URL: %q from %q", api, from)
	}
	if api, from := FindAPI("https://other.example.com/api/v3"); api != "https://other.example.com/api/v3" || from != "the github.api setting" {
		t.Errorf("setting over env: %q from %q", api, from)
	}
}

// TestFindToken: as gh looks: GH_TOKEN, GITHUB_TOKEN (enterprise
// variables first for an Enterprise host), then hosts.yml for the host.
func TestFindToken(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GH_CONFIG_DIR", dir)
	for _, v := range []string{"GH_TOKEN", "GITHUB_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"} {
		t.Setenv(v, "")
	}
	if tok, from := FindToken(DefaultAPI); tok != "" || from != "" {
		t.Fatalf("nothing set: %q from %q", tok, from)
	}
	hosts := "github.com:\n    users:\n        octocat:\n            oauth_token: gho_user\n    oauth_token: gho_fromgh\n    user: octocat\nghe.example.com:\n    oauth_token: gho_ghe\n"
	if err := os.WriteFile(filepath.Join(dir, "hosts.yml"), []byte(hosts), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ api, env, val, tok, from string }{
		{DefaultAPI, "", "", "gho_fromgh", filepath.Join(dir, "hosts.yml")},
		{"https://ghe.example.com/api/v3", "", "", "gho_ghe", filepath.Join(dir, "hosts.yml")},
		{"https://other.example.com/api/v3", "", "", "", ""},
		{DefaultAPI, "GITHUB_TOKEN", "ghp_env", "ghp_env", "GITHUB_TOKEN"},
		{DefaultAPI, "GH_TOKEN", "ghp_gh", "ghp_gh", "GH_TOKEN"}, // over GITHUB_TOKEN, still set
		{"https://ghe.example.com/api/v3", "GH_ENTERPRISE_TOKEN", "ghe_env", "ghe_env", "GH_ENTERPRISE_TOKEN"},
		{DefaultAPI, "", "", "ghp_gh", "GH_TOKEN"}, // enterprise variables are not github.com's
	} {
		if c.env != "" {
			t.Setenv(c.env, c.val)
		}
		if tok, from := FindToken(c.api); tok != c.tok || from != c.from {
			t.Errorf("FindToken(%q) after %s=%q: %q from %q, want %q from %q", c.api, c.env, c.val, tok, from, c.tok, c.from)
		}
	}
}
