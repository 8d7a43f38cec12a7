// Package jsrt runs dynamic tools: agent-written TypeScript that the front has
// compiled (esbuild) into CommonJS JavaScript with an inline source map. An
// Igor loads each tool once with [Load] and runs it with [Module.Call].
//
// # Sandbox
//
// Tool code runs in goja runtimes that expose only the ECMAScript built-ins,
// console, setTimeout/setInterval (and their clear functions) and
// queueMicrotask. There is no require, process, Bun, Deno, global fetch,
// XMLHttpRequest or WebSocket; eval is deleted and the Function constructor
// (also reachable as fn.constructor, for plain, async and generator functions)
// is replaced by a stub that throws an EvalError, so code cannot be generated
// from strings. The handler's second argument, ctx, carries ctx.log, and
// ctx.fetch and ctx.fs, which work only when the tool declared the "network"
// or "filesystem" permission and otherwise throw an error saying which
// permission to declare.
//
// # Runtimes, pooling and tampering
//
// Load compiles the code once into a goja.Program. Each runtime evaluates that
// program once (top level bounded to 2 s), then locks itself down: every
// intrinsic reachable from the global object (constructors, their prototypes,
// iterator, generator and async function prototypes, Math, JSON, Reflect,
// console, ...) is deeply frozen, and so is the global object itself. Runtimes
// are then kept and reused by later calls, so a call that tampers with a
// built-in (Object.prototype.polluted = 1, Array.prototype.push = ...) gets a
// TypeError (the module is strict code) and the next call sees the pristine
// built-in. To keep ordinary code working despite the frozen prototypes (the
// "override mistake"), the data properties of Object.prototype,
// Function.prototype.toString, and name, message and toString of the error
// prototypes are turned into accessors whose setter defines an own property on
// the receiver, so `this.name = "MyError"` in an Error subclass or
// `obj.toString = f` still work. Finding every intrinsic by walking the graph
// is slow in goja, so the walk is done once per process in a reference
// runtime and turned into a compiled program that fetches each intrinsic by
// its path; a new runtime costs about 2 ms and 1 MB of allocation, and keeps
// about 0.5 MB. Objects the tool itself attaches to built-ins or to the global
// object at top level are not frozen (the properties holding them are). The
// only state that survives between calls is the tool's own module scope
// (top-level variables), and that is per runtime: tools must not rely on it
// beyond caching.
//
// # Timeouts
//
// Each call runs on the caller's goroutine with its own small event loop
// (timers and ctx.fetch completions are queued as Go callbacks and run on that
// goroutine). When the call's context is done, the runtime is interrupted
// (vm.Interrupt) and the loop stops waiting, so synchronous loops, microtask
// loops, timer chains and promises that never settle all end with
// CodeTimeout (deadline) or CodeCancelled. A runtime that was interrupted, that
// saw its context end, or that panicked is never reused. When the handler
// settles, timers it left pending are cancelled and fetches still in flight
// are aborted; timers scheduled by top-level code never fire.
//
// One thing vm.Interrupt cannot stop: a regular expression that goja hands
// to its backtracking engine (regexp2: backreferences, lookarounds) and that
// backtracks catastrophically runs inside one Go call and blocks the call past
// its deadline. regexp2.DefaultMatchTimeout, set by the process, bounds it.
package jsrt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/rawjson"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/dop251/goja"
)

// Permission names a tool may declare in its permissions list.
const (
	PermNetwork    = "network"
	PermFilesystem = "filesystem"
	PermBrowser    = "browser"
	PermAI         = "ai"
)

// validPermissions lists the permission names in the order error messages
// show them.
var validPermissions = []string{PermNetwork, PermFilesystem, PermBrowser, PermAI}

// Defaults for Options fields left zero.
const (
	DefaultFetchTimeout  = 10 * time.Second
	DefaultFetchMaxBytes = 10 << 20
	// LoadTimeout bounds the evaluation of a tool's top-level code in each
	// new runtime.
	LoadTimeout = 2 * time.Second
	// maxCallStackSize bounds JS recursion depth; deeper recursion fails with
	// "maximum call stack size exceeded".
	maxCallStackSize = 10000
)

// Permissions a tool declares: "network", "filesystem", "browser", "ai".
// Network enables ctx.fetch, Filesystem ctx.fs and Browser ctx.browser; AI
// is recorded for the front (no ctx API here uses it yet).
type Permissions struct{ Network, Filesystem, Browser, AI bool }

