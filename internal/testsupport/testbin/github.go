package testbin

import "testing"

// GitHubAPI is the node_modules directory holding what GitHub publishes
// about its REST API, installed from the npm registry at pinned versions:
// @octokit/openapi (the OpenAPI description of api.github.com) and
// @octokit/fixtures (recorded exchanges with the real service). It is the
// directory BARRHAWK_GITHUB_API names, else .cache/github-api of the
// repository, where scripts/test installs them. Each of want (a path
// inside it, such as "@octokit/openapi/generated/api.github.com.json")
// that is not there fails the test, saying how to install it.
func GitHubAPI(t testing.TB, want ...string) string {
	t.Helper()
	return npmDir(t, "BARRHAWK_GITHUB_API", "github-api", "GitHub's OpenAPI description and recorded fixtures", want)
}
