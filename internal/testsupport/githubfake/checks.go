package githubfake

// A commit, and the checks on it: SetPRChecks's state is reported as one
// GitHub Actions check run ("test") on the pull request's head commit, as
// a repository whose CI runs on Actions shows it; the commit statuses of
// the older API are left empty (combined state "pending", no statuses, as
// GitHub answers for a commit no status was posted to).

import (
	"net/http"
	"strings"
)

// getCommit is a commit by ref (a branch or a sha): as JSON, or, asked in
// the sha media type, its sha alone.
func getCommit(c *call) reply {
	r := c.repo
	sha, _, ok := r.resolve(c.path["ref"])
	if !ok {
		return c.errorReply(http.StatusUnprocessableEntity, "No commit found for SHA: "+c.path["ref"])
	}
	if strings.Contains(c.r.Header.Get("Accept"), ".sha") {
		return reply{status: http.StatusOK, raw: []byte(sha), ctype: "application/vnd.github.sha; charset=utf-8"}
	}
	return jsonReply(http.StatusOK, c.s.fullCommitObj(r, r.commits[sha]))
}

// checksOn is the checks state SetPRChecks gave a pull request whose head
// is at sha.
func (r *repoState) checksOn(sha string) (string, bool) {
	for _, is := range r.issues {
		if is.pr == nil || r.branches[is.pr.head] != sha {
			continue
		}
		if st, ok := r.checks[is.number]; ok {
			return st, true
		}
	}
	return "", false
}

func combinedStatus(c *call) reply {
	r := c.repo
	sha, _, ok := r.resolve(c.path["ref"])
	if !ok {
		return c.errorReply(http.StatusNotFound, "No commit found for SHA: "+c.path["ref"])
	}
	m := c.s.obj("combined-commit-status", r)
	m["state"], m["sha"], m["statuses"], m["total_count"] = "pending", sha, []any{}, 0
	m["commit_url"] = c.s.apiRepo(r) + "/commits/" + sha
	m["url"] = c.s.apiRepo(r) + "/commits/" + sha + "/status"
	return jsonReply(http.StatusOK, m)
}

func checkRuns(c *call) reply {
	r := c.repo
	sha, _, ok := r.resolve(c.path["ref"])
	if !ok {
		return c.errorReply(http.StatusUnprocessableEntity, "No commit found for SHA: "+c.path["ref"])
	}
	state, ok := r.checksOn(sha)
	if !ok {
		return jsonReply(http.StatusOK, map[string]any{"total_count": 0, "check_runs": []any{}})
	}
	run := c.s.obj("check-run-paginated", r)["check_runs"].([]any)[0].(map[string]any)
	run["name"], run["head_sha"] = "test", sha
	switch state {
	case "pending":
		run["status"], run["conclusion"], run["completed_at"] = "in_progress", nil, nil
	case "success":
		run["status"], run["conclusion"] = "completed", "success"
	default: // failure, error
		run["status"], run["conclusion"] = "completed", "failure"
	}
	return jsonReply(http.StatusOK, map[string]any{"total_count": 1, "check_runs": []any{run}})
}
