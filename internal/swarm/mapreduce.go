package swarm

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// Built-in reducers.
const (
	Concat = "concat" // the results in item order, as one array
	Merge  = "merge"  // object results merged, later keys winning
	Sum    = "sum"    // numeric results added up
	Count  = "count"  // how many map calls succeeded
)

// mapReduce calls the map tool once per item, all at once (the pool
// spreads them over its Igors), then reduces the successful results.
func mapReduce(ctx context.Context, spec Spec, call Caller) (*Report, error) {
	m := spec.Map
	if m == nil || m.Tool == "" || len(m.Items) == 0 {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"map\": map-reduce needs {tool, items: [...], as?, args?}")
	}
	if len(m.Items) > MaxSubtasks {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"map.items\": %d items; at most %d", len(m.Items), MaxSubtasks)
	}
	red := spec.Reduce
	if red == nil {
		red = &Reduce{Reducer: Concat}
	}
	if red.Tool == "" && red.Reducer == "" {
		red.Reducer = Concat
	}
	switch red.Reducer {
	case "", Concat, Merge, Sum, Count:
	default:
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"reduce.reducer\": %q is not a reducer; use concat, merge, sum or count, or give reduce.tool", red.Reducer)
	}
	as := m.As
	if as == "" {
		as = "item"
	}
	base := map[string]any{}
	if len(m.Args) > 0 && string(m.Args) != "null" {
		if err := json.Unmarshal(m.Args, &base); err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"map.args\" must be an object: %v", err)
		}
	}
	tasks := make([]task, len(m.Items))
	for i, item := range m.Items {
		args := map[string]any{}
		for k, v := range base {
			args[k] = v
		}
		args[as] = item
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "map item %d: %v", i, err)
		}
		tasks[i] = task{Subtask: Subtask{ID: "map-" + strconv.Itoa(i+1), Tool: m.Tool, Args: raw}}
	}
	rep := run(ctx, tasks, spec, call)
	if ctx.Err() != nil || rep.Status == Failed || rep.Status != Succeeded && spec.OnPartialFailure == Abort {
		return rep, nil
	}
	var results []json.RawMessage
	for _, o := range rep.Subtasks {
		if o.Status == Succeeded {
			results = append(results, o.Result)
		}
	}
	if red.Tool != "" {
		out := reduceWith(ctx, red, results, call)
		rep.Subtasks = append(rep.Subtasks, out)
		if out.Status != Succeeded {
			rep.Status = "partial"
			return rep, nil
		}
		rep.Result = out.Result
		return rep, nil
	}
	res, err := reduce(red.Reducer, results)
	if err != nil {
		rep.Subtasks = append(rep.Subtasks, Outcome{ID: "reduce", Tool: red.Reducer, Status: Failed, Error: tool.Errorf(tool.CodeToolError, "%v", err)})
		rep.Status = "partial"
		return rep, nil
	}
	rep.Result = res
	return rep, nil
}

// reduceWith calls the reduce tool with the results.
func reduceWith(ctx context.Context, red *Reduce, results []json.RawMessage, call Caller) Outcome {
	as := red.As
	if as == "" {
		as = "results"
	}
	args := map[string]any{}
	if len(red.Args) > 0 && string(red.Args) != "null" {
		if err := json.Unmarshal(red.Args, &args); err != nil {
			return Outcome{ID: "reduce", Tool: red.Tool, Status: Failed, Error: tool.Errorf(tool.CodeInvalidArgs, "argument \"reduce.args\" must be an object: %v", err)}
		}
	}
	if results == nil {
		results = []json.RawMessage{}
	}
	args[as] = results
	raw, _ := json.Marshal(args) // raw results and a decoded object always marshal
	return attempt(ctx, Subtask{ID: "reduce", Tool: red.Tool}, raw, Abort, call)
}

// reduce applies a built-in reducer.
func reduce(reducer string, results []json.RawMessage) (json.RawMessage, error) {
	switch reducer {
	case Count:
		return json.Marshal(len(results))
	case Sum:
		total := 0.0
		for i, r := range results {
			var n float64
			if err := json.Unmarshal(r, &n); err != nil {
				return nil, fmt.Errorf("sum: result %d is not a number: %.60s", i+1, r)
			}
			total += n
		}
		return json.Marshal(total)
	case Merge:
		out := map[string]json.RawMessage{}
		for i, r := range results {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(r, &m); err != nil {
				return nil, fmt.Errorf("merge: result %d is not an object: %.60s", i+1, r)
			}
			for k, v := range m {
				out[k] = v
			}
		}
		return json.Marshal(out)
	}
	if results == nil {
		results = []json.RawMessage{}
	}
	return json.Marshal(results)
}
