package jsrt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf16"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/dop251/goja"
)

// jsRuntime is one goja runtime with the tool evaluated in it. It is used by
// one goroutine at a time.
type jsRuntime struct {
	m   *Module
	vm  *goja.Runtime
	log *slog.Logger

	toolObj goja.Value
	handler goja.Callable

	// Built-ins captured before the tool's code ran.
	jsonParse     goja.Callable
	jsonStringify goja.Callable
	errorCtor     goja.Value

	// The ctx members shared by every call on this runtime (frozen).
	logFn, fetchFn, fsObj goja.Value
	browserObj            goja.Value

	cur      *callState
	timerSeq int64
}

// setupSrc runs before the tool's code. It removes code generation from
// strings, collects the pristine intrinsics (with the collect function made by
// lockdownPlan) and returns the lockdown function, run after the tool's top
// level: it turns a few prototype data properties into accessors (see the
// package documentation), then freezes every collected intrinsic and the
// global object. It captures every primitive it uses up front, so top-level
// tool code cannot subvert it.
const setupSrc = `(function (g, extras, collect) {
	'use strict';
	const O = Object, R = Reflect;
	const freeze = O.freeze, gopd = O.getOwnPropertyDescriptor, defProp = O.defineProperty,
		getProto = O.getPrototypeOf, ownKeys = R.ownKeys, apply = R.apply,
		hasOwn = O.prototype.hasOwnProperty, create = O.create;
	const TypeErrorCtor = TypeError, EvalErrorCtor = EvalError, StringFn = String, SymbolCtor = Symbol;
	const ObjectPrototype = O.prototype;

	const FunctionPrototype = getProto(function () {});
	const AsyncFunctionPrototype = getProto(async function () {});
	const GeneratorFunctionPrototype = getProto(function* () {});
	const stub = function Function() {
		throw new EvalErrorCtor('code generation from strings is disabled in dynamic tools (the Function constructor is not available)');
	};
	defProp(stub, 'prototype', { __proto__: null, value: FunctionPrototype, writable: false });
	const fnProtos = [FunctionPrototype, AsyncFunctionPrototype, GeneratorFunctionPrototype];
	for (let i = 0; i < fnProtos.length; i++) {
		defProp(fnProtos[i], 'constructor', { __proto__: null, value: stub, writable: false, enumerable: false, configurable: false });
	}
	defProp(g, 'Function', { __proto__: null, value: stub, writable: true, enumerable: false, configurable: true });
	delete g.eval;
	delete g.GoError;

	const errorProtos = [Error.prototype, TypeError.prototype, RangeError.prototype, SyntaxError.prototype,
		ReferenceError.prototype, EvalError.prototype, URIError.prototype];
	if (typeof AggregateError === 'function') errorProtos[errorProtos.length] = AggregateError.prototype;

	// The roots of the intrinsics graph, in an order that is the same in
	// every runtime: the global object's property values, the intrinsics not
	// reachable from it, and the ctx members.
	const roots = [];
	const gkeys = ownKeys(g);
	for (let i = 0; i < gkeys.length; i++) {
		const d = gopd(g, gkeys[i]);
		if (apply(hasOwn, d, ['value'])) roots[roots.length] = d.value;
		else { roots[roots.length] = d.get; roots[roots.length] = d.set; }
	}
	const more = [FunctionPrototype, AsyncFunctionPrototype, GeneratorFunctionPrototype, stub,
		(function* () {})(), [][Symbol.iterator](), new Map()[Symbol.iterator](), new Set()[Symbol.iterator](),
		''[Symbol.iterator](), 'a'.matchAll(/a/g)];
	for (let i = 0; i < more.length; i++) roots[roots.length] = more[i];
	for (let i = 0; i < extras.length; i++) roots[roots.length] = extras[i];

	const objs = collect(roots, gopd, getProto, SymbolCtor, create, g);
	let nobjs = objs.length;

	// enable makes a writable data property of a frozen prototype an accessor
	// whose setter defines an own property on the receiver, so assignments
	// that would hit the frozen property still work on derived objects.
	const enable = (obj, key) => {
		const d = gopd(obj, key);
		if (d === undefined || !apply(hasOwn, d, ['value']) || !d.writable || !d.configurable) return;
		const value = d.value;
		const acc = {
			get() { return value; },
			set(v) {
				if (this === obj) {
					throw new TypeErrorCtor("Cannot assign to read only property '" + StringFn(key) + "' of a frozen built-in");
				}
				defProp(this, key, { __proto__: null, value: v, writable: true, enumerable: true, configurable: true });
			},
		};
		objs[nobjs++] = acc.get;
		objs[nobjs++] = acc.set;
		defProp(obj, key, { __proto__: null, get: acc.get, set: acc.set, enumerable: d.enumerable, configurable: false });
	};

	return function lockdown() {
		const okeys = ownKeys(ObjectPrototype);
		for (let i = 0; i < okeys.length; i++) enable(ObjectPrototype, okeys[i]);
		enable(FunctionPrototype, 'toString');
		for (let i = 0; i < errorProtos.length; i++) {
			enable(errorProtos[i], 'name');
			enable(errorProtos[i], 'message');
			enable(errorProtos[i], 'toString');
		}
		for (let i = 0; i < nobjs; i++) {
			const v = objs[i];
			if (v !== null && (typeof v === 'object' || typeof v === 'function')) freeze(v);
		}
		freeze(g);
	};
})`

