// Package igor is the worker process of igor-spec.md: it reads tasks from
// the Doctor on stdin, runs tools, and writes results to stdout, which
// carries protocol only. Several tasks run at once, matched by id. A tool
// that panics answers an error and the Igor lives on; a tool that runs past
// its timeout answers "timeout", and if it still has not returned after a
// grace period the Igor asks to be replaced (request_restart), since Go
// cannot stop a goroutine from outside.
package igor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/barrhawk/barrhawk/internal/browser"
	"io"
	"log/slog"
	"maps"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/barrhawk/barrhawk/internal/dynamic/jsrt"
	"github.com/barrhawk/barrhawk/internal/gopool"
	"github.com/barrhawk/barrhawk/internal/logging"
	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/record"
	"github.com/barrhawk/barrhawk/internal/tool"
	dockertools "github.com/barrhawk/barrhawk/internal/tools/docker"
	githubtools "github.com/barrhawk/barrhawk/internal/tools/github"
	"github.com/barrhawk/barrhawk/internal/wire"
)

// Options configure an Igor.
type Options struct {
	// In and Out carry the protocol (normally stdin and stdout).
	In  io.Reader
	Out io.Writer
	// Log receives everything else; it must not write to Out. Its lines
	// carry igor=ID before init and the id init gives after.
	Log *slog.Logger
	// ID names the Igor until its init message does (a spare is started
	// before the Doctor knows which slot it will fill).
	ID string
	// Tools are every tool this binary knows; the init message's tool bag
	// picks the ones this Igor loads.
	Tools []tool.Tool
}

// Default timings, used when the init message leaves them out.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultStopGrace = time.Second
	// shutdownWait bounds how long a graceful shutdown waits for running
	// tasks after cancelling them.
	shutdownWait = 2 * time.Second
)

type worker struct {
	opts      Options
	enc       *wire.Encoder
	log       *slog.Logger
	res       *tool.Resources
	all       *tool.Registry // every built-in tool of this binary
	reg       *tool.Registry // the built-in tools in this Igor's tool bag
	bag       []string
	dyn       dynamicSet
	jsOpts    jsrt.Options
	limits    tool.ResultLimits // set at init
	id        string
	timeout   time.Duration
	stopGrace time.Duration

	base     context.Context // cancelled at shutdown: every task's parent
	cancel   context.CancelFunc
	tasks    sync.WaitGroup
	inFlight atomic.Int64
	restart  sync.Once

	runMu   sync.Mutex
	running map[string]*runningTask // by task id

	// usageMu orders the messages saying how many browser tabs the Igor
	// has (pongs, and the results of browser tools that changed it), so
	// that the last one the Doctor reads is the newest; reportedPages is
	// the count the last one said.
	usageMu       sync.Mutex
	reportedPages int
}

// runningTask is a task between its start and its answer.
type runningTask struct {
	tool     string
	answered *atomic.Bool
	began    time.Time
	cancel   context.CancelFunc
}

