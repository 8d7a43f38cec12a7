package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/squad"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Squads (package squad): named teams whose calls share values. The
// values live here, in the front; each of a squad's calls carries them to
// its Igor as the task's ExecutionContext, and brings back what it set.

type squadKey struct{}

// callInSquad runs one call as a task of sq: with its shared values, and
// storing what the task shares back. The front's own tools (context_set,
// context_get) find the squad in the context.
func (d *Doctor) callInSquad(ctx context.Context, sq *squad.Squad, name string, args json.RawMessage) Result {
	if !sq.Allows(name) {
		return Result{Err: tool.Errorf(tool.CodeForbidden, "squad %s may call only %v, not %s", sq.Name, sq.ToolBag, name)}
	}
	release, err := sq.Acquire(ctx.Done())
	if err != nil {
		return Result{Err: tool.Errorf(tool.CodeCancelled, "%v", err)}
	}
	defer release()
	ec := &tool.ExecContext{SquadID: sq.Name, SharedVars: sq.Vars()}
	ctx = context.WithValue(tool.WithExecContext(ctx, ec), squadKey{}, sq)
	r := d.Call(ctx, name, args)
	for k, v := range ec.Updates {
		sq.Set(k, v)
	}
	return r
}

// squadFor is the squad a context tool works on: the one named, or the
// one whose task is running.
func (d *Doctor) squadFor(ctx context.Context, name string) (*squad.Squad, error) {
	if name != "" {
		return d.squads.Get(name)
	}
	if sq, ok := ctx.Value(squadKey{}).(*squad.Squad); ok {
		return sq, nil
	}
	return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"squad\": name the squad (or call this tool through squad_dispatch)")
}