// ParsePermissions turns a declared permission list into Permissions. An
// unknown name is an error naming it and the valid ones; duplicates are
// allowed.
func ParsePermissions(list []string) (Permissions, error) {
	var p Permissions
	for _, name := range list {
		switch name {
		case PermNetwork:
			p.Network = true
		case PermFilesystem:
			p.Filesystem = true
		case PermBrowser:
			p.Browser = true
		case PermAI:
			p.AI = true
		default:
			return Permissions{}, fmt.Errorf("unknown permission %q: valid permissions are %s", name, strings.Join(quoteAll(validPermissions), ", "))
		}
	}
	return p, nil
}

// List returns the declared permissions as names, in a fixed order.
func (p Permissions) List() []string {
	var out []string
	for _, x := range []struct {
		on   bool
		name string
	}{{p.Network, PermNetwork}, {p.Filesystem, PermFilesystem}, {p.Browser, PermBrowser}, {p.AI, PermAI}} {
		if x.on {
			out = append(out, x.name)
		}
	}
	return out
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = fmt.Sprintf("%q", v)
	}
	return out
}

// Options configure how a Module's calls reach the outside world.
type Options struct {
	// OwnAddrs are the listen addresses (host:port) of the server running
	// the tool, its MCP endpoint and admin API: ctx.fetch refuses to
	// connect to them (ownaddr.go).
	OwnAddrs []string
	// Results bounds a handler's result. A string result is measured
	// before it leaves JavaScript: one over the hard bound fails with
	// RESULT_TOO_LARGE and one over the cut is cut, so that a huge string
	// is never copied out of the runtime.
	Results tool.ResultLimits
	// FSRoot is the directory ctx.fs is confined to (through os.Root). If it
	// is "", a tool declaring "filesystem" loads, but every ctx.fs method
	// throws an error saying that no filesystem root is configured.
	FSRoot string
	// FetchTimeout is ctx.fetch's default per-request timeout (default 10s);
	// a request's own timeout option overrides it. The call's context bounds
	// every request too.
	FetchTimeout time.Duration
	// FetchMaxBytes caps a ctx.fetch response body (default 10 MiB); a larger
	// body rejects the fetch with an error saying so.
	FetchMaxBytes int64
	// Log receives console.log/info/warn/error/debug and ctx.log output,
	// tagged with the tool name (never stdout). Nil discards it.
	Log *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.FetchTimeout <= 0 {
		o.FetchTimeout = DefaultFetchTimeout
	}
	if o.FetchMaxBytes <= 0 {
		o.FetchMaxBytes = DefaultFetchMaxBytes
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

// Meta is what a tool declares about itself.
type Meta struct {
	// Name matches ^[a-z][a-z0-9_]*$.
	Name string
	// Description is non-empty.
	Description string
	// Schema is the tool's input JSON Schema, an object whose type is
	// "object" ({"type":"object"} when the tool gave none).
	Schema json.RawMessage
	// Permissions are the declared permissions, normalised (see
	// Permissions.List).
	Permissions []string
	// Timeout is the tool's own timeout (tool.timeout, in milliseconds);
	// 0 means the server's default.
	Timeout time.Duration
	// Phrases are the words people use when they want the tool
	// (tool.phrases), indexed by tool_search as a built-in tool's are.
	Phrases []string
}

// MaxPhrases and MaxPhraseLen bound what tool.phrases may hold.
const (
	MaxPhrases   = 32
	MaxPhraseLen = 100
)

// checkPhrases trims a tool's declared phrases and drops the empty and
// repeated ones; it says what is wrong when there are too many or one is
// too long.
func checkPhrases(list []string) ([]string, string) {
	var out []string
	for i, p := range list {
		p = strings.Join(strings.Fields(p), " ")
		switch {
		case p == "" || slices.Contains(out, p):
			continue
		case len(p) > MaxPhraseLen:
			return nil, fmt.Sprintf("tool.phrases[%d] is %d characters; a phrase is a few words of at most %d (say it shorter, or split it)", i, len(p), MaxPhraseLen)
		}
		out = append(out, p)
	}
	if len(out) > MaxPhrases {
		return nil, fmt.Sprintf("tool.phrases holds %d phrases; at most %d are indexed (keep the ones people really say)", len(out), MaxPhrases)
	}
	return out, ""
}

// MaxTimeout bounds what a tool may declare as its timeout.
const MaxTimeout = 10 * time.Minute

// Module is one compiled and validated tool. It is safe for concurrent Calls:
// each call borrows a runtime of its own from a pool.
type Module struct {
	file  string
	prog  *goja.Program
	opts  Options
	meta  Meta
	perms Permissions
	log   *slog.Logger

	// fsRoot is ctx.fs's root (nil if the permission is not declared or no
	// root could be opened; fsErr then says why).
	fsRoot    *os.Root
	fsRootAbs string
	fsErr     string

	idle idleRuntimes

	own ownAddrs // addresses ctx.fetch refuses (Options.OwnAddrs)
}

var toolNameRe = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// wrapperPrefix opens the CommonJS wrapper; it shares the first line with
// the tool's code, so syntax errors on line 1 are shifted back by its length.
const wrapperPrefix = "(function(exports, module){"

var firstLineCol = regexp.MustCompile(`Line 1:\d+`)

// Load compiles js (esbuild's CommonJS output for file, with an inline source
// map), evaluates its top level once in a fresh runtime (bounded by
// LoadTimeout) and validates the exported `tool`: it must exist, its name must
// match ^[a-z][a-z0-9_]*$, its description must be a non-empty string, its
// schema (if present) an object with type "object", its handler a function,
// and its permissions (if present) known names. Errors are *tool.Error
// (CodeInvalidArgs for faulty code, CodeTimeout for top-level code that does
// not finish) naming file and, where goja reports one, line and column.
func Load(file, js string, opts Options) (*Module, error) {
	opts = opts.withDefaults()
	wrapped := wrapperPrefix + js + "\n})"
	prog, err := goja.Compile(file, wrapped, true)
	if err != nil {
		msg := firstLineCol.ReplaceAllStringFunc(stripPC(err.Error()), func(s string) string {
			var col int
			fmt.Sscanf(s, "Line 1:%d", &col)
			return fmt.Sprintf("Line 1:%d", max(col-len(wrapperPrefix), 1))
		})
		return nil, &tool.Error{Code: tool.CodeInvalidArgs, Message: fmt.Sprintf("%s: does not compile: %s", file, msg)}
	}
	own, err := parseOwnAddrs(opts.OwnAddrs)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInternal, "%s: %v", file, err)
	}
	m := &Module{file: file, prog: prog, opts: opts, own: own}
	m.log = opts.Log.With("file", file)

	rt, err := m.newRuntime(context.Background(), true)
	if err != nil {
		return nil, err
	}
	m.log = opts.Log.With("tool", m.meta.Name)
	rt.log = m.log
	if m.perms.Filesystem {
		m.openFSRoot()
	}
	m.idle.put(rt)
	return m, nil
}