// Run serves the protocol until stdin ends, a shutdown message arrives, or
// ctx is cancelled (SIGTERM); in every case it closes the Igor's resources
// before it returns.
func Run(ctx context.Context, opts Options) error {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	w := &worker{
		opts:      opts,
		enc:       wire.NewEncoder(opts.Out),
		log:       opts.Log.With("igor", opts.ID),
		res:       tool.NewResources(),
		timeout:   DefaultTimeout,
		stopGrace: DefaultStopGrace,
	}
	w.base, w.cancel = context.WithCancel(context.Background())
	defer w.cancel()

	// The reader handles every message itself (tasks start their own
	// goroutines), so a task costs no hand-off between goroutines; it stops
	// at a shutdown or a failed init and reports how it ended.
	type ending struct {
		ack      bool // a shutdown message: send shutdown_ack
		graceful bool
		err      error
	}
	ended := make(chan ending, 1)
	go func() {
		dec := wire.NewDecoder(opts.In)
		for {
			env, err := dec.Decode()
			var se *wire.SyntaxError
			if errors.As(err, &se) {
				w.log.Warn("ignoring a line that is not a message", "err", err)
				continue
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					w.log.Warn("reading stdin", "err", err)
				}
				w.log.Debug("stdin closed; cleaning up")
				ended <- ending{}
				return
			}
			switch env.Kind() {
			case wire.KindTask:
				w.start(env)
			case wire.KindPing:
				w.pong()
			case wire.KindCancel:
				w.cancelTask(env.ID)
			case wire.KindInit:
				if err := w.init(env); err != nil {
					_ = w.enc.Encode(wire.Fatal{Type: wire.TypeFatal, Reason: err.Error()})
					ended <- ending{err: err}
					return
				}
			case wire.KindToolsUpdate:
				loaded := w.loadDynamic(env.DynamicTools, env.Describe)
				if err := w.enc.Encode(wire.ToolsLoaded{Type: wire.TypeToolsLoaded, ID: env.ID, Loaded: loaded}); err != nil {
					w.log.Warn("sending tools_loaded", "err", err)
				}
			case wire.KindShutdown:
				ended <- ending{ack: true, graceful: env.Graceful}
				return
			default:
				w.log.Warn("ignoring unexpected message", "type", env.Type, "id", env.ID)
			}
		}
	}()

	select {
	case <-ctx.Done():
		w.log.Info("signalled; cleaning up")
		w.shutdown(false)
		return nil
	case e := <-ended:
		kinds := w.shutdown(e.graceful)
		if e.ack {
			if err := w.enc.Encode(wire.ShutdownAck{Type: wire.TypeShutdownAck, CleanedUp: kinds}); err != nil {
				w.log.Warn("sending shutdown_ack", "err", err)
			}
		}
		return e.err
	}
}

func (w *worker) init(env *wire.Envelope) error {
	all := tool.NewRegistry(w.opts.Tools...)
	reg, err := all.Filter(env.ToolBag)
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	w.all, w.reg, w.bag, w.id = all, reg, env.ToolBag, env.ID
	if env.DynamicBag != nil {
		w.bag = env.DynamicBag
	}
	w.log = w.opts.Log.With("igor", env.ID)
	w.jsOpts = jsrt.Options{Log: w.log}
	if c := env.Config; c != nil {
		if c.Timeout > 0 {
			w.timeout = time.Duration(c.Timeout) * time.Millisecond
		}
		if c.StopGrace > 0 {
			w.stopGrace = time.Duration(c.StopGrace) * time.Millisecond
		}
		w.jsOpts.FSRoot = c.FSRoot
		browser.Configure(c.BrowserHeadless, c.ScreenshotDir, time.Duration(c.BrowserIdleTimeout)*time.Millisecond)
		browser.SetTestIDAttribute(c.BrowserTestIDAttribute)
		record.Use(c.RecordDB)
		w.limits = tool.ResultLimits{Cut: c.MaxResultBytes, Hard: c.MaxResultHardBytes}
		w.jsOpts.Results = w.limits
		w.jsOpts.OwnAddrs = c.OwnAddrs
		if d := c.Docker; d != nil {
			dockertools.Configure(dockertools.Settings{Host: d.Host, AllowPrivileged: d.AllowPrivileged, AllowedMounts: d.AllowedMounts, Compose: d.Compose})
		}
		githubtools.Configure(githubtools.Settings{API: c.GitHubAPI})
		// An Igor killed mid-exec left its command running; this one ends it.
		go dockertools.SweepOrphanExecs()
		w.applyMemoryLimit(c.MemoryLimit)
	}
	if len(env.DynamicTools) > 0 {
		w.loadDynamic(env.DynamicTools, false)
	}
	return w.enc.Encode(wire.Ready{
		Type:        wire.TypeReady,
		ID:          env.ID,
		ToolsLoaded: reg.Len() + w.dyn.count(),
		PID:         os.Getpid(),
		MemoryUsage: proc.RSS(os.Getpid()),
	})
}

type outcome struct {
	value  any
	err    error
	shared map[string]json.RawMessage // squad values the tool set
	// browser says the tool may have opened or closed browser tabs: its
	// result carries the Igor's resource usage when their count changed.
	browser bool
}

// taskRunners runs tasks on reused goroutines (package gopool).
var taskRunners = gopool.New(time.Minute)

