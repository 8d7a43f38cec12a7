package githubapi

import (
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"go.yaml.in/yaml/v3"
)

// DefaultAPI is github.com's REST API.
const DefaultAPI = "https://api.github.com"

// FindAPI is the REST API to use and where it was found: configured (the
// github.api setting) when set, else GITHUB_API_URL (which GitHub Actions
// sets, on GitHub Enterprise Server too), else api.github.com.
func FindAPI(configured string) (api, from string) {
	switch {
	case configured != "":
		return strings.TrimSuffix(configured, "/"), "the github.api setting"
	case os.Getenv("GITHUB_API_URL") != "":
		return strings.TrimSuffix(os.Getenv("GITHUB_API_URL"), "/"), "GITHUB_API_URL"
	}
	return DefaultAPI, "the default"
}

// FindToken finds a token for api as the gh CLI does, and says where:
// GH_TOKEN, then GITHUB_TOKEN (for a GitHub Enterprise Server API,
// GH_ENTERPRISE_TOKEN and GITHUB_ENTERPRISE_TOKEN come first), then the
// oauth_token gh's hosts.yml keeps for the API's host ($GH_CONFIG_DIR, else
// the user's config directory). ("", "") when there is none: a token gh
// keeps in the system keyring is not read.
func FindToken(api string) (token, from string) { return TokenForHost(Host(api)) }

// TokenForHost is FindToken for a GitHub host as gh names it (github.com,
// or an Enterprise Server's host): the one a git remote names, say.
func TokenForHost(host string) (token, from string) {
	vars := []string{"GH_TOKEN", "GITHUB_TOKEN"}
	if host != "github.com" && !strings.HasSuffix(host, ".ghe.com") {
		vars = append([]string{"GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"}, vars...)
	}
	for _, v := range vars {
		if t := os.Getenv(v); t != "" {
			return t, v
		}
	}
	path := filepath.Join(ghConfigDir(), "hosts.yml")
	b, err := os.ReadFile(path)
	if err != nil {
		return "", ""
	}
	var hosts map[string]struct {
		Token string `yaml:"oauth_token"`
	}
	if yaml.Unmarshal(b, &hosts) != nil {
		return "", ""
	}
	if h, ok := hosts[host]; ok && h.Token != "" {
		return h.Token, path
	}
	return "", ""
}

// Host is the GitHub host an API belongs to, as gh names hosts:
// github.com for api.github.com, HOST for https://HOST/api/v3, and the
// URL's host (with its port) otherwise.
func Host(api string) string {
	u, err := url.Parse(api)
	if err != nil || u.Host == "" {
		return ""
	}
	switch {
	case u.Host == "api.github.com":
		return "github.com"
	case strings.HasPrefix(u.Host, "api.") && strings.HasSuffix(u.Host, ".ghe.com"):
		return strings.TrimPrefix(u.Host, "api.")
	}
	return u.Host
}

// ghConfigDir is where gh keeps its configuration.
func ghConfigDir() string {
	if d := os.Getenv("GH_CONFIG_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "gh")
	}
	if runtime.GOOS == "windows" {
		if d := os.Getenv("AppData"); d != "" {
			return filepath.Join(d, "GitHub CLI")
		}
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".config", "gh")
}
