// Package swarm runs many tool calls as one: subtasks in parallel (with
// dependencies), as a pipeline whose steps use earlier results, or as a
// map-reduce spread over the Igor pool (doctor-spec.md, Swarm).
//
// A subtask's arguments may use an earlier subtask's result: a string
// that is exactly "${ID}" or "${ID.path}" (path: field names and [index],
// as "${fetch.body.items[0].id}") is replaced by that value, and makes the
// subtask depend on ID.
package swarm

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// Caller runs one tool call; the Doctor is one.
type Caller func(ctx context.Context, name string, args json.RawMessage) (result json.RawMessage, igor string, err *tool.Error)

// Strategies.
const (
	Parallel  = "parallel"
	Pipeline  = "pipeline"
	MapReduce = "map-reduce"
)

// Failure policies.
const (
	Abort    = "abort"
	Continue = "continue"
	Retry    = "retry"
)

// Subtask statuses.
const (
	Succeeded = "succeeded"
	Failed    = "failed"
	Skipped   = "skipped"   // a subtask it depends on did not succeed
	Cancelled = "cancelled" // the swarm was aborted, timed out or cancelled first
)

// MaxSubtasks bounds one swarm.
const MaxSubtasks = 1000

// Subtask is one call of the swarm.
type Subtask struct {
	ID        string          `json:"id"`
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args,omitempty"`
	DependsOn []string        `json:"dependsOn,omitempty"`
}

// Map is the map step of a map-reduce: Tool is called once per item, with
// the item as argument As (default "item") beside Args.
type Map struct {
	Tool  string          `json:"tool"`
	Items []any           `json:"items"`
	As    string          `json:"as,omitempty"`
	Args  json.RawMessage `json:"args,omitempty"`
}

// Reduce is the reduce step: a built-in Reducer (concat, merge, sum,
// count) or a Tool called with the map results as argument As (default
// "results") beside Args.
type Reduce struct {
	Reducer string          `json:"reducer,omitempty"`
	Tool    string          `json:"tool,omitempty"`
	As      string          `json:"as,omitempty"`
	Args    json.RawMessage `json:"args,omitempty"`
}

// Spec is one swarm.
type Spec struct {
	Strategy         string    `json:"strategy"`
	Subtasks         []Subtask `json:"subtasks"`
	Map              *Map      `json:"map,omitempty"`
	Reduce           *Reduce   `json:"reduce,omitempty"`
	OnPartialFailure string    `json:"onPartialFailure"`
	Timeout          int64     `json:"timeout"` // ms; 0: none beyond each tool's own
}

