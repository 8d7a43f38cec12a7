package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/swarm"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// swarmTools runs many calls as one (package swarm). The front
// coordinates; every subtask is an ordinary call, validated and sent to
// the pool, which spreads them over its Igors.
func (d *Doctor) swarmTools() []tool.Tool {
	subtask := schema.Object(
		schema.String("id", "Unique").Required().Min(1),
		schema.String("tool", "Tool").Required().Min(1),
		schema.Any("args", "A string exactly \"${id}\" or \"${id.path}\" becomes that result, waited for").Types("object", "null"),
		schema.Array("dependsOn", "Ids that must succeed first", schema.StringItems()),
	)
	mapStep := schema.Object(
		schema.String("tool", "Called once per item").Required().Min(1),
		schema.Array("items", "The items", nil).Required(),
		schema.String("as", "Argument for the item (default item)"),
		schema.Any("args", "Same for every item").Types("object", "null"),
	)
	reduceStep := schema.Object(
		schema.String("reducer", "Built-in").Enum(swarm.Concat, swarm.Merge, swarm.Sum, swarm.Count),
		schema.String("tool", "Or a tool given the results"),
		schema.String("as", "Argument for results (default results)"),
		schema.Any("args", "Other arguments").Types("object", "null"),
	)
	return []tool.Tool{{
		Def: tool.Def{
			Name: "swarm_run",
			Description: "Run many tool calls as one over the worker pool: parallel (each subtask once its dependencies " +
				"succeed), pipeline (in order) or map-reduce. Returns status, per subtask status, result or error, " +
				"Igor, duration, and result (pipeline's last or reduced).",
			Phrases: []string{"run tools in parallel", "fan out calls", "parallel execution", "map reduce over items", "pipeline of tool calls", "batch many calls", "many calls at once", "fetch many urls in parallel", "combine the results", "chain calls with results", "scatter gather", "dag of subtasks"},
			Group:   ManagementGroup, Category: tool.CategoryOrchestration,
			Input: schema.Object(
				schema.String("strategy", "How subtasks run").Enum(swarm.Parallel, swarm.Pipeline, swarm.MapReduce).Default(swarm.Parallel),
				schema.Array("subtasks", "For parallel and pipeline", subtask).Max(swarm.MaxSubtasks),
				schema.Of("map", "For map-reduce", mapStep),
				schema.Of("reduce", "For map-reduce (default concat)", reduceStep),
				schema.String("onPartialFailure", "abort stops the rest; continue runs all it can; retry: once more").Enum(swarm.Abort, swarm.Continue, swarm.Retry).Default(swarm.Abort),
				schema.Integer("timeout", "Milliseconds for all; 0: only each tool's own").Min(0),
			),
			Timeout: maxToolCallTimeout, // the swarm's own timeout applies
		},
		Run: tool.Typed(func(ctx context.Context, spec swarm.Spec, _ *tool.Call) (any, error) {
			names := []string{}
			for _, st := range spec.Subtasks {
				names = append(names, st.Tool)
			}
			if spec.Map != nil {
				names = append(names, spec.Map.Tool)
			}
			if spec.Reduce != nil {
				names = append(names, spec.Reduce.Tool)
			}
			for _, n := range names {
				if n == "swarm_run" {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "a swarm cannot run swarm_run; put its subtasks in this one")
				}
			}
			id := "swarm-" + strconv.FormatUint(d.swarmSeq.Add(1), 10)
			d.events.Emit(Event{Type: EventSwarmStarted, Task: id, Reason: fmt.Sprintf("%s, %d subtasks, %d Igors live", spec.Strategy, swarmSize(spec), d.pool.Status().Live)})
			if spec.Strategy != swarm.Pipeline {
				ctx = withSpread(ctx)
			}
			rep, err := swarm.Run(ctx, spec, d.swarmCall)
			if err != nil {
				d.events.Emit(Event{Type: EventSwarmCompleted, Task: id, Reason: "failed: " + err.Error()})
				return nil, err
			}
			failed := 0
			for _, o := range rep.Subtasks {
				if o.Error != nil {
					failed++
				}
			}
			d.events.Emit(Event{Type: EventSwarmCompleted, Task: id, DurationMs: rep.DurationMs,
				Reason: fmt.Sprintf("%s: %d subtasks, %d failed, on %d Igors", rep.Status, len(rep.Subtasks), failed, len(rep.Igors))})
			return rep, nil
		}),
	}}
}

// swarmSize is how many calls a swarm makes, at least.
func swarmSize(spec swarm.Spec) int {
	if spec.Map != nil {
		return len(spec.Map.Items)
	}
	return len(spec.Subtasks)
}

// swarmCall is one subtask: an ordinary call.
func (d *Doctor) swarmCall(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, string, *tool.Error) {
	r := d.Call(ctx, name, args)
	return r.Value, r.Igor, r.Err
}
