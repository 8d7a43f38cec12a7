package spawn

import (
	"context"
	"time"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Group is the heading of the spawn tools.
const Group = "Agents"

// maxWait bounds spawn_agent {wait: true} (a run's own total timeout is
// shorter by default).
const maxWait = 24 * time.Hour

func agentDef(name, desc string, input ...schema.Prop) tool.Def {
	return tool.Def{Name: name, Description: desc, Group: Group, Category: tool.CategoryOrchestration, Input: schema.Object(input...)}
}

// Tools are the MCP tools of the service. The front answers them (no Igor):
// the agent itself is a child process group of its own.
func (s *Service) Tools() []tool.Tool {
	type startArgs struct {
		Prompt       string   `json:"prompt"`
		Repo         string   `json:"repo"`
		Ref          string   `json:"ref"`
		LLM          string   `json:"llm"`
		Mode         string   `json:"mode"`
		Recovery     string   `json:"recovery"`
		IdleTimeout  int      `json:"idleTimeout"`
		TotalTimeout int      `json:"totalTimeout"`
		Secrets      []string `json:"secrets"`
		PR           bool     `json:"pr"`
		Base         string   `json:"base"`
		Wait         bool     `json:"wait"`
	}
	type idArgs struct {
		ID     string `json:"id"`
		Offset int64  `json:"offset"`
	}
	start := agentDef("spawn_agent", "Hand a task to a sub-agent (Claude Code or Gemini CLI) working in its own git worktree and branch; "+
		"answers at once with an id, or with wait the result (branch, commits, summary, PR).",
		schema.String("prompt", "The task").Required().Min(1),
		schema.String("repo", "Repository directory (default: the server's working directory)"),
		schema.String("ref", "Commit or branch to start from (default HEAD)"),
		schema.String("llm", "Which agent CLI").Enum("claude", "gemini").Default("claude"),
		schema.String("mode", "structured rewrites the prompt as a brief; passthrough sends it as given").Enum(ModeStructured, ModePassthrough).Default(ModeStructured),
		schema.String("recovery", "How permission denials are fixed and retried (interactive asks you through MCP elicitation)").Enum(RecoveryModerate, RecoveryAggressive, RecoveryInteractive),
		schema.Integer("idleTimeout", "Seconds without output before the agent is stopped").Min(1),
		schema.Integer("totalTimeout", "Seconds the run may take in all").Min(1),
		schema.Array("secrets", "Names of secrets to give the agent as environment variables (redacted everywhere)", schema.StringItems()),
		schema.Boolean("pr", "Push the branch and open a pull request (GitHub origins)").Default(false),
		schema.String("base", "Branch the pull request targets (default: the current one)"),
		schema.Boolean("wait", "Wait for the end, with progress notifications").Default(false),
	)
	start.Timeout, start.Retries = maxWait, -1
	return []tool.Tool{
		{Def: start, Run: tool.Typed(func(ctx context.Context, in startArgs, _ *tool.Call) (any, error) {
			progress := tool.ProgressFrom(ctx)
			events := 0
			id, done, err := s.Start(ctx, Options{Prompt: in.Prompt, Repo: in.Repo, Ref: in.Ref, LLM: in.LLM, Mode: in.Mode, Recovery: in.Recovery,
				IdleTimeout: time.Duration(in.IdleTimeout) * time.Second, TotalTimeout: time.Duration(in.TotalTimeout) * time.Second,
				Secrets: in.Secrets, PR: in.PR, Base: in.Base, Ask: tool.AskFrom(ctx)}, func(e Event) {
				events++
				if in.Wait {
					progress(float64(events), 0, describeEvent(e))
				}
			})
			if err != nil {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "%v", err)
			}
			if !in.Wait {
				return map[string]any{"id": id, "status": "running", "hint": "follow it with spawn_status and spawn_logs; stop it with spawn_cancel"}, nil
			}
			select {
			case st := <-done:
				return st, nil
			case <-ctx.Done():
				_ = s.Cancel(id)
				return nil, ctx.Err()
			}
		})},
		{Def: agentDef("spawn_status", "A spawn's phase, last activity, files changed, commits, tokens and cost, and its result once done.",
			schema.String("id", "The id spawn_agent gave").Required().Min(1)),
			Run: tool.Typed(func(_ context.Context, in idArgs, _ *tool.Call) (any, error) {
				st, err := s.Status(in.ID)
				if err != nil {
					return nil, tool.Errorf(tool.CodeNotFound, "%v", err)
				}
				return st, nil
			})},
		{Def: agentDef("spawn_logs", "A spawn's agent output (stream-json, secrets redacted) from offset; returns {text, nextOffset, done}.",
			schema.String("id", "The id spawn_agent gave").Required().Min(1), schema.Integer("offset", "Byte offset to read from (the last nextOffset)").Min(0)),
			Run: tool.Typed(func(_ context.Context, in idArgs, _ *tool.Call) (any, error) {
				text, next, done, err := s.Logs(in.ID, in.Offset, 64<<10)
				if err != nil {
					return nil, tool.Errorf(tool.CodeNotFound, "%v", err)
				}
				return map[string]any{"text": text, "nextOffset": next, "done": done}, nil
			})},
		{Def: agentDef("spawn_cancel", "Stop a running spawn and its agent's processes.", schema.String("id", "The id spawn_agent gave").Required().Min(1)),
			Run: tool.Typed(func(_ context.Context, in idArgs, _ *tool.Call) (any, error) {
				if err := s.Cancel(in.ID); err != nil {
					return nil, tool.Errorf(tool.CodeNotFound, "%v", err)
				}
				return map[string]any{"id": in.ID, "cancelled": true}, nil
			})},
	}
}

// describeEvent is a progress line for an event.
func describeEvent(e Event) string {
	switch e.Kind {
	case EventToolUse:
		return "tool " + e.Tool
	case EventFileWrite:
		return "writes " + e.Path
	case EventFileRead:
		return "reads " + e.Path
	case EventText:
		return firstLine(e.Text)
	case EventResult:
		return "finished"
	}
	return string(e.Kind)
}