// maxIdleRuntimes bounds the runtimes a module keeps for reuse between
// calls; more calls at once each make one, and drop it after.
const maxIdleRuntimes = 8

// idleRuntimes are a module's runtimes between calls. Not a sync.Pool: a
// pool in use is held by the Go runtime itself until the second garbage
// collection after, and with it the module and its runtimes (about 0.5 MB
// each), so a process replacing dynamic tools often keeps every module of
// the last two cycles, which raises the heap goal, which lengthens the
// cycles: an Igor under create/delete churn grew by 3 GB an hour. A
// dropped module's idle runtimes go with it at the next collection.
type idleRuntimes struct {
	mu   sync.Mutex
	list []*jsRuntime
}

// get takes an idle runtime, or returns nil.
func (ir *idleRuntimes) get() *jsRuntime {
	ir.mu.Lock()
	defer ir.mu.Unlock()
	n := len(ir.list)
	if n == 0 {
		return nil
	}
	rt := ir.list[n-1]
	ir.list[n-1] = nil
	ir.list = ir.list[:n-1]
	return rt
}

// put keeps rt for a later call, unless maxIdleRuntimes are kept already.
func (ir *idleRuntimes) put(rt *jsRuntime) {
	ir.mu.Lock()
	defer ir.mu.Unlock()
	if len(ir.list) < maxIdleRuntimes {
		ir.list = append(ir.list, rt)
	}
}

func (m *Module) openFSRoot() {
	if m.opts.FSRoot == "" {
		m.fsErr = "filesystem permission declared, but no filesystem root is configured for dynamic tools"
		return
	}
	abs, err := filepath.Abs(m.opts.FSRoot)
	if err == nil {
		m.fsRoot, err = os.OpenRoot(abs)
	}
	if err != nil {
		m.fsErr = fmt.Sprintf("filesystem root for dynamic tools is unusable: %v", err)
		return
	}
	m.fsRootAbs = abs
}

// Close releases the filesystem root, if the tool had one. Calls after Close
// fail their ctx.fs operations. Close is optional: an unreachable Module's
// resources are reclaimed by the garbage collector.
func (m *Module) Close() error {
	if m.fsRoot != nil {
		return m.fsRoot.Close()
	}
	return nil
}

// Meta returns what the tool declared about itself.
func (m *Module) Meta() Meta {
	meta := m.meta
	meta.Schema = slices.Clone(m.meta.Schema)
	meta.Permissions = slices.Clone(m.meta.Permissions)
	meta.Phrases = slices.Clone(m.meta.Phrases)
	return meta
}

