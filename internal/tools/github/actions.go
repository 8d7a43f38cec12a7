package github

// GitHub Actions: workflows, dispatching a run, and the runs.

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/barrhawk/barrhawk/internal/githubapi"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/google/go-github/v75/github"
	"github.com/google/jsonschema-go/jsonschema"
)

func actionTools() []tool.Tool {
	return []tool.Tool{workflowListTool(), workflowRunTool(), workflowRunsTool()}
}

// workflowListTool is gh_workflow_list.
func workflowListTool() tool.Tool {
	type args struct {
		repoArgs
		Limit int `json:"limit"`
	}
	type row struct {
		ID    int64  `json:"id"`
		Name  string `json:"name"`
		Path  string `json:"path"`
		State string `json:"state"`
		URL   string `json:"url"`
	}
	return tool.Tool{
		Def: def("gh_workflow_list", groupActions, "List a repository's GitHub Actions workflows: {workflows: [{id, name, path, state, url}], count, total}. gh_workflow_run and gh_workflow_runs take the id or the file name (ci.yml).", false,
			repoProps(limitProp("workflows"))).
			WithPhrases("list workflows", "actions yaml files", "ci pipelines", "workflow files", "ci.yml", "which workflows exist", "find a workflow id", ".github/workflows", "what ci pipelines are defined in a repo"),
		Run: run(func(ctx context.Context, in args, c *conn) (any, error) {
			l, err := githubapi.List(ctx, in.Limit, func(ctx context.Context, o github.ListOptions) ([]row, *github.Response, error) {
				ws, resp, err := c.Actions.ListWorkflows(ctx, in.Owner, in.Repo, &o)
				var rows []row
				if ws != nil {
					for _, w := range ws.Workflows {
						rows = append(rows, row{ID: w.GetID(), Name: w.GetName(), Path: w.GetPath(), State: w.GetState(), URL: w.GetHTMLURL()})
					}
				}
				return rows, resp, err
			})
			if err != nil {
				return nil, c.Err("list the workflows of "+in.full(), err)
			}
			return listAnswer("workflows", l), nil
		}),
	}
}

// runRow is one workflow run.
type runRow struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion,omitempty"`
	Branch     string `json:"branch"`
	Event      string `json:"event"`
	SHA        string `json:"sha"`
	Created    string `json:"created"`
	URL        string `json:"url"`
}

func runRowOf(r *github.WorkflowRun) runRow {
	return runRow{ID: r.GetID(), Name: r.GetName(), Status: r.GetStatus(), Conclusion: r.GetConclusion(), Branch: r.GetHeadBranch(),
		Event: r.GetEvent(), SHA: short(r.GetHeadSHA()), Created: ts(r.CreatedAt), URL: r.GetHTMLURL()}
}

// workflowRef is a workflow's id or file name, as the tools take it.
type workflowRef string