func (w *worker) start(env *wire.Envelope) {
	if w.reg == nil {
		w.send(env.ID, time.Now(), outcome{err: tool.Errorf(tool.CodeInternal, "task %s arrived before init", env.ID)})
		return
	}
	if w.base.Err() != nil {
		// Leaving (SIGTERM): the task goes back to the front unrun.
		if err := w.enc.Encode(wire.TaskResult{ID: env.ID, Status: wire.StatusNotRun}); err != nil {
			w.log.Warn("handing back a task", "task", env.ID, "err", err)
		}
		return
	}
	t, ok := w.lookup(env.Tool)
	if !ok {
		w.send(env.ID, time.Now(), outcome{err: tool.Errorf(tool.CodeUnknownTool, "tool %q is not loaded in %s (tool bag holds %d tools)", env.Tool, w.id, w.reg.Len())})
		return
	}
	if t.Quick && len(env.Args) <= quickArgs {
		w.runQuick(env, t)
		return
	}
	w.tasks.Add(1)
	w.inFlight.Add(1)
	taskRunners.Go(func() {
		defer w.tasks.Done()
		defer w.inFlight.Add(-1)
		w.run(env, t)
	})
}

// quickArgs bounds the arguments of a quick tool's call that is run on the
// reader's goroutine: its work is linear in them, so this bounds how long
// the tasks behind it wait (a 64 KiB hash_text takes about 0.1 ms).
const quickArgs = 64 << 10

// runQuick runs a call of a quick tool (tool.Def.Quick) on the goroutine
// that reads tasks. Such a tool neither blocks nor waits, so it needs no
// goroutine of its own and no timers: the hand-off and the two timers cost
// more than the call itself.
func (w *worker) runQuick(env *wire.Envelope, t *tool.Tool) {
	began := time.Now()
	ectx, err := env.ExecContext()
	if err != nil {
		w.send(env.ID, began, outcome{err: tool.Errorf(tool.CodeInvalidArgs, "task context: %v", err)})
		return
	}
	w.send(env.ID, began, w.call(w.base, t, &tool.Call{Args: env.Args, Resources: w.res, Context: ectx, Log: logging.With(w.log, "tool", t.Name, "task", env.ID)}))
}

func (w *worker) run(env *wire.Envelope, t *tool.Tool) {
	began := time.Now()
	timeout := w.timeout
	if env.Timeout > 0 {
		timeout = time.Duration(env.Timeout) * time.Millisecond
	}
	ectx, err := env.ExecContext()
	if err != nil {
		w.send(env.ID, began, outcome{err: tool.Errorf(tool.CodeInvalidArgs, "task context: %v", err)})
		return
	}
	ctx, cancel := context.WithTimeout(w.base, timeout)
	defer cancel()
	if env.Roots != nil {
		ctx = tool.WithRoots(ctx, env.Roots)
	}
	// Exactly one answer per task: the tool's, or the timeout's. The tool
	// runs on this goroutine; a timer answers for it if it overruns, and if
	// it has still not returned a grace period later the Igor asks to be
	// replaced.
	var answered atomic.Bool
	w.track(env.ID, &runningTask{tool: t.Name, answered: &answered, began: began, cancel: cancel})
	defer w.untrack(env.ID)
	finished := make(chan struct{})
	defer close(finished)
	overrun := time.AfterFunc(timeout, func() {
		if !answered.CompareAndSwap(false, true) {
			return
		}
		if errors.Is(w.base.Err(), context.Canceled) {
			w.send(env.ID, began, outcome{err: tool.Errorf(tool.CodeCancelled, "%s cancelled: the Igor is shutting down", t.Name)})
			return
		}
		w.sendTimeout(env.ID, began, fmt.Sprintf("%s did not finish within its %s timeout", t.Name, timeout))
		select {
		case <-finished:
		case <-time.After(w.stopGrace):
			w.requestRestart(fmt.Sprintf("tool %s (task %s) did not stop within %s of its timeout", t.Name, env.ID, w.stopGrace))
		}
	})
	defer overrun.Stop()
	o := w.call(ctx, t, &tool.Call{Args: env.Args, Resources: w.res, Context: ectx, Log: logging.With(w.log, "tool", t.Name, "task", env.ID)})
	if ectx != nil {
		o.shared = ectx.Updates
	}
	o.browser = t.Category == tool.CategoryBrowser
	if !answered.CompareAndSwap(false, true) {
		return
	}
	switch {
	case o.err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && w.base.Err() == nil:
		// The tool gave up at its deadline just before the timer answered.
		w.sendTimeout(env.ID, began, fmt.Sprintf("%s did not finish within its %s timeout", t.Name, timeout))
	case o.err != nil && w.base.Err() != nil:
		w.send(env.ID, began, outcome{err: tool.Errorf(tool.CodeCancelled, "%s cancelled: the Igor is shutting down", t.Name)})
	default:
		w.send(env.ID, began, o)
	}
}

