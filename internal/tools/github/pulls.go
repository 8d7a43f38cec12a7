package github

// Pull requests: list, create (safe to repeat), merge (saying why one
// cannot be) and review.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/barrhawk/barrhawk/internal/githubapi"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/google/go-github/v75/github"
)

func pullTools() []tool.Tool {
	return []tool.Tool{prListTool(), prCreateTool(), prMergeTool(), prReviewTool()}
}

// prRow is one pull request of a list.
type prRow struct {
	Number  int    `json:"number"`
	Title   string `json:"title"`
	State   string `json:"state"` // open, closed or merged
	Author  string `json:"author"`
	Head    string `json:"head"`
	Base    string `json:"base"`
	Draft   bool   `json:"draft,omitempty"`
	Updated string `json:"updated"`
	URL     string `json:"url"`
}

func prRowOf(p *github.PullRequest) prRow {
	state := p.GetState()
	if p.MergedAt != nil {
		state = "merged"
	}
	return prRow{Number: p.GetNumber(), Title: p.GetTitle(), State: state, Author: p.GetUser().GetLogin(), Head: p.GetHead().GetRef(),
		Base: p.GetBase().GetRef(), Draft: p.GetDraft(), Updated: ts(p.UpdatedAt), URL: p.GetHTMLURL()}
}

// prListTool is gh_pr_list.
func prListTool() tool.Tool {
	type args struct {
		repoArgs
		State string `json:"state"`
		Head  string `json:"head"`
		Base  string `json:"base"`
		Limit int    `json:"limit"`
	}
	return tool.Tool{
		Def: def("gh_pr_list", groupPulls, "List a repository's pull requests, newest first: {pullRequests: [{number, title, state (open, closed, merged), author, head, base, draft, updated, url}], count, total}.", false,
			repoProps(
				schema.String("state", "open (default), closed or all").EnumStrings("open", "closed", "all"),
				schema.String("head", "Only those from this branch (user:branch for a fork)"),
				schema.String("base", "Only those into this branch"),
				limitProp("pull requests"),
			)).
			WithPhrases("open PRs", "list PRs", "PR status overview", "pending PRs", "PRs waiting for review", "merged PRs", "PRs for branch", "review queue"),
		Run: run(func(ctx context.Context, in args, c *conn) (any, error) {
			head := in.Head
			if head != "" && !strings.Contains(head, ":") {
				head = in.Owner + ":" + head
			}
			l, err := githubapi.List(ctx, in.Limit, func(ctx context.Context, o github.ListOptions) ([]prRow, *github.Response, error) {
				ps, resp, err := c.PullRequests.List(ctx, in.Owner, in.Repo, &github.PullRequestListOptions{State: in.State, Head: head, Base: in.Base, ListOptions: o})
				rows := make([]prRow, 0, len(ps))
				for _, p := range ps {
					rows = append(rows, prRowOf(p))
				}
				return rows, resp, err
			})
			if err != nil {
				return nil, c.Err("list the pull requests of "+in.full(), err)
			}
			return listAnswer("pullRequests", l), nil
		}),
	}
}

// prCreateTool is gh_pr_create.
func prCreateTool() tool.Tool {
	type args struct {
		repoArgs
		Title string `json:"title"`
		Body  string `json:"body"`
		Head  string `json:"head"`
		Base  string `json:"base"`
		Draft bool   `json:"draft"`
	}
	return tool.Tool{
		Def: def("gh_pr_create", groupPulls, "Open a pull request of head into base: {number, url, state, head, base, existing}. Safe to repeat: when head already has an open pull request into base, that one is answered with existing: true.", true,
			repoProps(
				schema.String("title", "The title").Required(),
				schema.String("body", "The description (Markdown)"),
				schema.String("head", "The branch with the changes (user:branch for a fork)").Required(),
				schema.String("base", "The branch to merge into").Required(),
				schema.Boolean("draft", "Open it as a draft"),
			)).
			WithPhrases("open a PR", "send a PR", "submit changes for review", "draft PR", "propose merge", "raise pull request", "PR from my branch", "a PR titled"),
		Run: run(func(ctx context.Context, in args, c *conn) (any, error) {
			pr, existing, err := c.OpenPR(ctx, in.Owner, in.Repo, &github.NewPullRequest{Title: github.Ptr(in.Title), Body: github.Ptr(in.Body), Head: github.Ptr(in.Head), Base: github.Ptr(in.Base), Draft: github.Ptr(in.Draft)})
			if err != nil {
				return nil, c.Err(fmt.Sprintf("open a pull request of %s into %s in %s", in.Head, in.Base, in.full()), err)
			}
			out := map[string]any{"number": pr.GetNumber(), "url": pr.GetHTMLURL(), "state": pr.GetState(), "head": pr.GetHead().GetRef(), "base": pr.GetBase().GetRef(), "existing": existing}
			if existing {
				out["note"] = "head already had this open pull request; it was not opened again"
			}
			return out, nil
		}),
	}
}