func (d *Doctor) squadTools() []tool.Tool {
	orch := func(name, desc string, props ...schema.Prop) tool.Def {
		def := mgmt(name, desc, props...)
		def.Category = tool.CategoryOrchestration
		def.Timeout = maxToolCallTimeout // the dispatched tools' own timeouts apply
		return def
	}
	task := schema.Object(schema.String("tool", "Tool").Required().Min(1), schema.Any("args", "Its arguments").Types("object", "null"))
	return []tool.Tool{
		{
			Def: orch("squad_create", "Create a named squad: calls sharing values (context_set, context_get, ctx.squad), at most size at once, limited to toolBag if given.",
				schema.String("name", "Squad name").Required().Min(1),
				schema.Integer("size", "Calls at once").Default(2).Min(1).Max(128),
				schema.Array("toolBag", "Tool globs it may call; empty: all", schema.StringItems())).
				WithPhrases("form a team", "set up a crew", "team with shared variables", "group calls sharing state", "limit team concurrency", "start a squad"),
			Run: tool.Typed(func(_ context.Context, in struct {
				Name    string   `json:"name"`
				Size    int      `json:"size"`
				ToolBag []string `json:"toolBag"`
			}, _ *tool.Call) (any, error) {
				if in.Size == 0 {
					in.Size = 2
				}
				sq, err := d.squads.Create(in.Name, in.Size, in.ToolBag)
				if err == nil {
					d.pool.StopLane(squadLanePrefix + sq.Name) // Igors of an expired squad of the same name, whose bag may differ
				}
				if err != nil {
					return nil, err
				}
				d.events.Emit(Event{Type: EventSquadCreated, Reason: fmt.Sprintf("%s, size %d", sq.Name, sq.Size)})
				return map[string]any{"squad": sq.Name, "size": sq.Size, "toolBag": sq.ToolBag}, nil
			}),
		},
		{
			Def: orch("squad_dispatch", "Run a tool, or several tasks, as a squad: each call carries the squad's shared values and may set them.",
				schema.String("name", "Squad name").Required().Min(1),
				schema.String("tool", "The tool to run (or give tasks)"),
				schema.Any("args", "Its arguments").Types("object", "null"),
				schema.Array("tasks", "Run as the squad's size allows", task)).
				WithPhrases("send work to the team", "run calls as a team", "dispatch tasks to squad", "fan out within a squad", "team runs tools together", "run tasks under the group", "as part of the team"),
			Run: tool.Typed(func(ctx context.Context, in struct {
				Name  string          `json:"name"`
				Tool  string          `json:"tool"`
				Args  json.RawMessage `json:"args"`
				Tasks []struct {
					Tool string          `json:"tool"`
					Args json.RawMessage `json:"args"`
				} `json:"tasks"`
			}, _ *tool.Call) (any, error) {
				sq, err := d.squads.Get(in.Name)
				if err != nil {
					return nil, err
				}
				if (in.Tool == "") == (len(in.Tasks) == 0) {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "give either tool (with args) or tasks [{tool, args}]")
				}
				if in.Tool != "" {
					r := d.callInSquad(ctx, sq, in.Tool, in.Args)
					if r.Err != nil {
						return nil, r.Err
					}
					return r.Value, nil
				}
				out := make([]map[string]any, len(in.Tasks))
				var wg sync.WaitGroup
				for i, t := range in.Tasks {
					wg.Go(func() {
						r := d.callInSquad(ctx, sq, t.Tool, t.Args)
						o := map[string]any{"tool": t.Tool, "igor": r.Igor}
						if r.Err != nil {
							o["status"], o["error"] = "failed", r.Err
						} else {
							o["status"], o["result"] = "succeeded", r.Value
						}
						out[i] = o
					})
				}
				wg.Wait()
				return map[string]any{"squad": sq.Name, "results": out}, nil
			}),
		},
		{
			Def: orch("squad_share", "Share a value with a squad's calls.",
				schema.String("name", "Squad name").Required().Min(1),
				schema.String("key", "Key").Required().Min(1),
				schema.Any("value", "Any JSON value").Required()).
				WithPhrases("give the team a value", "give squad calls a value", "broadcast value to squad", "seed shared team state", "hand the team a token", "publish variable to squad", "value for all squad calls", "give everyone in the squad", "push a value to every member", "so all their calls can read it"),
			Run: tool.Typed(func(_ context.Context, in struct {
				Name  string          `json:"name"`
				Key   string          `json:"key"`
				Value json.RawMessage `json:"value"`
			}, _ *tool.Call) (any, error) {
				sq, err := d.squads.Get(in.Name)
				if err != nil {
					return nil, err
				}
				sq.Set(in.Key, in.Value)
				return map[string]any{"squad": sq.Name, "key": in.Key, "keys": sq.Keys()}, nil
			}),
		},
		{
			Def: orch("squad_dissolve", "Dissolve a squad; its running calls finish, its shared values are dropped.",
				schema.String("name", "Squad name").Required().Min(1)).
				WithPhrases("disband the team", "tear down a squad", "end the crew", "delete squad", "done with the squad", "squad no longer needed", "drop team shared state"),
			Run: tool.Typed(func(_ context.Context, in struct {
				Name string `json:"name"`
			}, _ *tool.Call) (any, error) {
				if err := d.squads.Dissolve(in.Name); err != nil {
					return nil, err
				}
				d.pool.StopLane(squadLanePrefix + in.Name) // its own Igors, under the squad strategy
				d.events.Emit(Event{Type: EventSquadDissolved, Reason: in.Name})
				return map[string]any{"dissolved": in.Name}, nil
			}),
		},
		{
			Def: orch("context_set", "Set a value shared by a squad's calls.",
				schema.String("key", "Key").Required().Min(1),
				schema.Any("value", "Any JSON value").Required(),
				schema.String("squad", "Default: this call's squad")).
				WithPhrases("store a shared variable", "save value for later steps", "pass data between steps", "set squad variable", "remember a value", "store id for other calls", "set context from a task", "put k/v in shared context"),
			Run: tool.Typed(func(ctx context.Context, in struct {
				Key   string          `json:"key"`
				Value json.RawMessage `json:"value"`
				Squad string          `json:"squad"`
			}, _ *tool.Call) (any, error) {
				sq, err := d.squadFor(ctx, in.Squad)
				if err != nil {
					return nil, err
				}
				sq.Set(in.Key, in.Value)
				return map[string]any{"squad": sq.Name, "key": in.Key, "set": true}, nil
			}),
		},
		{
			Def: orch("context_get", "Read a value shared by a squad's calls.",
				schema.String("key", "Omit for all"),
				schema.String("squad", "Default: this call's squad")).
				WithPhrases("read a shared variable", "look up a shared value", "read value from shared context", "get squad variable", "what an earlier step saved", "list shared values", "k/v lookup in shared context", "read back what the squad shared", "fetch back a value a step put there", "what is a value set to in the squad"),
			Run: tool.Typed(func(ctx context.Context, in struct {
				Key   string `json:"key"`
				Squad string `json:"squad"`
			}, _ *tool.Call) (any, error) {
				sq, err := d.squadFor(ctx, in.Squad)
				if err != nil {
					return nil, err
				}
				if in.Key == "" {
					return map[string]any{"squad": sq.Name, "vars": sq.Vars()}, nil
				}
				v, ok := sq.Get(in.Key)
				if !ok {
					return nil, tool.Errorf(tool.CodeNotFound, "squad %s has no value %q; keys: %v", sq.Name, in.Key, sq.Keys())
				}
				return map[string]any{"squad": sq.Name, "key": in.Key, "value": v}, nil
			}),
		},
	}
}
