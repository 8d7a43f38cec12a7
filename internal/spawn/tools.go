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
	start := agentDef("spawn_agent", "Hand a task to a sub-agent (Claude Code or Gemini CLI) in its own git worktree and branch. "+
		"Returns an id at once or, with wait, the result (branch, commits, summary, PR).",
		schema.String("prompt", "The task").Required().Min(1),
		schema.String("repo", "Default: the working directory"),
		schema.String("ref", "Start point (default HEAD)"),
		schema.String("llm", "Agent CLI").Enum("claude", "gemini").Default("claude"),
		schema.String("mode", "structured rewrites it as a brief").Enum(ModeStructured, ModePassthrough).Default(ModeStructured),
		schema.String("recovery", "Permission denial fixes; interactive asks you").Enum(RecoveryModerate, RecoveryAggressive, RecoveryInteractive),
		schema.Integer("idleTimeout", "Seconds of silence before stopping").Min(1),
		schema.Integer("totalTimeout", "Seconds for the whole run").Min(1),
		schema.Array("secrets", "Passed as env vars, redacted", schema.StringItems()),
		schema.Boolean("pr", "Push and open a PR (GitHub origins)").Default(false),
		schema.String("base", "PR target (default: current branch)"),
		schema.Boolean("wait", "With progress notifications").Default(false),
	).
		WithPhrases("delegate to claude code", "run a sub-agent", "hand off a coding task", "spawn gemini cli", "background coding agent", "let an agent fix it", "agent opens a PR", "parallel agent", "give this job to another claude on its own branch", "a separate ai helper to fix it")
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
		{Def: agentDef("spawn_status", "A spawn's phase, last activity, files changed, commits, tokens, cost, and result once done.",
			schema.String("id", "From spawn_agent").Required().Min(1)).
			WithPhrases("is the agent done", "how is the agent doing", "agent progress", "what did the sub-agent change", "agent commits", "agent token usage", "agent cost so far"),
			Run: tool.Typed(func(_ context.Context, in idArgs, _ *tool.Call) (any, error) {
				st, err := s.Status(in.ID)
				if err != nil {
					return nil, tool.Errorf(tool.CodeNotFound, "%v", err)
				}
				return st, nil
			})},
		{Def: agentDef("spawn_logs", "A spawn's agent output (stream-json, secrets redacted) from offset. Returns {text, nextOffset, done}.",
			schema.String("id", "From spawn_agent").Required().Min(1), schema.Integer("offset", "The last nextOffset").Min(0)).
			WithPhrases("agent transcript", "what the agent printed", "what the agent works on", "sub-agent output", "follow agent log", "claude code output", "read what the helper agent writes while it works"),
			Run: tool.Typed(func(_ context.Context, in idArgs, _ *tool.Call) (any, error) {
				text, next, done, err := s.Logs(in.ID, in.Offset, 64<<10)
				if err != nil {
					return nil, tool.Errorf(tool.CodeNotFound, "%v", err)
				}
				return map[string]any{"text": text, "nextOffset": next, "done": done}, nil
			})},
		{Def: agentDef("spawn_cancel", "Stop a running spawn and its agent's processes.", schema.String("id", "From spawn_agent").Required().Min(1)).
			WithPhrases("stop the agent", "kill the sub-agent", "abort claude run", "cancel delegated task", "stop gemini run"),
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