// UnmarshalJSON takes a number or a string.
func (w *workflowRef) UnmarshalJSON(b []byte) error {
	var n json.Number
	if err := json.Unmarshal(b, &n); err == nil {
		*w = workflowRef(n.String())
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*w = workflowRef(s)
	return nil
}

// id is the workflow's numeric id, or 0 for a file name.
func (w workflowRef) id() int64 {
	n, err := strconv.ParseInt(string(w), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

var workflowRefSchema = &jsonschema.Schema{Types: []string{"integer", "string"}}

// runsOf lists the runs of a workflow (or of every workflow for "").
func runsOf(ctx context.Context, c *conn, owner, repo string, wf workflowRef, opts *github.ListWorkflowRunsOptions) (*github.WorkflowRuns, *github.Response, error) {
	switch {
	case wf == "":
		return c.Actions.ListRepositoryWorkflowRuns(ctx, owner, repo, opts)
	case wf.id() != 0:
		return c.Actions.ListWorkflowRunsByID(ctx, owner, repo, wf.id(), opts)
	}
	return c.Actions.ListWorkflowRunsByFileName(ctx, owner, repo, string(wf), opts)
}

// workflowRunTool is gh_workflow_run: dispatches a run and answers it once
// GitHub lists it.
func workflowRunTool() tool.Tool {
	type args struct {
		repoArgs
		WorkflowID workflowRef    `json:"workflowId"`
		Ref        string         `json:"ref"`
		Inputs     map[string]any `json:"inputs"`
	}
	return tool.Tool{
		Def: def("gh_workflow_run", groupActions, "Trigger a workflow that has a workflow_dispatch trigger, on a branch or tag: {dispatched: true, run: {id, status, url}} once GitHub lists the run (within a few seconds), else a note to look with gh_workflow_runs.", true,
			repoProps(
				schema.Of("workflowId", "The workflow's id or file name (ci.yml)", workflowRefSchema).Required(),
				schema.String("ref", "The branch or tag to run it on").Required(),
				schema.Map("inputs", "The workflow_dispatch inputs, by name"),
			)).
			WithPhrases("trigger ci", "run workflow on demand", "kick off a build", "start github action", "start a pipeline", "dispatch workflow", "manually run workflow", "trigger deploy"),
		Run: run(func(ctx context.Context, in args, c *conn) (any, error) {
			what := fmt.Sprintf("workflow %s of %s on %s", in.WorkflowID, in.full(), in.Ref)
			since := time.Now().Add(-5 * time.Second).UTC()
			ev := github.CreateWorkflowDispatchEventRequest{Ref: in.Ref, Inputs: in.Inputs}
			var err error
			if id := in.WorkflowID.id(); id != 0 {
				_, err = c.Actions.CreateWorkflowDispatchEventByID(ctx, in.Owner, in.Repo, id, ev)
			} else {
				_, err = c.Actions.CreateWorkflowDispatchEventByFileName(ctx, in.Owner, in.Repo, string(in.WorkflowID), ev)
			}
			if err != nil {
				return nil, c.Err("trigger "+what, err)
			}
			// GitHub answers 204 without the run: look for it briefly.
			for wait := 500 * time.Millisecond; wait < 8*time.Second; wait *= 2 {
				runs, _, err := runsOf(ctx, c, in.Owner, in.Repo, in.WorkflowID, &github.ListWorkflowRunsOptions{Event: "workflow_dispatch", Branch: in.Ref,
					Created: ">=" + since.Format(time.RFC3339), ListOptions: github.ListOptions{PerPage: 5}})
				if err == nil && len(runs.WorkflowRuns) > 0 {
					return map[string]any{"dispatched": true, "run": runRowOf(runs.WorkflowRuns[0])}, nil
				}
				select {
				case <-ctx.Done():
					return map[string]any{"dispatched": true, "note": "GitHub queued the run; gh_workflow_runs shows it"}, nil
				case <-time.After(wait):
				}
			}
			return map[string]any{"dispatched": true, "note": "GitHub queued the run but does not list it yet; gh_workflow_runs shows it in a moment"}, nil
		}),
	}
}

// workflowRunsTool is gh_workflow_runs.
func workflowRunsTool() tool.Tool {
	type args struct {
		repoArgs
		WorkflowID workflowRef `json:"workflowId"`
		Status     string      `json:"status"`
		Branch     string      `json:"branch"`
		Limit      int         `json:"limit"`
	}
	return tool.Tool{
		Def: def("gh_workflow_runs", groupActions, "List workflow runs, newest first, of one workflow or all: {runs: [{id, name, status, conclusion, branch, event, sha, created, url}], count, total}.", false,
			repoProps(
				schema.Of("workflowId", "The workflow's id or file name (default: every workflow)", workflowRefSchema),
				schema.String("status", "Only runs in this status or conclusion: queued, in_progress, completed, success, failure, cancelled, …").EnumStrings(
					"queued", "in_progress", "completed", "requested", "waiting", "pending", "action_required", "cancelled", "failure", "neutral", "skipped", "stale", "success", "timed_out"),
				schema.String("branch", "Only runs on this branch"),
				limitProp("runs"),
			)).
			WithPhrases("why is ci red", "ci status", "build status", "failed runs", "gh run list", "latest ci result", "did the build pass", "pipeline history"),
		Run: run(func(ctx context.Context, in args, c *conn) (any, error) {
			total := -1
			l, err := githubapi.List(ctx, in.Limit, func(ctx context.Context, o github.ListOptions) ([]runRow, *github.Response, error) {
				runs, resp, err := runsOf(ctx, c, in.Owner, in.Repo, in.WorkflowID, &github.ListWorkflowRunsOptions{Status: in.Status, Branch: in.Branch, ListOptions: o})
				var rows []runRow
				if runs != nil {
					total = runs.GetTotalCount()
					for _, r := range runs.WorkflowRuns {
						rows = append(rows, runRowOf(r))
					}
				}
				return rows, resp, err
			})
			if err != nil {
				return nil, c.Err("list the workflow runs of "+in.full(), err)
			}
			if total >= 0 {
				l.Total = total
			}
			return listAnswer("runs", l), nil
		}),
	}
}
