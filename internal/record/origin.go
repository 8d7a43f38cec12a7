package record

import (
	"os"
	"strings"
)

// Origin is where a run was recorded: the machine, the server's working
// directory, and the CI build when there was one.
type Origin struct {
	Host string `json:"host,omitempty"`
	Dir  string `json:"dir,omitempty"`
	// CI names the CI system: github-actions, gitlab-ci, jenkins,
	// buildkite or circleci; empty off CI.
	CI     string `json:"ci,omitempty"`
	Branch string `json:"branch,omitempty"`
	Commit string `json:"commit,omitempty"`
	// BuildURL links to the CI build (or job) that recorded the run.
	BuildURL string `json:"buildUrl,omitempty"`
}

// ciSystem is how one CI system says so in the environment.
type ciSystem struct {
	name string
	// is is the variable that is set (non-empty, not "false") on it.
	is string
	// branch, commit and build are the variables to read, first set wins;
	// build may be a func of the environment instead.
	branch, commit []string
	build          func(getenv func(string) string) string
}

// ciSystems are the CI systems DetectOrigin knows, in the order it tries
// them.
var ciSystems = []ciSystem{
	{name: "github-actions", is: "GITHUB_ACTIONS",
		// GITHUB_HEAD_REF is a pull request's branch; GITHUB_REF_NAME
		// is then "123/merge".
		branch: []string{"GITHUB_HEAD_REF", "GITHUB_REF_NAME"}, commit: []string{"GITHUB_SHA"},
		build: func(env func(string) string) string {
			server, repo, run := env("GITHUB_SERVER_URL"), env("GITHUB_REPOSITORY"), env("GITHUB_RUN_ID")
			if repo == "" || run == "" {
				return ""
			}
			if server == "" {
				server = "https://github.com"
			}
			return strings.TrimSuffix(server, "/") + "/" + repo + "/actions/runs/" + run
		}},
	{name: "gitlab-ci", is: "GITLAB_CI",
		branch: []string{"CI_COMMIT_BRANCH", "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", "CI_COMMIT_REF_NAME"}, commit: []string{"CI_COMMIT_SHA"},
		build: first("CI_JOB_URL", "CI_PIPELINE_URL")},
	{name: "buildkite", is: "BUILDKITE",
		branch: []string{"BUILDKITE_BRANCH"}, commit: []string{"BUILDKITE_COMMIT"}, build: first("BUILDKITE_BUILD_URL")},
	{name: "circleci", is: "CIRCLECI",
		branch: []string{"CIRCLE_BRANCH"}, commit: []string{"CIRCLE_SHA1"}, build: first("CIRCLE_BUILD_URL")},
	{name: "jenkins", is: "JENKINS_URL",
		// GIT_BRANCH is "origin/main" with the Git plugin.
		branch: []string{"BRANCH_NAME", "CHANGE_BRANCH", "GIT_BRANCH"}, commit: []string{"GIT_COMMIT"}, build: first("BUILD_URL")},
}

// first reads the first of names that is set.
func first(names ...string) func(func(string) string) string {
	return func(env func(string) string) string {
		for _, n := range names {
			if v := strings.TrimSpace(env(n)); v != "" {
				return v
			}
		}
		return ""
	}
}

// DetectOrigin is where this process records from: its host name and
// working directory, and the CI system, branch, commit and build URL when
// getenv (os.Getenv) says it runs on GitHub Actions, GitLab CI,
// Buildkite, CircleCI or Jenkins. BARRHAWK_BRANCH, BARRHAWK_COMMIT and
// BARRHAWK_BUILD_URL, when set, win over what the CI says.
func DetectOrigin(getenv func(string) string) Origin {
	var o Origin
	o.Host, _ = os.Hostname()
	o.Dir, _ = os.Getwd()
	for _, ci := range ciSystems {
		if v := strings.TrimSpace(getenv(ci.is)); v == "" || strings.EqualFold(v, "false") {
			continue
		}
		o.CI = ci.name
		o.Branch = first(ci.branch...)(getenv)
		o.Commit = first(ci.commit...)(getenv)
		o.BuildURL = ci.build(getenv)
		break
	}
	if o.CI == "jenkins" {
		o.Branch = strings.TrimPrefix(o.Branch, "origin/")
	}
	return o.With(Origin{Branch: getenv("BARRHAWK_BRANCH"), Commit: getenv("BARRHAWK_COMMIT"), BuildURL: getenv("BARRHAWK_BUILD_URL")})
}

// With is o with the fields over sets (flags, say) in place of its own.
func (o Origin) With(over Origin) Origin {
	set := func(dst *string, v string) {
		if v = strings.TrimSpace(v); v != "" {
			*dst = v
		}
	}
	set(&o.Host, over.Host)
	set(&o.Dir, over.Dir)
	set(&o.CI, over.CI)
	set(&o.Branch, over.Branch)
	set(&o.Commit, over.Commit)
	set(&o.BuildURL, over.BuildURL)
	return o
}