// setupProg is compiled on first use, not at init: every process of the
// binary (the front included) would otherwise pay for it at start.
var setupProg = sync.OnceValue(func() *goja.Program {
	return goja.MustCompile("barrhawk-setup.js", setupSrc, true)
})

// discoverSrc walks the intrinsics graph from the roots (breadth first,
// skipping the global object) and reports, through emit, how each object was
// first reached: from a root, as a prototype, or through an own property
// (value, getter or setter). It runs once per process, in a reference
// runtime; lockdownPlan turns its steps into the collect program.
const discoverSrc = `(function (emit) {
	'use strict';
	return function (roots, gopd, getProto, S, create, g) {
		const seen = new Set([g]);
		const steps = [];
		const objs = [];
		let unpathed = 0;
		const visit = (v, step) => {
			if (v !== null && (typeof v === 'object' || typeof v === 'function') && !seen.has(v)) {
				seen.add(v);
				steps.push(step);
				objs.push(v);
			}
		};
		for (let i = 0; i < roots.length; i++) visit(roots[i], ['r', i]);
		for (let i = 0; i < objs.length; i++) {
			const o = objs[i];
			visit(getProto(o), ['p', i]);
			for (const k of Reflect.ownKeys(o)) {
				let key = k;
				if (typeof k === 'symbol') {
					const name = k.description && k.description.startsWith('Symbol.') ? k.description.slice(7) : '';
					if (name === '' || S[name] !== k) { unpathed++; continue; }
					key = { sym: name };
				}
				const d = gopd(o, k);
				if ('value' in d) visit(d.value, ['d', i, key]);
				else { visit(d.get, ['g', i, key]); visit(d.set, ['s', i, key]); }
			}
		}
		emit(JSON.stringify({ steps, unpathed }));
		return objs;
	};
})`

// lockdownPlan is the collect program: straight-line code that fetches every
// intrinsic object of a fresh runtime by the path discovery found, so each
// runtime collects them in well under a millisecond instead of walking the
// graph.
var lockdownPlan = sync.OnceValues(func() (*goja.Program, error) {
	vm := goja.New()
	rt := &jsRuntime{m: &Module{}, vm: vm}
	rt.installGlobals()
	var report string
	discVal, err := vm.RunString(discoverSrc)
	if err != nil {
		return nil, err
	}
	disc, _ := goja.AssertFunction(discVal)
	collect, err := disc(goja.Undefined(), vm.ToValue(func(s string) { report = s }))
	if err != nil {
		return nil, err
	}
	setupVal, err := vm.RunProgram(setupProg())
	if err != nil {
		return nil, err
	}
	setup, _ := goja.AssertFunction(setupVal)
	if _, err := setup(goja.Undefined(), vm.GlobalObject(), vm.NewArray(rt.logFn, rt.fetchFn, rt.fsObj), collect); err != nil {
		return nil, err
	}
	var plan struct {
		Steps    [][]json.RawMessage `json:"steps"`
		Unpathed int                 `json:"unpathed"`
	}
	if err := json.Unmarshal([]byte(report), &plan); err != nil {
		return nil, fmt.Errorf("lockdown plan: %w", err)
	}
	if plan.Unpathed > 0 {
		return nil, fmt.Errorf("lockdown plan: %d intrinsics are keyed by symbols that are not well-known", plan.Unpathed)
	}
	var b strings.Builder
	b.WriteString("(function (r, gopd, getProto, S, create, g) {\n'use strict';\n")
	b.WriteString("const G = (x, k) => (x === undefined || x === null) ? undefined : x[k];\n")
	b.WriteString("const A = (x, k, w) => { if (x === undefined || x === null) return undefined; const d = gopd(x, k); return d === undefined ? undefined : d[w]; };\n")
	b.WriteString("const P = (x) => (x === undefined || x === null) ? undefined : getProto(x);\n")
	b.WriteString("const o = create(null);\n")
	for i, st := range plan.Steps {
		var kind string
		var from int
		if len(st) < 2 || json.Unmarshal(st[0], &kind) != nil || json.Unmarshal(st[1], &from) != nil {
			return nil, fmt.Errorf("lockdown plan: bad step %d", i)
		}
		key := ""
		if len(st) == 3 {
			var sym struct{ Sym string }
			if json.Unmarshal(st[2], &sym) == nil && sym.Sym != "" {
				q, _ := json.Marshal(sym.Sym)
				key = "S[" + string(q) + "]"
			} else {
				key = string(st[2])
			}
		}
		switch kind {
		case "r":
			fmt.Fprintf(&b, "o[%d] = r[%d];\n", i, from)
		case "p":
			fmt.Fprintf(&b, "o[%d] = P(o[%d]);\n", i, from)
		case "d":
			fmt.Fprintf(&b, "o[%d] = G(o[%d], %s);\n", i, from, key)
		case "g", "s":
			w := "get"
			if kind == "s" {
				w = "set"
			}
			fmt.Fprintf(&b, "o[%d] = A(o[%d], %s, '%s');\n", i, from, key, w)
		default:
			return nil, fmt.Errorf("lockdown plan: bad step kind %q", kind)
		}
	}
	fmt.Fprintf(&b, "o.length = %d;\nreturn o;\n})", len(plan.Steps))
	return goja.Compile("barrhawk-lockdown.js", b.String(), true)
})

