package doctor

import (
	"context"
	"encoding/json"

	"github.com/barrhawk/barrhawk/internal/gateway"
	"github.com/barrhawk/barrhawk/internal/intent"
	"github.com/barrhawk/barrhawk/internal/intent/learned"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/search"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// newAnalyzer builds the Doctor's intent analyzer over its registry and
// tool search.
func (d *Doctor) newAnalyzer() *intent.Analyzer {
	a := &intent.Analyzer{
		Tools:  d.reg.List,
		Search: func(q string, limit int) []search.Hit { return d.Search(q, limit, "") },
		Own:    func(t *tool.Tool) bool { return IsDynamic(t) || gateway.IsHosted(t) },
		Cache:  d.cfg.Intent.CacheResults,
	}
	if d.cfg.Intent.Learned {
		// The model is built in (TestIntentModel checks it decodes).
		a.Learned = func() *learned.Model {
			m, _ := learned.Embedded()
			return m
		}
	}
	return a
}

// WarmIntent decodes what intent analysis reads at its first request (the
// learned model: tens of milliseconds), so that a server's first
// tool_search or intent_analyze does not wait for it. A one-shot command
// never asks it.
func (d *Doctor) WarmIntent() {
	if d.intent.Learned != nil {
		d.intent.Learned()
	}
}

func (d *Doctor) intentTools() []tool.Tool {
	if !d.cfg.Intent.Enabled {
		return nil
	}
	return []tool.Tool{{
		Def: mgmt("intent_analyze", "Analyse what a request in words (text) or a tool call (tool, args) is after. Returns domains, complexity, suggestedTools, parallelizable, estimatedSteps and steps (tools in calling order with their words and argument hints).",
			schema.String("text", "Request in words"),
			schema.String("tool", "A tool name, known or not"),
			schema.Any("args", "Its arguments").Types("object", "null")).
			WithPhrases("what tools do I need", "break down a request", "task decomposition", "plan the steps", "classify a prompt", "how complex is this task", "estimate steps", "which domain is this"),
		Run: tool.Typed(func(_ context.Context, in struct {
			Text string          `json:"text"`
			Tool string          `json:"tool"`
			Args json.RawMessage `json:"args"`
		}, _ *tool.Call) (any, error) {
			switch {
			case in.Tool != "":
				return d.intent.Call(in.Tool, in.Args), nil
			case in.Text != "":
				return d.intent.Text(in.Text), nil
			}
			return nil, tool.Errorf(tool.CodeInvalidArgs, "give text (a request in words) or tool (with args)")
		}),
	}}
}
