package queue

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/barrhawk/barrhawk/internal/jobs"
	"github.com/barrhawk/barrhawk/internal/redact"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Group is the heading of the job tools.
const Group = "Jobs"

func def(name, desc string, props ...schema.Prop) tool.Def {
	return tool.Def{Name: name, Description: desc, Group: Group, Category: tool.CategoryOrchestration, Input: schema.Object(props...)}
}

func idArg() schema.Prop {
	return schema.Integer("id", "Job id").Required().Min(1)
}

// Final reports whether a job's state is one it ends in.
func Final(state string) bool {
	return state == "completed" || state == "discarded" || state == "cancelled"
}

// Tools are the job tools, answered by the front: they talk to the queue;
// the jobs run in the pool's workers.
func (s *Service) Tools() []tool.Tool {
	type submitArgs struct {
		Repo      string            `json:"repo"`
		Ref       string            `json:"ref"`
		Build     []string          `json:"build"`
		Test      []string          `json:"test"`
		Env       map[string]string `json:"env"`
		Timeout   int               `json:"timeout"`
		Artifacts []string          `json:"artifacts"`
		Priority  int               `json:"priority"`
		Retries   int               `json:"retries"`
	}
	type idArgs struct {
		ID     int64 `json:"id"`
		Wait   bool  `json:"wait"`
		Offset int64 `json:"offset"`
		Limit  int   `json:"limit"`
	}
	queue := func(ctx context.Context) (Queue, error) {
		q, err := s.Queue(ctx)
		if err != nil {
			return nil, tool.Errorf(tool.CodeToolError, "the job queue: %v", err)
		}
		return q, nil
	}
	get := func(ctx context.Context, id int64) (*Info, error) {
		q, err := queue(ctx)
		if err != nil {
			return nil, err
		}
		in, err := q.Get(ctx, id)
		if err != nil {
			return nil, tool.Errorf(tool.CodeNotFound, "%v", err)
		}
		return in, nil
	}
	submit := def("task_submit", "Queue a job: check out repo at ref in a fresh worktree, run build then test commands there. Returns its id.",
		schema.String("repo", "Path on the worker's machine").Required().Min(1),
		schema.String("ref", "Commit or branch (default HEAD)"),
		schema.Array("build", "Shell commands", schema.StringItems()),
		schema.Array("test", "Shell commands, after build", schema.StringItems()),
		schema.Map("env", "Extra env vars"),
		schema.Integer("timeout", "Seconds (default 1800)").Min(1),
		schema.Array("artifacts", "File globs to keep, in the worktree", schema.StringItems()),
		schema.Integer("priority", "1 runs first").Default(2).Min(1).Max(4),
		schema.Integer("retries", "Attempts after a failure").Default(0).Min(0).Max(25)).
		WithPhrases("queue a ci job", "kick off a build", "build and test a commit", "enqueue job", "background build", "test a branch in isolation", "submit a ci run")
	submit.Retries = -1
	return []tool.Tool{
		{Def: submit, Run: tool.Typed(func(ctx context.Context, in submitArgs, _ *tool.Call) (any, error) {
			q, err := queue(ctx)
			if err != nil {
				return nil, err
			}
			job := jobs.CommandJob{Repo: in.Repo, Ref: in.Ref, Build: in.Build, Test: in.Test, Env: in.Env,
				Timeout: time.Duration(in.Timeout) * time.Second, Artifacts: in.Artifacts, Priority: in.Priority, Retries: in.Retries}
			// As task submit: a repository or ref that is wrong fails here,
			// not later as a discarded job.
			if err := CheckRepo(ctx, &job, Shared(s.cfg.DB), ""); err != nil {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "%v", err)
			}
			id, err := q.Submit(ctx, job)
			if err != nil {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "%v", err)
			}
			return map[string]any{"id": id, "state": "available"}, nil
		})},
		{Def: def("task_status", "A job's state (available, running, retryable, completed, discarded, cancelled), attempts and outcome (exit code, log).",
			idArg(), schema.Boolean("wait", "Wait for the end, with progress").Default(false)).
			WithPhrases("is my job done", "job state", "is the build finished", "wait for the job", "did the build pass", "job exit code", "poll a queued job"),
			Run: tool.Typed(func(ctx context.Context, in idArgs, _ *tool.Call) (any, error) {
				progress := tool.ProgressFrom(ctx)
				t0 := time.Now()
				for {
					info, err := get(ctx, in.ID)
					if err != nil || !in.Wait || Final(info.State) {
						return info, err
					}
					progress(float64(time.Since(t0).Seconds()), 0, "job "+info.State)
					select {
					case <-ctx.Done():
						return nil, ctx.Err()
					case <-time.After(250 * time.Millisecond):
					}
				}
			})},
		{Def: def("task_list", "The newest jobs first: id, state, attempts, outcome.", schema.Integer("limit", "At most this many jobs").Default(50).Min(1).Max(1000)).
			WithPhrases("recent jobs", "list queued jobs", "job history", "what jobs ran", "all ci jobs", "latest build and test jobs and their states"),
			Run: tool.Typed(func(ctx context.Context, in idArgs, _ *tool.Call) (any, error) {
				q, err := queue(ctx)
				if err != nil {
					return nil, err
				}
				if in.Limit == 0 {
					in.Limit = 50 // the schema's default
				}
				list, err := q.List(ctx, in.Limit)
				if err != nil {
					return nil, tool.Errorf(tool.CodeToolError, "%v", err)
				}
				return map[string]any{"tasks": list, "count": len(list)}, nil
			})},
		{Def: def("task_logs", "A job's output from offset; follow a running job by asking again with nextOffset. Returns {text, nextOffset, done}.",
			idArg(), schema.Integer("offset", "Byte offset").Min(0)).
			WithPhrases("job output", "build log", "tail the job log", "follow the build output", "why did the job fail", "ci job log"),
			Run: tool.Typed(func(ctx context.Context, in idArgs, _ *tool.Call) (any, error) {
				info, err := get(ctx, in.ID)
				if err != nil {
					return nil, err
				}
				text, next, err := s.Logs(in.ID, in.Offset, 64<<10)
				if errors.Is(err, ErrNoLog) {
					// A queued job has no log yet: an empty page, so that one
					// follows it from before it starts, as a running one.
					return map[string]any{"text": "", "nextOffset": 0, "done": Final(info.State), "state": info.State, "note": err.Error()}, nil
				}
				if err != nil {
					return nil, tool.Errorf(tool.CodeNotFound, "%v", err)
				}
				return map[string]any{"text": text, "nextOffset": next, "done": Final(info.State) && text == "", "state": info.State}, nil
			})},
		{Def: def("task_cancel", "Cancel a job: a queued one never runs, a running one is stopped.", idArg()).
			WithPhrases("stop the build", "abort a job", "kill a running job", "cancel a queued job", "dequeue a job"),
			Run: tool.Typed(func(ctx context.Context, in idArgs, _ *tool.Call) (any, error) {
				q, err := queue(ctx)
				if err != nil {
					return nil, err
				}
				info, err := q.Cancel(ctx, in.ID)
				if err != nil {
					return nil, tool.Errorf(tool.CodeNotFound, "%v", err)
				}
				if err := EndedBeforeCancel(info); err != nil {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "%v", err)
				}
				return info, nil
			})},
		{Def: def("task_artifacts", "The files a finished job kept (its artifacts globs), with sizes.", idArg()).
			WithPhrases("build outputs", "download artifacts", "files the job produced", "job output files", "reports the job kept"),
			Run: tool.Typed(func(ctx context.Context, in idArgs, _ *tool.Call) (any, error) {
				info, err := get(ctx, in.ID)
				if err != nil {
					return nil, err
				}
				out := []map[string]any{}
				if info.Outcome != nil {
					for _, p := range info.Outcome.Artifacts {
						size := int64(-1)
						if fi, err := os.Stat(p); err == nil {
							size = fi.Size()
						}
						out = append(out, map[string]any{"path": p, "bytes": size})
					}
				}
				return map[string]any{"id": in.ID, "state": info.State, "artifacts": out}, nil
			})},
		{Def: def("pool_status", "Status of the job queue: its database, workers here, their jobs, and the newest jobs' counts by state.").
			WithPhrases("job queue status", "queue backlog", "jobs by state", "how many jobs are queued", "how many job workers", "workers busy with jobs", "build runners", "queue database"),
			Run: tool.Typed(func(ctx context.Context, _ struct{}, _ *tool.Call) (any, error) {
				q, err := queue(ctx)
				if err != nil {
					return nil, err
				}
				list, err := q.List(ctx, 1000)
				if err != nil {
					return nil, tool.Errorf(tool.CodeToolError, "%v", err)
				}
				counts := map[string]int{}
				for _, j := range list {
					counts[j.State]++
				}
				return map[string]any{"db": redact.URLs(s.cfg.DB), "workers": s.cfg.Count, "workerId": s.cfg.WorkerID, "running": s.Running(), "byState": counts}, nil
			})},
	}
}
