// Package doctor is the front's routing brain (doctor-spec.md): the tool
// registry, argument validation, dispatch to the Igor pool, the management
// tools the front answers itself, and the event bus. It runs no tool code
// that can hang or crash it: every tool marked RequiresWorker goes to an Igor.
package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/barrhawk/barrhawk/internal/closest"
	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/dynamic"
	"github.com/barrhawk/barrhawk/internal/gateway"
	"github.com/barrhawk/barrhawk/internal/intent"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/search"
	"github.com/barrhawk/barrhawk/internal/squad"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/wire"
)

// Options configure a Doctor.
type Options struct {
	Config config.Config
	// IgorCommand starts one Igor, such as [/path/to/barrhawk igor].
	IgorCommand []string
	// IgorEnv is the Igors' environment; nil inherits the front's.
	IgorEnv []string
	// Tools are the tools that run in Igors (normally builtin.Tools()).
	Tools []tool.Tool
	Log   *slog.Logger
}

// Doctor routes tool calls.
type Doctor struct {
	cfg     config.Config
	reg     *tool.Registry
	pool    *Pool
	events  *Events
	log     *slog.Logger
	started time.Time
	dyn     *dynamicTools // nil when dynamic tools are off
	results tool.ResultLimits
	index   atomic.Pointer[search.Index] // tool_search's, nil after a change
	squads  squad.Registry
	intent  *intent.Analyzer
	lanes   *lanes
	// swarmSeq numbers swarms for their events.
	swarmSeq atomic.Uint64
	gateway  *gateway.Hub // nil when gateway.enabled is off
	// conns knows which Igor holds each connection alias (connections.go).
	conns *connections

	changeMu sync.Mutex
	onChange []func(added []*tool.Tool, removed []string)
	// httpSessions reports the front's HTTP sessions for worker_status;
	// nil when it serves none (ReportHTTPSessions).
	httpSessions atomic.Pointer[func() HTTPSessions]
	// recording reports how recording goes (ReportRecording); nil with
	// the record off.
	recording atomic.Pointer[func() any]
}

// OnToolsChanged registers fn to hear of tools added (or replaced) and
// removed at run time (dynamic tools, gateway upstreams' tools); the front
// uses it to update the MCP server, which then sends
// notifications/tools/list_changed.
func (d *Doctor) OnToolsChanged(fn func(added []*tool.Tool, removed []string)) {
	d.changeMu.Lock()
	d.onChange = append(d.onChange, fn)
	d.changeMu.Unlock()
}

// toolsChanged tells the listeners of OnToolsChanged.
func (d *Doctor) toolsChanged(added []*tool.Tool, removed []string) {
	d.changeMu.Lock()
	listeners := slices.Clone(d.onChange)
	d.changeMu.Unlock()
	for _, fn := range listeners {
		fn(added, removed)
	}
}

// New builds a Doctor: its registry holds the management tools and opts.Tools.
func New(opts Options) (*Doctor, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	events := NewEvents(1024)
	events.Subscribe(LogEvents(opts.Log))
	d := &Doctor{cfg: opts.Config, events: events, log: opts.Log, started: time.Now(), reg: tool.NewRegistry(),
		results: tool.ResultLimits{Cut: opts.Config.Tools.MaxResultBytes, Hard: opts.Config.Tools.MaxResultHardBytes},
		squads:  squad.Registry{Idle: opts.Config.Igors.SquadIdleTimeout}, conns: newConnections()}
	events.Subscribe(d.conns.onEvent)
	popts := PoolOptions{
		Command: opts.IgorCommand, Env: opts.IgorEnv, Igors: opts.Config.Igors,
		DefaultTimeout: opts.Config.Tools.DefaultTimeout, FSRoot: opts.Config.Tools.FSRoot, ScreenshotDir: opts.Config.Tools.ScreenshotDir, Log: opts.Log, Events: events,
		Results: d.results, TaskEvents: opts.Config.Events.Tasks,
		Docker: &wire.DockerConfig{Host: opts.Config.Docker.Host, AllowPrivileged: opts.Config.Docker.AllowPrivileged,
			AllowedMounts: opts.Config.Docker.AllowedMounts, Compose: opts.Config.Docker.Compose},
		GitHubAPI: opts.Config.GitHub.API,
	}
	if opts.Config.Dashboard.Record {
		popts.RecordDB = opts.Config.Dashboard.DB
	}
	var tools []tool.Tool
	for _, family := range [][]tool.Tool{d.managementTools(), d.searchTools(), d.bagTools(), d.eventTools(), d.swarmTools(), d.squadTools(), d.intentTools()} {
		tools = append(tools, family...)
	}
	if opts.Config.Tools.EnableDynamic {
		d.dyn = newDynamicTools(d)
		popts.OnCrash = func() { d.dyn.crashed(context.Background()) }
		tools = append(tools, d.dynamicManagementTools()...)
	}
	if opts.Config.Gateway.Enabled {
		d.gateway = d.newGateway()
		tools = append(tools, d.gateway.Tools(d.searchGateway)...)
	}
	d.pool = NewPool(popts)
	for _, t := range append(tools, opts.Tools...) {
		if err := d.reg.Add(t); err != nil {
			return nil, err
		}
	}
	d.intent = d.newAnalyzer()
	d.lanes = newLanes(d, opts.Config.Igors.Strategy)
	d.OnToolsChanged(func([]*tool.Tool, []string) { // rebuilt on the next use
		d.index.Store(nil)
		d.intent.Reset()
	})
	return d, nil
}