var errLoadTimeout = errors.New("top-level code did not finish in time")

// newRuntime makes a runtime with the tool evaluated and locked down. With
// first set it also validates the tool and records Meta and Permissions on m.
func (m *Module) newRuntime(ctx context.Context, first bool) (res *jsRuntime, err error) {
	vm := goja.New()
	vm.SetMaxCallStackSize(maxCallStackSize)
	rt := &jsRuntime{m: m, vm: vm, log: m.log}
	cs := newCallState(ctx)
	rt.cur = cs

	var loadTimedOut atomic.Bool
	timer := time.AfterFunc(LoadTimeout, func() {
		loadTimedOut.Store(true)
		vm.Interrupt(errLoadTimeout)
	})
	stop := context.AfterFunc(ctx, func() { vm.Interrupt(errInterrupted) })
	defer func() {
		// A watchdog that fired (or is firing) may have left the interrupt
		// flag set: such a runtime is not handed out.
		timerFired := !timer.Stop()
		ctxFired := !stop()
		cs.close()
		rt.cur = nil
		if x := recover(); x != nil {
			res, err = nil, m.panicError(ctx, x)
		}
		if res != nil && (timerFired || ctxFired) {
			res = nil
			if ctxFired {
				err = m.ctxError(ctx)
			} else {
				err = &tool.Error{Code: tool.CodeTimeout, Message: fmt.Sprintf("%s: top-level code did not finish within %s", m.file, LoadTimeout)}
			}
		}
	}()

	fail := func(code, format string, args ...any) (*jsRuntime, error) {
		return nil, &tool.Error{Code: code, Message: m.file + ": " + fmt.Sprintf(format, args...)}
	}
	// jsFail reports an error from running the tool's top level.
	jsFail := func(err error) (*jsRuntime, error) {
		var ie *goja.InterruptedError
		if errors.As(err, &ie) {
			if ctx.Err() != nil {
				return nil, m.ctxError(ctx)
			}
			if loadTimedOut.Load() {
				return fail(tool.CodeTimeout, "top-level code did not finish within %s (an endless loop?)", LoadTimeout)
			}
		}
		var so *goja.StackOverflowError
		if errors.As(err, &so) {
			return fail(tool.CodeInvalidArgs, "top-level code failed: RangeError: maximum call stack size exceeded")
		}
		var ex *goja.Exception
		if errors.As(err, &ex) {
			te := rt.thrown(cs, ex.Value())
			return nil, &tool.Error{Code: tool.CodeInvalidArgs, Message: m.file + ": top-level code failed: " + te.Message, Stack: te.Stack}
		}
		return fail(tool.CodeInternal, "evaluating top-level code: %v", err)
	}

	jsonObj := vm.Get("JSON").(*goja.Object)
	rt.jsonParse, _ = goja.AssertFunction(jsonObj.Get("parse"))
	rt.jsonStringify, _ = goja.AssertFunction(jsonObj.Get("stringify"))
	rt.errorCtor = vm.Get("Error")
	rt.installGlobals()

	// setupFail reports an error from our own setup code, which only the
	// context or the load timeout can interrupt.
	setupFail := func(err error) (*jsRuntime, error) {
		var ie *goja.InterruptedError
		if errors.As(err, &ie) {
			return jsFail(err)
		}
		return fail(tool.CodeInternal, "sandbox setup: %v", err)
	}
	collectProg, err := lockdownPlan()
	if err != nil {
		return setupFail(err)
	}
	collect, err := vm.RunProgram(collectProg)
	if err != nil {
		return setupFail(err)
	}
	setupVal, err := vm.RunProgram(setupProg())
	if err != nil {
		return setupFail(err)
	}
	setup, _ := goja.AssertFunction(setupVal)
	lockVal, err := setup(goja.Undefined(), vm.GlobalObject(), vm.NewArray(rt.logFn, rt.fetchFn, rt.fsObj), collect)
	if err != nil {
		return setupFail(err)
	}
	lockdown, _ := goja.AssertFunction(lockVal)

	wrapperVal, err := vm.RunProgram(m.prog)
	if err != nil {
		return jsFail(err)
	}
	wrapper, ok := goja.AssertFunction(wrapperVal)
	if !ok {
		return fail(tool.CodeInternal, "module wrapper is not a function")
	}
	exports := vm.NewObject()
	module := vm.NewObject()
	_ = module.Set("exports", exports)
	if _, err := wrapper(goja.Undefined(), exports, module); err != nil {
		return jsFail(err)
	}

	// Read and check the exported tool.
	var toolVal goja.Value
	if ex := vm.Try(func() {
		if o, ok := module.Get("exports").(*goja.Object); ok {
			toolVal = o.Get("tool")
		}
	}); ex != nil {
		return jsFail(ex)
	}
	toolObj, ok := toolVal.(*goja.Object)
	if !ok || toolVal == nil || goja.IsUndefined(toolVal) {
		return fail(tool.CodeInvalidArgs, "no export named `tool`: the file must `export const tool = { name, description, schema, handler }`")
	}
	rt.toolObj = toolObj
	if first {
		if err := m.validate(rt, toolObj); err != nil {
			return nil, err
		}
	}
	var handlerVal goja.Value
	if ex := vm.Try(func() { handlerVal = toolObj.Get("handler") }); ex != nil {
		return jsFail(ex)
	}
	rt.handler, ok = goja.AssertFunction(handlerVal)
	if !ok {
		return fail(tool.CodeInvalidArgs, "tool.handler is missing or not a function: give the tool an async handler(args, ctx)")
	}

	if _, err := lockdown(goja.Undefined()); err != nil {
		return jsFail(err)
	}
	return rt, nil
}