// Outcome is one subtask's end.
type Outcome struct {
	ID         string          `json:"id"`
	Tool       string          `json:"tool"`
	Status     string          `json:"status"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      *tool.Error     `json:"error,omitempty"`
	Igor       string          `json:"igor,omitempty"`
	DurationMs float64         `json:"durationMs"`
	Attempts   int             `json:"attempts,omitempty"`
}

// Report is the swarm's answer.
type Report struct {
	Strategy   string          `json:"strategy"`
	Status     string          `json:"status"` // succeeded, partial or failed
	Subtasks   []Outcome       `json:"subtasks"`
	Result     json.RawMessage `json:"result,omitempty"` // the pipeline's last result, or the reduced one
	Igors      []string        `json:"igors"`
	DurationMs float64         `json:"durationMs"`
}

// Run runs spec with call, refusing a malformed spec with INVALID_ARGS.
func Run(ctx context.Context, spec Spec, call Caller) (*Report, error) {
	if spec.Strategy == "" {
		spec.Strategy = Parallel
	}
	if spec.OnPartialFailure == "" {
		spec.OnPartialFailure = Abort
	}
	if spec.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(spec.Timeout)*time.Millisecond)
		defer cancel()
	}
	began := time.Now()
	var rep *Report
	var err error
	switch spec.Strategy {
	case Parallel, Pipeline:
		tasks, err := plan(spec)
		if err != nil {
			return nil, err
		}
		rep = run(ctx, tasks, spec, call)
		if spec.Strategy == Pipeline && rep.Status == Succeeded && len(rep.Subtasks) > 0 {
			rep.Result = rep.Subtasks[len(rep.Subtasks)-1].Result
		}
	case MapReduce:
		rep, err = mapReduce(ctx, spec, call)
		if err != nil {
			return nil, err
		}
	default:
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"strategy\": %q is not a strategy; use parallel, pipeline or map-reduce", spec.Strategy)
	}
	rep.Strategy = spec.Strategy
	rep.DurationMs = ms(time.Since(began))
	return rep, nil
}

// ref is an argument that names an earlier result: ${ID} or ${ID.path}.
var ref = regexp.MustCompile(`^\$\{([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_-]+|\[[0-9]+\])*)\}$`)

// task is a subtask with its dependencies resolved.
type task struct {
	Subtask
	deps []int
}

// plan checks the subtasks and orders their dependencies: explicit
// dependsOn, references in the arguments, and, in a pipeline, the step
// before.
func plan(spec Spec) ([]task, error) {
	if len(spec.Subtasks) == 0 {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"subtasks\": %s needs at least one subtask {id, tool, args}", spec.Strategy)
	}
	if len(spec.Subtasks) > MaxSubtasks {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"subtasks\": %d subtasks; at most %d", len(spec.Subtasks), MaxSubtasks)
	}
	index := map[string]int{}
	for i, st := range spec.Subtasks {
		if st.ID == "" {
			spec.Subtasks[i].ID = "t" + strconv.Itoa(i+1)
			st.ID = spec.Subtasks[i].ID
		}
		if _, dup := index[st.ID]; dup {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "subtask id %q is used twice; ids must be unique", st.ID)
		}
		if st.Tool == "" {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "subtask %q has no tool", st.ID)
		}
		index[st.ID] = i
	}
	tasks := make([]task, len(spec.Subtasks))
	for i, st := range spec.Subtasks {
		t := task{Subtask: st}
		names := slices.Clone(st.DependsOn)
		names = append(names, refsIn(st.Args)...)
		for _, n := range names {
			j, ok := index[n]
			if !ok {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "subtask %q depends on %q, which is not a subtask", st.ID, n)
			}
			if j == i {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "subtask %q depends on itself", st.ID)
			}
			if !slices.Contains(t.deps, j) {
				t.deps = append(t.deps, j)
			}
		}
		if spec.Strategy == Pipeline && i > 0 && !slices.Contains(t.deps, i-1) {
			t.deps = append(t.deps, i-1)
		}
		tasks[i] = t
	}
	if cyc := cycle(tasks); cyc != "" {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "the subtasks' dependencies form a cycle through %q", cyc)
	}
	return tasks, nil
}

// cycle returns a subtask on a dependency cycle, or "".
func cycle(tasks []task) string {
	state := make([]int, len(tasks)) // 0 new, 1 visiting, 2 done
	var visit func(i int) bool
	visit = func(i int) bool {
		switch state[i] {
		case 1:
			return true
		case 2:
			return false
		}
		state[i] = 1
		for _, d := range tasks[i].deps {
			if visit(d) {
				return true
			}
		}
		state[i] = 2
		return false
	}
	for i := range tasks {
		if visit(i) {
			return tasks[i].ID
		}
	}
	return ""
}

// refsIn lists the subtasks the arguments refer to.
func refsIn(args json.RawMessage) []string {
	if len(args) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(args, &v) != nil {
		return nil
	}
	var out []string
	walk(v, func(s string) any {
		if m := ref.FindStringSubmatch(s); m != nil {
			out = append(out, m[1])
		}
		return s
	})
	return out
}

// walk calls fn on every string in v, replacing it with fn's answer.
func walk(v any, fn func(string) any) any {
	switch x := v.(type) {
	case string:
		return fn(x)
	case []any:
		for i := range x {
			x[i] = walk(x[i], fn)
		}
	case map[string]any:
		for k := range x {
			x[k] = walk(x[k], fn)
		}
	}
	return v
}

// resolve replaces the references in args with the results they name.
func resolve(args json.RawMessage, results map[string]json.RawMessage) (json.RawMessage, error) {
	if len(args) == 0 || !strings.Contains(string(args), "${") {
		return args, nil
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return nil, err
	}
	var ferr error
	v = walk(v, func(s string) any {
		m := ref.FindStringSubmatch(s)
		if m == nil {
			return s
		}
		var val any
		if err := json.Unmarshal(results[m[1]], &val); err != nil {
			ferr = fmt.Errorf("the result of %q is not JSON", m[1])
			return s
		}
		got, err := path(val, m[2])
		if err != nil {
			ferr = fmt.Errorf("%s: %v", s, err)
			return s
		}
		return got
	})
	if ferr != nil {
		return nil, ferr
	}
	return json.Marshal(v)
}

var step = regexp.MustCompile(`\.([A-Za-z0-9_-]+)|\[([0-9]+)\]`)

// path follows ".field" and "[index]" steps into v.
func path(v any, p string) (any, error) {
	for _, m := range step.FindAllStringSubmatch(p, -1) {
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[m[1]]
			if m[1] == "" || !ok {
				return nil, fmt.Errorf("no field %q", strings.TrimPrefix(m[0], "."))
			}
			v = next
		case []any:
			i, err := strconv.Atoi(m[2])
			if m[2] == "" || err != nil || i >= len(x) {
				return nil, fmt.Errorf("no element %s (the array has %d)", m[0], len(x))
			}
			v = x[i]
		default:
			return nil, fmt.Errorf("cannot take %s of a %T", m[0], v)
		}
	}
	return v, nil
}

// run runs tasks, each as soon as its dependencies have succeeded.
func run(ctx context.Context, tasks []task, spec Spec, call Caller) *Report {
	ctx, abort := context.WithCancel(ctx)
	defer abort()
	outcomes := make([]Outcome, len(tasks))
	results := map[string]json.RawMessage{}
	var mu sync.Mutex
	done := make([]chan struct{}, len(tasks))
	for i := range done {
		done[i] = make(chan struct{})
	}
	progress := tool.ProgressFrom(ctx)
	finished := 0
	var wg sync.WaitGroup
	for i := range tasks {
		wg.Go(func() {
			defer close(done[i])
			t := tasks[i]
			out := Outcome{ID: t.ID, Tool: t.Tool}
			defer func() {
				mu.Lock()
				outcomes[i] = out
				if out.Status == Succeeded {
					results[t.ID] = out.Result
				}
				finished++
				// under the lock, so that progress only ever grows
				progress(float64(finished), float64(len(tasks)), fmt.Sprintf("subtask %s (%s): %s", t.ID, t.Tool, out.Status))
				mu.Unlock()
			}()
			for _, d := range t.deps {
				select {
				case <-done[d]:
				case <-ctx.Done():
				}
			}
			mu.Lock()
			var blocked string
			for _, d := range t.deps {
				if outcomes[d].Status != Succeeded {
					blocked = tasks[d].ID
					break
				}
			}
			args, err := resolve(t.Args, results)
			mu.Unlock()
			if ctx.Err() != nil {
				out.Status = Cancelled
				return
			}
			if blocked != "" {
				out.Status = Skipped
				out.Error = tool.Errorf(tool.CodeCancelled, "not run: %q, which it depends on, did not succeed", blocked)
				return
			}
			if err != nil {
				out.Status = Failed
				out.Error = tool.Errorf(tool.CodeInvalidArgs, "subtask %q: %v", t.ID, err)
			} else {
				out = attempt(ctx, t.Subtask, args, spec.OnPartialFailure, call)
			}
			if out.Status == Failed && spec.OnPartialFailure == Abort {
				abort()
			}
		})
	}
	wg.Wait()
	return report(outcomes)
}

// attempt calls one subtask, once more if the policy is retry.
func attempt(ctx context.Context, st Subtask, args json.RawMessage, policy string, call Caller) Outcome {
	out := Outcome{ID: st.ID, Tool: st.Tool}
	tries := 1
	if policy == Retry {
		tries = 2
	}
	began := time.Now()
	for out.Attempts < tries {
		out.Attempts++
		res, igor, terr := call(ctx, st.Tool, args)
		out.Igor = igor
		if terr == nil {
			out.Status, out.Result, out.Error = Succeeded, res, nil
			break
		}
		out.Status, out.Error = Failed, terr
		if ctx.Err() != nil {
			out.Status = Cancelled
			break
		}
	}
	out.DurationMs = ms(time.Since(began))
	return out
}

// report sums the outcomes up.
func report(outcomes []Outcome) *Report {
	rep := &Report{Subtasks: outcomes, Igors: []string{}}
	ok := 0
	for _, o := range outcomes {
		if o.Status == Succeeded {
			ok++
		}
		if o.Igor != "" && !slices.Contains(rep.Igors, o.Igor) {
			rep.Igors = append(rep.Igors, o.Igor)
		}
	}
	slices.Sort(rep.Igors)
	switch {
	case ok == len(outcomes):
		rep.Status = Succeeded
	case ok == 0:
		rep.Status = Failed
	default:
		rep.Status = "partial"
	}
	return rep
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