// prMergeTool is gh_pr_merge: merges, or says what stops the merge.
func prMergeTool() tool.Tool {
	type args struct {
		repoArgs
		PullNumber  int    `json:"pullNumber"`
		MergeMethod string `json:"mergeMethod"`
		SHA         string `json:"sha"`
		CommitTitle string `json:"commitTitle"`
	}
	return tool.Tool{
		Def: def("gh_pr_merge", groupPulls, "Merge a pull request: {merged, sha, method}. One that cannot be merged answers why (failing or pending checks, conflicts, changes requested, required reviews, a draft, a base moved on). Already merged: {merged: true, already: true}.", true,
			repoProps(
				schema.Integer("pullNumber", "The pull request's number").Required().Min(1),
				schema.String("mergeMethod", "merge (default), squash or rebase").EnumStrings("merge", "squash", "rebase"),
				schema.String("sha", "Merge only if the head is still at this commit"),
				schema.String("commitTitle", "The merge commit's title (default GitHub's)"),
			)).
			WithPhrases("merge PR", "squash and merge", "rebase merge", "merge conflicts blocking", "land the PR", "why can't PR merge", "ship it"),
		Run: run(func(ctx context.Context, in args, c *conn) (any, error) {
			what := fmt.Sprintf("pull request #%d of %s", in.PullNumber, in.full())
			pr, _, err := c.PullRequests.Get(ctx, in.Owner, in.Repo, in.PullNumber)
			if err != nil {
				return nil, c.Err(what, err)
			}
			switch {
			case pr.GetMerged():
				return map[string]any{"merged": true, "already": true, "sha": pr.GetMergeCommitSHA(), "url": pr.GetHTMLURL()}, nil
			case pr.GetState() == "closed":
				return nil, tool.Errorf(tool.CodeInvalidArgs, "%s is closed without being merged; reopen it first", what)
			}
			method := in.MergeMethod
			if method == "" {
				method = "merge"
			}
			res, _, err := c.PullRequests.Merge(ctx, in.Owner, in.Repo, in.PullNumber, "", &github.PullRequestOptions{MergeMethod: method, SHA: in.SHA, CommitTitle: in.CommitTitle})
			if err == nil && res.GetMerged() {
				return map[string]any{"merged": true, "sha": res.GetSHA(), "method": method, "url": pr.GetHTMLURL()}, nil
			}
			var er *github.ErrorResponse
			if err == nil || errors.As(err, &er) && er.Response != nil && (er.Response.StatusCode == http.StatusMethodNotAllowed || er.Response.StatusCode == http.StatusConflict) {
				said := res.GetMessage()
				if er != nil {
					said = er.Message
				}
				reasons := blockers(ctx, c, in.Owner, in.Repo, pr)
				return nil, tool.Errorf(tool.CodeInvalidArgs, "%s cannot be merged: %s (GitHub: %s)", what, strings.Join(reasons, "; "), said)
			}
			return nil, c.Err("merge "+what, err)
		}),
	}
}