// validate checks the exported tool object and records its Meta.
func (m *Module) validate(rt *jsRuntime, toolObj *goja.Object) (err error) {
	vm := rt.vm
	fail := func(format string, args ...any) error {
		return &tool.Error{Code: tool.CodeInvalidArgs, Message: m.file + ": " + fmt.Sprintf(format, args...)}
	}
	if ex := vm.Try(func() {
		name := toolObj.Get("name")
		if !isString(name) {
			err = fail("tool.name is missing or not a string: it must match ^[a-z][a-z0-9_]*$")
			return
		}
		if !toolNameRe.MatchString(name.String()) {
			err = fail("tool.name %q is invalid: it must match ^[a-z][a-z0-9_]*$ (lowercase letters, digits, underscores)", name.String())
			return
		}
		m.meta.Name = name.String()

		desc := toolObj.Get("description")
		if !isString(desc) || strings.TrimSpace(desc.String()) == "" {
			err = fail("tool.description is missing or empty: say what the tool does")
			return
		}
		m.meta.Description = desc.String()

		schema := toolObj.Get("schema")
		if schema == nil || goja.IsUndefined(schema) {
			m.meta.Schema = json.RawMessage(`{"type":"object"}`)
		} else {
			so, ok := schema.(*goja.Object)
			if !ok || so.ClassName() == "Array" || so.ClassName() == "Function" {
				err = fail("tool.schema must be a JSON Schema object with type \"object\", got %s", describeType(schema))
				return
			}
			if t := so.Get("type"); !isString(t) || t.String() != "object" {
				err = fail("tool.schema.type must be \"object\" (the arguments are a JSON object), got %s", describeValue(t))
				return
			}
			s, jerr := rt.jsonStringify(goja.Undefined(), schema)
			if jerr != nil {
				err = fail("tool.schema is not JSON-serialisable: %s", stripPC(jerr.Error()))
				return
			}
			m.meta.Schema = json.RawMessage(s.String())
		}

		if to := toolObj.Get("timeout"); to != nil && !goja.IsUndefined(to) && !goja.IsNull(to) {
			ms, ok := to.Export().(int64)
			if f, isFloat := to.Export().(float64); isFloat && f == float64(int64(f)) {
				ms, ok = int64(f), true
			}
			if !ok || ms < 1 || time.Duration(ms)*time.Millisecond > MaxTimeout {
				err = fail("tool.timeout must be a whole number of milliseconds from 1 to %d, got %s", MaxTimeout.Milliseconds(), describeValue(to))
				return
			}
			m.meta.Timeout = time.Duration(ms) * time.Millisecond
		}

		list, lerr := stringArray(toolObj, "permissions", strings.Join(quoteAll(validPermissions), ", "))
		if lerr != "" {
			err = fail("%s", lerr)
			return
		}
		p, perr := ParsePermissions(list)
		if perr != nil {
			err = fail("tool.permissions: %v", perr)
			return
		}
		m.perms = p
		m.meta.Permissions = p.List()

		phrases, lerr := stringArray(toolObj, "phrases", "the words people use when they want the tool")
		if lerr != "" {
			err = fail("%s", lerr)
			return
		}
		if m.meta.Phrases, lerr = checkPhrases(phrases); lerr != "" {
			err = fail("%s", lerr)
			return
		}
	}); ex != nil {
		return fail("reading the tool object failed: %s", stripPC(ex.Error()))
	}
	return err
}

