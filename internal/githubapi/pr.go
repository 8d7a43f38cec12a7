package githubapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/google/go-github/v75/github"
)

// OpenPR opens a pull request, safe to repeat: when its head already has an
// open pull request into the same base, that one is answered (existing is
// true) instead of GitHub's 422.
func (c *Client) OpenPR(ctx context.Context, owner, repo string, pr *github.NewPullRequest) (opened *github.PullRequest, existing bool, err error) {
	opened, _, err = c.PullRequests.Create(ctx, owner, repo, pr)
	if err == nil {
		return opened, false, nil
	}
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil || er.Response.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(strings.ToLower(gitHubMessage(er)), "already exists") {
		return nil, false, err
	}
	head := pr.GetHead()
	if !strings.Contains(head, ":") {
		head = owner + ":" + head
	}
	open, _, lerr := c.PullRequests.List(ctx, owner, repo, &github.PullRequestListOptions{State: "open", Head: head, Base: pr.GetBase()})
	if lerr != nil || len(open) == 0 {
		return nil, false, err // GitHub's own refusal says more
	}
	return open[0], true, nil
}
