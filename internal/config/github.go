package config

import (
	"net/url"
)

// GitHub configures the GitHub tools (gh_*) and the pull requests spawn
// opens.
type GitHub struct {
	// API is GitHub's REST API: https://api.github.com, or
	// https://HOST/api/v3 for GitHub Enterprise Server. Empty:
	// GITHUB_API_URL (which GitHub Actions sets), else api.github.com.
	// The token is found as gh finds it (GH_TOKEN, GITHUB_TOKEN, gh's
	// login), or given to gh_connect.
	API string `koanf:"api"`
}

// validateGitHub checks the github section.
func (c *Config) validateGitHub(bad func(key, format string, a ...any)) {
	if c.GitHub.API == "" {
		return
	}
	if u, err := url.Parse(c.GitHub.API); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		bad("github.api", "%q is not an http(s) URL; write https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise Server", c.GitHub.API)
	}
}