// call runs the tool, turning a panic into a TOOL_PANIC error.
func (w *worker) call(ctx context.Context, t *tool.Tool, c *tool.Call) (o outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = outcome{err: &tool.Error{Code: tool.CodeToolPanic, Message: fmt.Sprintf("%s panicked: %v", t.Name, r), Stack: string(debug.Stack())}}
		}
	}()
	v, err := t.Run(ctx, c)
	return outcome{value: v, err: err}
}

// lookup finds a built-in tool of the bag, or a dynamic tool.
func (w *worker) lookup(name string) (*tool.Tool, bool) {
	if t, ok := w.reg.Get(name); ok {
		return t, true
	}
	if mod, ok := w.dyn.get(name); ok && tool.MatchAny(w.bag, name) {
		return dynamicTool(name, mod), true
	}
	return nil, false
}

func (w *worker) track(id string, r *runningTask) {
	w.runMu.Lock()
	if w.running == nil {
		w.running = map[string]*runningTask{}
	}
	w.running[id] = r
	w.runMu.Unlock()
}

// cancelTask cancels the running task id, if it still runs; its caller
// has stopped waiting for it.
func (w *worker) cancelTask(id string) {
	w.runMu.Lock()
	r := w.running[id]
	w.runMu.Unlock()
	if r != nil && r.cancel != nil {
		r.cancel()
	}
}

func (w *worker) untrack(id string) {
	w.runMu.Lock()
	delete(w.running, id)
	w.runMu.Unlock()
}

// runningIDs lists the ids of the tasks running now.
func (w *worker) runningIDs() []string {
	w.runMu.Lock()
	defer w.runMu.Unlock()
	return slices.Sorted(maps.Keys(w.running))
}

// runningNames lists the tools running now, for error messages.
func (w *worker) runningNames() string {
	w.runMu.Lock()
	defer w.runMu.Unlock()
	var names []string
	for _, r := range w.running {
		names = append(names, r.tool)
	}
	if len(names) == 0 {
		return "no tool"
	}
	slices.Sort(names)
	return strings.Join(slices.Compact(names), ", ")
}

// failAll answers every running task with err.
func (w *worker) failAll(err *tool.Error) {
	w.runMu.Lock()
	defer w.runMu.Unlock()
	for id, r := range w.running {
		if r.answered.CompareAndSwap(false, true) {
			w.send(id, r.began, outcome{err: err})
		}
	}
}

// send answers a task. The result is encoded within the result limits
// (tools.maxResultBytes cuts it, tools.maxResultHardBytes refuses it), the
// squad values it set count against the hard bound too, and an error's text
// is cut like a result, so no answer is ever larger than the front accepts.
func (w *worker) send(id string, began time.Time, o outcome) {
	r := wire.TaskResult{ID: id, Status: wire.StatusSuccess, Duration: ms(time.Since(began))}
	if o.err == nil {
		b, err := w.limits.Encode(o.value)
		switch {
		case err != nil:
			o.err = err
		case w.limits.Hard > 0 && int64(len(b))+sharedSize(o.shared) > w.limits.Hard:
			o.err = w.limits.TooLarge("the result and the squad values it set (ctx.squad.set) together", int64(len(b))+sharedSize(o.shared))
		default:
			r.Result, r.Shared = b, o.shared
		}
	}
	if o.err != nil {
		r.Status, r.Result, r.Shared, r.Error = wire.StatusError, nil, nil, w.limits.BoundError(tool.AsError(o.err))
	}
	if o.browser {
		// worker_status shows the tabs as this call left them, without
		// waiting for the next pong.
		w.usageMu.Lock()
		defer w.usageMu.Unlock()
		if n := w.browserPages(); n != w.reportedPages {
			u := w.usage()
			r.Resources, w.reportedPages = &u, u.BrowserPages
		}
	}
	err := w.enc.Encode(r)
	if errors.Is(err, wire.ErrTooLong) {
		// Only without result limits (an Igor run by hand) or at the very
		// top of tools.maxResultHardBytes: still answer, or the call would
		// wait for its timeout.
		w.log.Warn("the answer is over the wire's limit; answering RESULT_TOO_LARGE", "task", id, "err", err)
		r = wire.TaskResult{ID: id, Status: wire.StatusError, Duration: r.Duration,
			Error: tool.Errorf(tool.CodeResultTooLarge, "the answer is over the %d-byte limit of the Igor's wire, so it was not sent (%v). Ask for less: narrow the call, or have the tool write the whole to a file and read that in parts.", wire.MaxLine, err)}
		err = w.enc.Encode(r)
	}
	if err != nil {
		w.log.Error("sending result", "task", id, "err", err)
	}
}