// stringArray reads the optional array of strings tool.<key> (nil when
// absent); what says what the strings are, for the error.
func stringArray(toolObj *goja.Object, key, what string) ([]string, string) {
	v := toolObj.Get(key)
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil, ""
	}
	o, ok := v.(*goja.Object)
	if !ok || o.ClassName() != "Array" {
		return nil, fmt.Sprintf("tool.%s must be an array of strings (%s), got %s", key, what, describeType(v))
	}
	n := int(o.Get("length").ToInteger())
	list := make([]string, 0, n)
	for i := 0; i < n; i++ {
		e := o.Get(fmt.Sprint(i))
		if !isString(e) {
			return nil, fmt.Sprintf("tool.%s[%d] must be a string, got %s", key, i, describeType(e))
		}
		list = append(list, e.String())
	}
	return list, ""
}

func isString(v goja.Value) bool {
	if v == nil {
		return false
	}
	_, ok := v.Export().(string)
	return ok
}

func describeType(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	}
	if o, ok := v.(*goja.Object); ok {
		switch o.ClassName() {
		case "Array":
			return "an array"
		case "Function":
			return "a function"
		}
		return "an object"
	}
	switch v.Export().(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, float64:
		return "a number"
	}
	return "a " + v.ExportType().String()
}

func describeValue(v goja.Value) string {
	if isString(v) {
		return fmt.Sprintf("%q", v.String())
	}
	return describeType(v)
}

// installGlobals adds console, timers and queueMicrotask, and makes the ctx
// member functions shared by all calls on this runtime.
func (rt *jsRuntime) installGlobals() {
	vm := rt.vm
	console := vm.NewObject()
	for _, lv := range []struct {
		name  string
		level slog.Level
	}{{"log", slog.LevelInfo}, {"info", slog.LevelInfo}, {"warn", slog.LevelWarn}, {"error", slog.LevelError}, {"debug", slog.LevelDebug}, {"trace", slog.LevelDebug}} {
		level := lv.level
		_ = console.Set(lv.name, func(call goja.FunctionCall) goja.Value {
			rt.emit(level, "console", call.Arguments)
			return goja.Undefined()
		})
	}
	g := vm.GlobalObject()
	_ = g.Set("console", console)
	_ = g.Set("setTimeout", func(call goja.FunctionCall) goja.Value { return rt.setTimer(call, false) })
	_ = g.Set("setInterval", func(call goja.FunctionCall) goja.Value { return rt.setTimer(call, true) })
	_ = g.Set("clearTimeout", rt.clearTimer)
	_ = g.Set("clearInterval", rt.clearTimer)

	promiseResolve, _ := goja.AssertFunction(vm.Get("Promise").(*goja.Object).Get("resolve"))
	_ = g.Set("queueMicrotask", func(call goja.FunctionCall) goja.Value {
		fn := call.Argument(0)
		if _, ok := goja.AssertFunction(fn); !ok {
			panic(vm.NewTypeError("queueMicrotask: the callback must be a function"))
		}
		p, err := promiseResolve(vm.Get("Promise"))
		if err != nil {
			panic(err)
		}
		then, _ := goja.AssertFunction(p.(*goja.Object).Get("then"))
		if _, err := then(p, fn); err != nil {
			panic(err)
		}
		return goja.Undefined()
	})

	rt.logFn = vm.ToValue(func(call goja.FunctionCall) goja.Value {
		rt.emit(slog.LevelInfo, "ctx.log", call.Arguments)
		return goja.Undefined()
	})
	rt.fetchFn = vm.ToValue(rt.fetch)
	rt.fsObj = rt.newFS()
	rt.browserObj = rt.newBrowser()
}