// SetOwnAddrs records the front's listen addresses (host:port), which
// dynamic tools may not fetch. Call it before Start: Igors learn it when
// they start.
func (d *Doctor) SetOwnAddrs(addrs ...string) { d.pool.opts.OwnAddrs = addrs }

// Config is the configuration the Doctor was built with.
func (d *Doctor) Config() config.Config { return d.cfg }

// Registry is the set of tools the front offers.
func (d *Doctor) Registry() *tool.Registry { return d.reg }

// Pool is the Igor pool.
func (d *Doctor) Pool() *Pool { return d.pool }

// Events is the event bus.
func (d *Doctor) Events() *Events { return d.events }

// watchDebounce coalesces the events of one save (an editor may write,
// rename and chmod within a few milliseconds) into one reload.
const watchDebounce = 25 * time.Millisecond

// Start loads the dynamic tools (taking the initial snapshot on first
// start). A broken tool is reported, not fatal; an unusable directory is.
func (d *Doctor) Start(ctx context.Context) error {
	if d.gateway != nil {
		d.gateway.Start()
	}
	if d.dyn == nil {
		return nil
	}
	return d.dyn.start(ctx)
}

// Serve runs the pool's housekeeping, and the dynamic tools watcher when hot
// reload is on, until ctx ends; then it stops the Igors.
func (d *Doctor) Serve(ctx context.Context) error {
	if d.dyn != nil && d.cfg.Tools.HotReload {
		go func() {
			err := dynamic.Watch(ctx, d.cfg.Tools.DynamicDir, watchDebounce, func(changed []string) {
				d.log.Info("dynamic tools changed; reloading", "files", changed)
				if _, err := d.dyn.reload(ctx); err != nil {
					d.log.Error("reloading dynamic tools", "err", err)
				}
			})
			if err != nil && ctx.Err() == nil {
				d.log.Error("watching the dynamic tools directory stopped; use tools_reload", "dir", d.cfg.Tools.DynamicDir, "err", err)
			}
		}()
	}
	if d.gateway != nil {
		go d.gateway.Serve(ctx)
	}
	return d.pool.Serve(ctx)
}

// Reload reloads the dynamic tools and returns the names loaded.
func (d *Doctor) Reload(ctx context.Context) ([]string, error) {
	if d.dyn == nil {
		return nil, tool.Errorf(tool.CodeForbidden, "dynamic tools are turned off (tools.enableDynamic)")
	}
	return d.dyn.reload(ctx)
}

// DeleteTool deletes a dynamic tool.
func (d *Doctor) DeleteTool(ctx context.Context, name string) error {
	if d.dyn == nil {
		return tool.Errorf(tool.CodeForbidden, "dynamic tools are turned off (tools.enableDynamic)")
	}
	_, err := d.dyn.delete(ctx, name)
	return err
}

// Close stops every Igor and every gateway upstream.
func (d *Doctor) Close() {
	var wg sync.WaitGroup
	if d.gateway != nil {
		wg.Go(d.gateway.Close)
	}
	d.pool.Close()
	wg.Wait()
}

// Result is the outcome of one call: a JSON value or an error.
type Result struct {
	Value json.RawMessage
	Err   *tool.Error
	// Igor is the Igor that answered; empty for the front's own tools.
	Igor string
}

