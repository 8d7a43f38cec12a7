package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/swarm"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/google/jsonschema-go/jsonschema"
)

// swarmTools runs many calls as one (package swarm). The front
// coordinates; every subtask is an ordinary call, validated and sent to
// the pool, which spreads them over its Igors.
func (d *Doctor) swarmTools() []tool.Tool {
	subtask := schema.Object(
		schema.String("id", "Unique id; others refer to its result as ${id} or ${id.path}").Required().Min(1),
		schema.String("tool", "Tool to call").Required().Min(1),
		schema.Any("args", "The tool's arguments; a string \"${id.path}\" is replaced by that earlier result").Types("object", "null"),
		schema.Array("dependsOn", "Ids to wait for (references in args count too)", schema.StringItems()),
	)
	mapStep := schema.Object(
		schema.String("tool", "Tool called once per item").Required().Min(1),
		schema.Array("items", "The items", &jsonschema.Schema{}).Required(),
		schema.String("as", "Argument that receives the item (default item)"),
		schema.Any("args", "Other arguments, the same for every item").Types("object", "null"),
	)
	reduceStep := schema.Object(
		schema.String("reducer", "Built-in reducer").Enum(swarm.Concat, swarm.Merge, swarm.Sum, swarm.Count),
		schema.String("tool", "Or a tool called with the map results"),
		schema.String("as", "Argument that receives the results array (default results)"),
		schema.Any("args", "Other arguments of the reduce tool").Types("object", "null"),
	)
	return []tool.Tool{{
		Def: tool.Def{
			Name: "swarm_run",
			Description: "Run many tool calls as one, spread over the worker pool: parallel (subtasks with dependsOn), " +
				"pipeline (in order, each using earlier results as \"${id.path}\"), or map-reduce (map.tool per item, then " +
				"a reducer or reduce.tool). onPartialFailure: abort stops the rest, continue runs all it can, retry tries a " +
				"failed subtask once more. Returns each subtask's status, result or error, Igor and duration.",
			Group: ManagementGroup, Category: tool.CategoryOrchestration,
			Input: schema.Object(
				schema.String("strategy", "How the subtasks run").Enum(swarm.Parallel, swarm.Pipeline, swarm.MapReduce).Default(swarm.Parallel),
				schema.Array("subtasks", "For parallel and pipeline: the calls", subtask).Max(swarm.MaxSubtasks),
				schema.Of("map", "For map-reduce: the map step", mapStep),
				schema.Of("reduce", "For map-reduce: the reduce step (default: concat)", reduceStep),
				schema.String("onPartialFailure", "What a failed subtask does to the rest").Enum(swarm.Abort, swarm.Continue, swarm.Retry).Default(swarm.Abort),
				schema.Integer("timeout", "Milliseconds for the whole swarm; 0: each tool's own timeout only").Min(0),
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