// maxLogBytes caps one log line from a tool.
const maxLogBytes = 16 << 10

func (rt *jsRuntime) emit(level slog.Level, source string, args []goja.Value) {
	ctx := context.Background()
	if rt.cur != nil {
		ctx = rt.cur.ctx
	}
	if !rt.log.Enabled(ctx, level) {
		return
	}
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(rt.inspect(a))
		if b.Len() > maxLogBytes {
			break
		}
	}
	msg := b.String()
	if len(msg) > maxLogBytes {
		msg = msg[:maxLogBytes] + "…(truncated)"
	}
	rt.log.Log(ctx, level, msg, "source", source)
}

// inspect renders a value for a log line: strings as they are, errors by
// their stack, other objects as JSON.
func (rt *jsRuntime) inspect(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	}
	o, ok := v.(*goja.Object)
	if !ok {
		return v.String()
	}
	switch o.ClassName() {
	case "Error":
		if s := o.Get("stack"); isString(s) {
			return stripPC(strings.TrimRight(s.String(), "\n"))
		}
		return o.String()
	case "Function":
		return "[Function]"
	}
	s, err := rt.jsonStringify(goja.Undefined(), v)
	if err != nil || s == nil || goja.IsUndefined(s) {
		return o.String()
	}
	return s.String()
}

// newError makes an Error object with the pristine Error constructor.
func (rt *jsRuntime) newError(msg string) *goja.Object {
	o, err := rt.vm.New(rt.errorCtor, rt.vm.ToValue(msg))
	if err != nil {
		panic(err)
	}
	return o
}

// forbidden makes an error for a permission violation, recorded so that a
// call failing with it reports CodeForbidden.
func (rt *jsRuntime) forbidden(msg string) *goja.Object {
	o := rt.newError(msg)
	if rt.cur != nil {
		rt.cur.markForbidden(o)
	}
	return o
}

// call runs the handler once. The bool (healthy) is false when the runtime
// must not be reused.
func (rt *jsRuntime) call(cs *callState, args string) (json.RawMessage, bool, error) {
	vm := rt.vm
	argv, err := rt.jsonParse(goja.Undefined(), vm.ToValue(args))
	if err != nil {
		var ex *goja.Exception
		if errors.As(err, &ex) {
			return nil, true, tool.Errorf(tool.CodeInvalidArgs, "arguments are not valid JSON: %s", ex.Value().String())
		}
		return rt.failure(cs, err)
	}
	ctxObj := vm.NewObject()
	_ = ctxObj.Set("log", rt.logFn)
	_ = ctxObj.Set("fetch", rt.fetchFn)
	_ = ctxObj.Set("fs", rt.fsObj)
	_ = ctxObj.Set("browser", rt.browserObj)
	if sq := rt.squadObject(cs); sq != nil {
		_ = ctxObj.Set("squad", sq)
	}

	res, err := rt.handler(rt.toolObj, argv, ctxObj)
	if err != nil {
		return rt.failure(cs, err)
	}
	if o, ok := res.(*goja.Object); ok {
		if p, ok := o.Export().(*goja.Promise); ok {
			done := cs.ctx.Done()
			for p.State() == goja.PromiseStatePending && cs.fatal == nil {
				if cs.pending == 0 && done == nil {
					return nil, true, tool.Errorf(tool.CodeToolError, "the handler's promise can never settle: it awaits something that nothing will resolve")
				}
				select {
				case <-cs.wake:
					for _, job := range cs.take() {
						if err := job(); err != nil {
							var ex *goja.Exception
							if errors.As(err, &ex) && cs.fatal == nil {
								cs.fatal = err // uncaught exception in a timer callback
								break
							}
							return rt.failure(cs, err)
						}
					}
				case <-done:
					return nil, false, rt.m.ctxError(cs.ctx)
				}
			}
			if cs.fatal != nil {
				return rt.failure(cs, cs.fatal)
			}
			if p.State() == goja.PromiseStateRejected {
				return nil, true, rt.thrown(cs, p.Result())
			}
			res = p.Result()
		}
	}
	if str, ok := res.(goja.String); ok {
		return rt.m.boundString(str)
	}
	out, err := rt.jsonStringify(goja.Undefined(), res)
	if err != nil {
		var ex *goja.Exception
		if errors.As(err, &ex) {
			te := rt.thrown(cs, ex.Value())
			te.Message = "the result is not JSON-serialisable: " + te.Message
			return nil, true, te
		}
		return rt.failure(cs, err)
	}
	if out == nil || goja.IsUndefined(out) {
		return json.RawMessage("null"), true, nil
	}
	if str, ok := out.(goja.String); ok {
		return rt.m.boundJSON(str)
	}
	return json.RawMessage(out.String()), true, nil
}