// Call validates the arguments and runs the tool: the front's own tools
// here, every other tool in an Igor.
func (d *Doctor) Call(ctx context.Context, name string, args json.RawMessage) Result {
	t, ok := d.reg.Get(name)
	if !ok && d.AwaitTool(ctx, name) {
		t, ok = d.reg.Get(name)
	}
	if !ok {
		return Result{Err: d.UnknownTool(name)}
	}
	if err := d.check(t, args); err != nil {
		return Result{Err: err}
	}
	if !t.RequiresWorker {
		return d.runLocal(ctx, t, args, d.timeoutOf(t))
	}
	if t.Category == tool.CategoryFilesystem || t.UsesRoots {
		ctx = tool.WithRoots(ctx, d.AllowedRoots(ctx)) // sent with the task; see wire.Task.Roots
	}
	v, igor, terr := d.pool.CallWhere(d.lanes.forCall(ctx, t), name, args, d.timeoutOf(t), t.MaxRetries())
	return d.result(name, args, v, igor, terr)
}

// CallNow is Call for a quick tool (tool.Def.Quick) without waiting: done
// gets the result, on this goroutine for arguments that are refused, else
// on the goroutine reading the replies of the Igor that took it (see
// Pool.CallNow). It reports false, having done nothing, for any other call,
// or when no Igor can take it at once: then the caller calls Call.
func (d *Doctor) CallNow(ctx context.Context, name string, args json.RawMessage, done func(Result)) bool {
	t, ok := d.reg.Get(name)
	if !ok || !t.Quick || !t.RequiresWorker {
		return false
	}
	if err := d.check(t, args); err != nil {
		done(Result{Err: err})
		return true
	}
	return d.pool.CallNow(d.lanes.forCall(ctx, t), name, args, d.timeoutOf(t), t.MaxRetries(), func(v json.RawMessage, igor string, terr *tool.Error) {
		done(d.result(name, args, v, igor, terr))
	})
}

// check validates a call's arguments against its tool's schema.
func (d *Doctor) check(t *tool.Tool, args json.RawMessage) *tool.Error {
	if err := schema.Validate(t.Input, args); err != nil {
		return tool.Errorf(tool.CodeInvalidArgs, "%s: %v", t.Name, err)
	}
	return nil
}

// timeoutOf is the timeout of a call of t.
func (d *Doctor) timeoutOf(t *tool.Tool) time.Duration {
	if t.Timeout == 0 {
		return d.cfg.Tools.DefaultTimeout
	}
	return t.Timeout
}

// result is the Result of a call an Igor ran (or could not).
func (d *Doctor) result(name string, args json.RawMessage, v json.RawMessage, igor string, terr *tool.Error) Result {
	return Result{Value: v, Err: d.conns.after(name, args, igor, terr), Igor: igor}
}

// runLocal runs one of the front's own tools; a panic is caught and
// reported, never allowed to take the front down.
func (d *Doctor) runLocal(ctx context.Context, t *tool.Tool, args json.RawMessage, timeout time.Duration) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			d.log.Error("front tool panicked", "tool", t.Name, "panic", r, "stack", string(debug.Stack()))
			res = Result{Err: tool.Errorf(tool.CodeInternal, "%s failed inside the front: %v (a BarrHawk bug; please report it)", t.Name, r)}
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	v, err := t.Run(ctx, &tool.Call{Args: args, Log: d.log.With("tool", t.Name)})
	if err != nil {
		return Result{Err: tool.AsError(err)}
	}
	b, err := d.results.Encode(v)
	if err != nil {
		return Result{Err: tool.AsError(err)}
	}
	return Result{Value: b}
}

// UnknownTool is the UNKNOWN_TOOL error for name, suggesting the closest
// tool names.
func (d *Doctor) UnknownTool(name string) *tool.Error {
	all := d.reg.List()
	known := make([]string, len(all))
	for i, t := range all {
		known[i] = t.Name
	}
	msg := fmt.Sprintf("no tool named %q", name)
	if d.gateway != nil {
		if why := d.gateway.Explain(name); why != "" {
			msg += " (" + why + ")"
		}
	}
	if names := closest.Names(name, known, 3); len(names) > 0 {
		msg += "; did you mean " + strings.Join(names, ", ") + "?"
	} else if hits := d.Search(strings.ReplaceAll(name, "_", " "), 3, ""); len(hits) > 0 {
		for _, h := range hits {
			names = append(names, h.Tool.Name)
		}
		msg += "; tools that may do it: " + strings.Join(names, ", ") + " (tool_search finds more)"
	} else {
		msg += "; tool_search finds tools by what they do"
	}
	return &tool.Error{Code: tool.CodeUnknownTool, Message: msg}
}