// sharedSize is the size of the squad values a task set, in JSON.
func sharedSize(shared map[string]json.RawMessage) int64 {
	var n int64
	for k, v := range shared {
		n += int64(len(k) + len(v) + 6) // quotes, colon, comma
	}
	return n
}

func (w *worker) sendTimeout(id string, began time.Time, msg string) {
	r := wire.TaskResult{ID: id, Status: wire.StatusTimeout, Error: &tool.Error{Code: tool.CodeTimeout, Message: msg}, Duration: ms(time.Since(began))}
	if err := w.enc.Encode(r); err != nil {
		w.log.Error("sending timeout", "task", id, "err", err)
	}
}

func (w *worker) requestRestart(reason string) {
	w.restart.Do(func() {
		w.log.Warn("requesting restart", "reason", reason)
		if err := w.enc.Encode(wire.RequestRestart{Type: wire.TypeRequestRestart, Reason: reason}); err != nil {
			w.log.Error("sending request_restart", "err", err)
		}
	})
}

func (w *worker) pong() {
	n := w.inFlight.Load()
	status := "idle"
	if n > 0 {
		status = "busy"
	}
	w.usageMu.Lock()
	defer w.usageMu.Unlock()
	u := w.usage()
	w.reportedPages = u.BrowserPages
	_ = w.enc.Encode(wire.Pong{Type: wire.TypePong, Status: status, ResourceUsage: u})
}

// browserPages is how many tabs the Igor's browser has open (0 without
// one).
func (w *worker) browserPages() int {
	if b, ok := browser.Lookup(w.res); ok {
		return b.PageCount()
	}
	return 0
}

func (w *worker) usage() wire.ResourceUsage {
	pages, browserMem := w.browserPages(), int64(0)
	if pages > 0 {
		for _, p := range proc.Descendants(os.Getpid()) {
			browserMem += proc.PSS(p.PID)
		}
	}
	return wire.ResourceUsage{
		Memory:        proc.RSS(os.Getpid()),
		BrowserPages:  pages,
		BrowserMemory: browserMem,
		DBConnections: w.res.Count(tool.KindPostgres) + w.res.Count(tool.KindSQLite) + w.res.Count(tool.KindRedis),
		Watchers:      w.res.Count(tool.KindWatch),
		// The client the environment's token makes is not one to keep.
		GitHubConnections: w.res.Count(tool.KindGitHub) - githubtools.DefaultConnections(w.res),
		TasksInFlight:     int(w.inFlight.Load()),
		Goroutines:        runtime.NumGoroutine(),
	}
}

// shutdown cancels running tasks, waits for them (briefly, if graceful),
// and closes every resource. It returns the kinds cleaned up.
func (w *worker) shutdown(graceful bool) []string {
	w.cancel()
	if graceful {
		done := make(chan struct{})
		go func() { w.tasks.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(shutdownWait):
			w.log.Warn("tasks still running at shutdown", "count", w.inFlight.Load())
		}
	}
	kinds, err := w.res.CloseAll()
	if err != nil {
		w.log.Warn("cleaning up resources", "err", err)
	}
	if kinds == nil {
		kinds = []string{}
	}
	return kinds
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