// Permissions returns the tool's declared permissions.
func (m *Module) Permissions() Permissions { return m.perms }

// Call runs the tool's handler with args (a JSON object; empty or null means
// {}) and returns its result as JSON (undefined becomes null). The handler
// may return a value or a Promise. Errors are *tool.Error: CodeInvalidArgs
// for args that are not a JSON object, CodeToolError for a thrown error or
// rejection (the message carries the JS message and the stack mapped to the
// .ts source), CodeForbidden when the failure is a permission violation
// (ctx.fetch/ctx.fs without the permission, a non-http(s) URL, a path outside
// the filesystem root), CodeTimeout when ctx's deadline passed, CodeCancelled
// when ctx was cancelled, CodeInternal for a fault in the runtime.
func (m *Module) Call(ctx context.Context, args json.RawMessage) (result json.RawMessage, err error) {
	return m.CallIn(ctx, args, nil)
}

// CallIn is Call for a task of a squad: ctx.squad shows the squad's id
// and shared values (ec.SharedVars), and ctx.squad.set(key, value) shares
// a value back, recorded in ec.Updates.
func (m *Module) CallIn(ctx context.Context, args json.RawMessage, ec *tool.ExecContext) (result json.RawMessage, err error) {
	if err := ctx.Err(); err != nil {
		return nil, m.ctxError(ctx)
	}
	argStr, aerr := normalizeArgs(args)
	if aerr != nil {
		return nil, aerr
	}
	rt := m.idle.get()
	if rt == nil {
		rt, err = m.newRuntime(ctx, false)
		if err != nil {
			return nil, err
		}
	}

	cs := newCallState(ctx)
	cs.squad = ec
	rt.cur = cs
	stop := context.AfterFunc(ctx, func() { rt.vm.Interrupt(errInterrupted) })
	healthy := false
	defer func() {
		x := recover()
		cs.close()
		rt.cur = nil
		fired := !stop()
		if x != nil {
			result, err = nil, m.panicError(ctx, x)
			return
		}
		// A runtime whose context ended may hold a pending interrupt, or
		// have been interrupted mid-way: never reuse it.
		if healthy && !fired && ctx.Err() == nil {
			m.idle.put(rt)
		}
	}()
	result, healthy, err = rt.call(cs, argStr)
	return result, err
}

var errInterrupted = errors.New("dynamic tool interrupted: context done")

// normalizeArgs checks that args is a JSON object and returns it as a
// string for JSON.parse.
func normalizeArgs(args json.RawMessage) (string, error) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return "{}", nil
	}
	if trimmed[0] != '{' {
		return "", tool.Errorf(tool.CodeInvalidArgs, "arguments must be a JSON object, got %s", rawjson.Kind(trimmed))
	}
	return string(trimmed), nil
}

// ctxError is the error for a call whose context ended.
func (m *Module) ctxError(ctx context.Context) *tool.Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return tool.Errorf(tool.CodeTimeout, "dynamic tool %s timed out", m.meta.Name)
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return tool.Errorf(tool.CodeCancelled, "dynamic tool %s cancelled: %v", m.meta.Name, cause)
	}
	return tool.Errorf(tool.CodeCancelled, "dynamic tool %s cancelled", m.meta.Name)
}

// panicError turns a recovered panic into an error: an interrupt that escaped
// goja's own handling is the context ending; anything else is our fault.
func (m *Module) panicError(ctx context.Context, x any) *tool.Error {
	if ctx.Err() != nil {
		return m.ctxError(ctx)
	}
	if e, ok := x.(error); ok {
		var so *goja.StackOverflowError
		if errors.As(e, &so) {
			return tool.Errorf(tool.CodeToolError, "RangeError: maximum call stack size exceeded")
		}
	}
	m.log.Error("dynamic tool runtime panicked", "panic", fmt.Sprint(x))
	return tool.Errorf(tool.CodeInternal, "dynamic tool %s: runtime panicked: %v", m.meta.Name, x)
}

// pcSuffix matches goja's program-counter suffix in stack frames:
// "mytool.ts:14:12(10)".
var pcSuffix = regexp.MustCompile(`(:\d+:\d+)\(\d+\)`)

// goNativeFrame matches a stack frame of one of our Go functions, e.g.
// "\tat github.com/barrhawk/....func8 (native)\n".
var goNativeFrame = regexp.MustCompile(`(?m)^\tat \S*/\S* \(native\)(?:\n|$)`)

// stripPC cleans a goja stack for users: it drops goja's program counters
// and the frames of our own Go functions.
func stripPC(s string) string {
	s = goNativeFrame.ReplaceAllString(s, "")
	return pcSuffix.ReplaceAllString(s, "$1")
}