// squadObject is ctx.squad for a task of a squad: {id, vars, get(key),
// set(key, value)}; set shares a JSON value with the squad (recorded in the
// ExecContext's Updates, which travel back with the result).
func (rt *jsRuntime) squadObject(cs *callState) *goja.Object {
	ec := cs.squad
	if ec == nil || ec.SquadID == "" {
		return nil
	}
	vm := rt.vm
	varsJSON, err := json.Marshal(ec.SharedVars)
	if err != nil || ec.SharedVars == nil {
		varsJSON = []byte("{}")
	}
	vars, err := rt.jsonParse(goja.Undefined(), vm.ToValue(string(varsJSON)))
	if err != nil {
		return nil
	}
	o := vm.NewObject()
	_ = o.Set("id", ec.SquadID)
	_ = o.Set("vars", vars)
	_ = o.Set("get", func(key string) goja.Value { return vars.ToObject(vm).Get(key) })
	_ = o.Set("set", func(key string, value goja.Value) {
		s, err := rt.jsonStringify(goja.Undefined(), value)
		if err != nil || s == nil || goja.IsUndefined(s) {
			panic(rt.newError("ctx.squad.set: the value of " + key + " is not JSON-serialisable"))
		}
		if ec.Updates == nil {
			ec.Updates = map[string]json.RawMessage{}
		}
		ec.Updates[key] = json.RawMessage(s.String())
		_ = vars.ToObject(vm).Set(key, value)
	})
	return o
}

// boundString encodes a string result within the module's result limits
// without copying more of it out of the runtime than is sent. Lengths are
// in UTF-16 code units, which a UTF-8 text has at most as many of as bytes;
// the Igor's own bound then measures the bytes of what remains.
func (m *Module) boundString(s goja.String) (json.RawMessage, bool, error) {
	l := m.opts.Results
	n := int64(s.Length())
	if l.Hard > 0 && n > l.Hard {
		return nil, true, tool.Errorf(tool.CodeResultTooLarge, "the result is a string of %d characters, over the %d-byte bound (tools.maxResultHardBytes), so it was not sent. %s", n, l.Hard, returnLess)
	}
	if l.NeedsCut(n) {
		text, shown := cutJS(s, int(l.Cut))
		out, err := json.Marshal(text + tool.CutNote(shown, n, "characters"))
		return out, true, err
	}
	out, err := json.Marshal(s.String())
	return out, true, err
}

// boundJSON is boundString for the JSON text of a result that is not a
// string (JSON.stringify's output, still in the runtime): over the hard
// bound the call answers RESULT_TOO_LARGE, and over the cut the result
// becomes a text, the start of its JSON and a note, as tool.ResultLimits
// makes of a Go tool's object.
func (m *Module) boundJSON(s goja.String) (json.RawMessage, bool, error) {
	l := m.opts.Results
	n := int64(s.Length())
	if l.Hard > 0 && n > l.Hard {
		return nil, true, tool.Errorf(tool.CodeResultTooLarge, "the result's JSON is %d characters, over the %d-byte bound (tools.maxResultHardBytes), so it was not sent. %s", n, l.Hard, returnLess)
	}
	if l.NeedsCut(n) {
		text, shown := cutJS(s, int(l.Cut))
		out, err := json.Marshal(text + tool.CutNote(shown, n, "characters of JSON"))
		return out, true, err
	}
	return json.RawMessage(s.String()), true, nil
}

// returnLess says how a dynamic tool returns less.
const returnLess = "Return less: a part of it (take an offset or a limit argument), or write the whole to a file with ctx.fs and return its path."

