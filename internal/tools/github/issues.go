package github

// Issues: list (pull requests left out, as gh issue list does), create and
// comment.

import (
	"context"
	"fmt"
	"strings"

	"github.com/barrhawk/barrhawk/internal/githubapi"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/google/go-github/v75/github"
)

func issueTools() []tool.Tool {
	return []tool.Tool{issueListTool(), issueCreateTool(), issueCommentTool()}
}

// issueRow is one issue of a list.
type issueRow struct {
	Number   int      `json:"number"`
	Title    string   `json:"title"`
	State    string   `json:"state"`
	Author   string   `json:"author"`
	Labels   []string `json:"labels,omitempty"`
	Comments int      `json:"comments,omitempty"`
	Updated  string   `json:"updated"`
	URL      string   `json:"url"`
}

// issueListTool is gh_issue_list.
func issueListTool() tool.Tool {
	type args struct {
		repoArgs
		State  string   `json:"state"`
		Labels []string `json:"labels"`
		Limit  int      `json:"limit"`
	}
	return tool.Tool{
		Def: def("gh_issue_list", groupIssues, "List a repository's issues (pull requests left out), newest first: {issues: [{number, title, state, author, labels, comments, updated, url}], count}.", false,
			repoProps(
				schema.String("state", "open (default), closed or all").EnumStrings("open", "closed", "all"),
				schema.Array("labels", "Only issues with all of these labels", schema.StringItems()),
				limitProp("issues"),
			)).
			WithPhrases("open issues", "bug list", "issue tracker", "issues by label", "backlog", "ticket list", "known bugs", "is there already an issue", "search existing issues"),
		Run: run(func(ctx context.Context, in args, c *conn) (any, error) {
			prs := false // GitHub lists pull requests as issues too
			l, err := githubapi.List(ctx, in.Limit, func(ctx context.Context, o github.ListOptions) ([]issueRow, *github.Response, error) {
				is, resp, err := c.Issues.ListByRepo(ctx, in.Owner, in.Repo, &github.IssueListByRepoOptions{State: in.State, Labels: in.Labels, ListOptions: o})
				rows := make([]issueRow, 0, len(is))
				for _, i := range is {
					if i.IsPullRequest() {
						prs = true
						continue
					}
					var labels []string
					for _, lb := range i.Labels {
						labels = append(labels, lb.GetName())
					}
					rows = append(rows, issueRow{Number: i.GetNumber(), Title: i.GetTitle(), State: i.GetState(), Author: i.GetUser().GetLogin(), Labels: labels,
						Comments: i.GetComments(), Updated: ts(i.UpdatedAt), URL: i.GetHTMLURL()})
				}
				return rows, resp, err
			})
			if err != nil {
				return nil, c.Err("list the issues of "+in.full(), err)
			}
			if prs && l.More() {
				l.Total = -1 // counted from pages that held pull requests too
			}
			return listAnswer("issues", l), nil
		}),
	}
}

// issueCreateTool is gh_issue_create.
func issueCreateTool() tool.Tool {
	type args struct {
		repoArgs
		Title     string   `json:"title"`
		Body      string   `json:"body"`
		Labels    []string `json:"labels"`
		Assignees []string `json:"assignees"`
	}
	return tool.Tool{
		Def: def("gh_issue_create", groupIssues, "Open an issue: {number, url, state}.", true,
			repoProps(
				schema.String("title", "The title").Required(),
				schema.String("body", "The description (Markdown)"),
				schema.Array("labels", "Labels to set (they must exist in the repository, or GitHub creates them if the token may)", schema.StringItems()),
				schema.Array("assignees", "Logins to assign", schema.StringItems()),
			)).
			WithPhrases("file a bug", "report bug", "new issue", "log a defect", "open ticket", "bug report", "issue with a stack trace", "file an issue on github", "an issue titled"),
		Run: run(func(ctx context.Context, in args, c *conn) (any, error) {
			req := &github.IssueRequest{Title: github.Ptr(in.Title)}
			if in.Body != "" {
				req.Body = github.Ptr(in.Body)
			}
			if in.Labels != nil {
				req.Labels = &in.Labels
			}
			if in.Assignees != nil {
				req.Assignees = &in.Assignees
			}
			i, _, err := c.Issues.Create(ctx, in.Owner, in.Repo, req)
			if err != nil {
				return nil, c.Err("open an issue in "+in.full(), err)
			}
			return map[string]any{"number": i.GetNumber(), "url": i.GetHTMLURL(), "state": i.GetState()}, nil
		}),
	}
}

// issueCommentTool is gh_issue_comment: on an issue or a pull request.
func issueCommentTool() tool.Tool {
	type args struct {
		repoArgs
		IssueNumber int    `json:"issueNumber"`
		Body        string `json:"body"`
	}
	return tool.Tool{
		Def: def("gh_issue_comment", groupIssues, "Comment on an issue or a pull request: {id, url}.", true,
			repoProps(
				schema.Integer("issueNumber", "The issue's (or pull request's) number").Required().Min(1),
				schema.String("body", "The comment (Markdown)").Required(),
			)).
			WithPhrases("comment on PR", "reply on issue", "gh pr comment", "post comment", "leave a note on issue", "add comment to issue"),
		Run: run(func(ctx context.Context, in args, c *conn) (any, error) {
			if strings.TrimSpace(in.Body) == "" {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"body\" is empty; write the comment")
			}
			cm, _, err := c.Issues.CreateComment(ctx, in.Owner, in.Repo, in.IssueNumber, &github.IssueComment{Body: github.Ptr(in.Body)})
			if err != nil {
				return nil, c.Err(fmt.Sprintf("comment on #%d of %s", in.IssueNumber, in.full()), err)
			}
			return map[string]any{"id": cm.GetID(), "url": cm.GetHTMLURL()}, nil
		}),
	}
}