// blockers says what stops a pull request's merge: its mergeable state,
// its failing and pending checks, and the reviews that request changes.
func blockers(ctx context.Context, c *conn, owner, repo string, pr *github.PullRequest) []string {
	var out []string
	switch pr.GetMergeableState() {
	case "dirty":
		out = append(out, "it conflicts with "+pr.GetBase().GetRef()+" (resolve the conflicts on "+pr.GetHead().GetRef()+")")
	case "behind":
		out = append(out, pr.GetHead().GetRef()+" is behind "+pr.GetBase().GetRef()+" (update the branch)")
	}
	if pr.GetDraft() || pr.GetMergeableState() == "draft" {
		out = append(out, "it is a draft (mark it ready for review)")
	}
	sha := pr.GetHead().GetSHA()
	var failing, pending []string
	if st, _, err := c.Repositories.GetCombinedStatus(ctx, owner, repo, sha, nil); err == nil {
		for _, s := range st.Statuses {
			switch s.GetState() {
			case "failure", "error":
				failing = append(failing, s.GetContext())
			case "pending":
				pending = append(pending, s.GetContext())
			}
		}
	}
	if runs, _, err := c.Checks.ListCheckRunsForRef(ctx, owner, repo, sha, nil); err == nil {
		for _, r := range runs.CheckRuns {
			switch {
			case r.GetStatus() != "completed":
				pending = append(pending, r.GetName())
			case r.GetConclusion() == "failure" || r.GetConclusion() == "timed_out" || r.GetConclusion() == "cancelled" || r.GetConclusion() == "action_required":
				failing = append(failing, r.GetName()+" ("+r.GetConclusion()+")")
			}
		}
	}
	if len(failing) > 0 {
		out = append(out, "checks failing: "+strings.Join(failing, ", "))
	}
	if len(pending) > 0 {
		out = append(out, "checks not finished: "+strings.Join(pending, ", "))
	}
	if reviews, _, err := c.PullRequests.ListReviews(ctx, owner, repo, pr.GetNumber(), &github.ListOptions{PerPage: 100}); err == nil {
		latest := map[string]string{} // each reviewer's last word
		for _, r := range reviews {
			if s := r.GetState(); s == "APPROVED" || s == "CHANGES_REQUESTED" || s == "DISMISSED" {
				latest[r.GetUser().GetLogin()] = s
			}
		}
		var asked []string
		for who, s := range latest {
			if s == "CHANGES_REQUESTED" {
				asked = append(asked, who)
			}
		}
		if len(asked) > 0 {
			out = append(out, "changes requested by "+strings.Join(asked, ", "))
		}
	}
	if pr.GetMergeableState() == "blocked" && len(failing)+len(pending) == 0 {
		out = append(out, "branch protection blocks it (required reviews or checks not met)")
	}
	if len(out) == 0 {
		out = append(out, "GitHub did not say why (mergeable_state "+pr.GetMergeableState()+")")
	}
	return out
}

// prReviewTool is gh_pr_review.
func prReviewTool() tool.Tool {
	type args struct {
		repoArgs
		PullNumber int    `json:"pullNumber"`
		Event      string `json:"event"`
		Body       string `json:"body"`
	}
	return tool.Tool{
		Def: def("gh_pr_review", groupPulls, "Review a pull request: approve, request changes or comment: {id, state, url}. REQUEST_CHANGES and COMMENT need a body.", true,
			repoProps(
				schema.Integer("pullNumber", "The pull request's number").Required().Min(1),
				schema.String("event", "APPROVE, REQUEST_CHANGES or COMMENT").Required().EnumStrings("APPROVE", "REQUEST_CHANGES", "COMMENT"),
				schema.String("body", "The review's text (Markdown)"),
			)).
			WithPhrases("approve PR", "sign off on PR", "code review", "LGTM", "reject PR changes", "review comment on PR"),
		Run: run(func(ctx context.Context, in args, c *conn) (any, error) {
			if in.Event != "APPROVE" && strings.TrimSpace(in.Body) == "" {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"body\" is required with event %s: say what to change or what you noticed", in.Event)
			}
			req := &github.PullRequestReviewRequest{Event: github.Ptr(in.Event)}
			if in.Body != "" {
				req.Body = github.Ptr(in.Body)
			}
			r, _, err := c.PullRequests.CreateReview(ctx, in.Owner, in.Repo, in.PullNumber, req)
			if err != nil {
				return nil, c.Err(fmt.Sprintf("review pull request #%d of %s", in.PullNumber, in.full()), err)
			}
			return map[string]any{"id": r.GetID(), "state": r.GetState(), "url": r.GetHTMLURL()}, nil
		}),
	}
}