// cutJS copies out of the runtime the longest prefix of s that is at most
// max bytes of UTF-8 and ends on a whole character, and says how many
// JavaScript characters (UTF-16 code units) that is.
func cutJS(s goja.String, max int) (string, int64) {
	end := min(s.Length(), max) // a UTF-16 unit is at least one byte of UTF-8
	if end > 0 && end < s.Length() && utf16.IsSurrogate(rune(s.CharAt(end-1))) && s.CharAt(end-1) < 0xDC00 {
		end-- // not half a surrogate pair
	}
	text := tool.CutText(s.Substring(0, end).String(), max)
	var shown int64
	for _, r := range text {
		shown += int64(utf16.RuneLen(r))
	}
	return text, shown
}

// thrownText is the text of a thrown string (or of an Error's stack), copied
// out of the runtime only up to the result cut (tools.maxResultBytes), with
// a note when it is longer: a tool that throws a whole document costs no
// more than one that returns it.
func (rt *jsRuntime) thrownText(s goja.String) string {
	l := rt.m.opts.Results
	if n := int64(s.Length()); l.NeedsCut(n) {
		text, shown := cutJS(s, int(l.Cut))
		return text + tool.ErrorCutNote(shown, n, "characters")
	}
	return s.String()
}

// failure converts an error from running JS into a call error.
func (rt *jsRuntime) failure(cs *callState, err error) (json.RawMessage, bool, error) {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if cs.ctx.Err() != nil {
			return nil, false, rt.m.ctxError(cs.ctx)
		}
		return nil, false, tool.Errorf(tool.CodeInternal, "dynamic tool %s was interrupted: %v", rt.m.meta.Name, ie.Value())
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		msg := "RangeError: maximum call stack size exceeded"
		stack := stackOf(so.Stack())
		return nil, false, &tool.Error{Code: tool.CodeToolError, Message: msg, Stack: stack}
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return nil, true, rt.thrown(cs, ex.Value())
	}
	return nil, false, tool.Errorf(tool.CodeInternal, "dynamic tool %s: %v", rt.m.meta.Name, err)
}

// maxStackFrames caps the frames kept in an error's stack.
const maxStackFrames = 20

func stackOf(frames []goja.StackFrame) string {
	limit := min(len(frames), maxStackFrames)
	lines := make([]string, 0, limit+1)
	for i := range frames[:limit] {
		var fb bytes.Buffer
		frames[i].Write(&fb)
		lines = append(lines, "\tat "+stripPC(fb.String()))
	}
	if len(frames) > limit {
		lines = append(lines, fmt.Sprintf("\t... %d more frames", len(frames)-limit))
	}
	return strings.Join(lines, "\n")
}

const requireHint = "\n(dynamic tools cannot import modules: only `import type` is allowed; use ctx.fetch, ctx.fs and the JavaScript built-ins)"

// thrown converts a thrown or rejected JS value into a tool error whose
// message is the value (for an Error, "Name: message") and whose stack is
// the Error's, mapped to the TypeScript source.
func (rt *jsRuntime) thrown(cs *callState, v goja.Value) *tool.Error {
	code := tool.CodeToolError
	if cs.isForbidden(v) {
		code = tool.CodeForbidden
	}
	var head, stack string
	if ex := rt.vm.Try(func() { head, stack = rt.describeThrown(v) }); ex != nil {
		head = "uncaught exception (its description failed: " + stripPC(ex.Error()) + ")"
	}
	// The stack goes apart: Error.Text shows it after the message, once.
	msg := head
	if strings.Contains(head, "require is not defined") {
		msg += requireHint
	}
	return &tool.Error{Code: code, Message: msg, Stack: stack}
}

func (rt *jsRuntime) describeThrown(v goja.Value) (head, stack string) {
	o, ok := v.(*goja.Object)
	if !ok {
		if v == nil || goja.IsUndefined(v) {
			return "uncaught undefined", ""
		}
		if s, ok := v.(goja.String); ok {
			return rt.thrownText(s), ""
		}
		return "uncaught " + v.String(), ""
	}
	if s, ok := o.Get("stack").(goja.String); ok && o.ClassName() == "Error" {
		full := stripPC(strings.TrimRight(rt.thrownText(s), "\n"))
		if i := strings.Index(full, "\n\tat "); i >= 0 {
			head, stack = full[:i], full[i+1:]
		} else {
			head = full
		}
		lines := strings.Split(stack, "\n")
		if len(lines) > maxStackFrames {
			stack = strings.Join(lines[:maxStackFrames], "\n") + fmt.Sprintf("\n\t... %d more frames", len(lines)-maxStackFrames)
		}
		return head, stack
	}
	if o.ClassName() == "Error" {
		return o.String(), ""
	}
	return "uncaught " + rt.inspect(o), ""
}
