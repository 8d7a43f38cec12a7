package jsrt

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/dop251/goja"
)

func TestHostileWithoutPermission(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       string // result JSON, if the call succeeds
		code       string // error code, if it fails
		contains   string
	}{
		{name: "globals absent", body: `return [typeof require, typeof process, typeof Bun, typeof Deno, typeof fetch,
			typeof XMLHttpRequest, typeof WebSocket, typeof eval, typeof (globalThis as any).GoError, typeof __dirname];`,
			want: `["undefined","undefined","undefined","undefined","undefined","undefined","undefined","undefined","undefined","undefined"]`},
		{name: "require fs", body: `return require('fs').readFileSync('/etc/passwd', 'utf8');`, code: tool.CodeToolError, contains: "ReferenceError: require is not defined"},
		{name: "process env", body: `return process.env;`, code: tool.CodeToolError, contains: "ReferenceError: process is not defined"},
		{name: "global fetch", body: `return await fetch('http://127.0.0.1:1/');`, code: tool.CodeToolError, contains: "fetch is not defined"},
		{name: "ctx.fetch forbidden", body: `return await ctx.fetch('http://127.0.0.1:1/');`, code: tool.CodeForbidden, contains: `network permission not declared: add permissions: ["network"] to the tool`},
		{name: "ctx.fs forbidden", body: `return ctx.fs.readFile('/etc/passwd');`, code: tool.CodeForbidden, contains: `filesystem permission not declared: add permissions: ["filesystem"] to the tool`},
		{name: "ctx.fs.writeFile forbidden", body: `ctx.fs.writeFile('x', 'y'); return 1;`, code: tool.CodeForbidden, contains: "filesystem permission not declared"},
		{name: "caught forbidden is not fatal", body: `try { await ctx.fetch('http://x/'); } catch (e: any) { return e.message; }`,
			want: `"network permission not declared: add permissions: [\"network\"] to the tool"`},
		{name: "eval", body: `return eval('1+1');`, code: tool.CodeToolError, contains: "ReferenceError: eval is not defined"},
		{name: "indirect eval", body: `return (0, (globalThis as any)['ev' + 'al'])('1');`, code: tool.CodeToolError, contains: "TypeError"},
		{name: "new Function", body: `return new Function('return 1')();`, code: tool.CodeToolError, contains: "EvalError: code generation from strings is disabled"},
		{name: "function constructor", body: `return (function () {}).constructor('return process')();`, code: tool.CodeToolError, contains: "EvalError"},
		{name: "async function constructor", body: `return await (async function () {}).constructor('return 1')();`, code: tool.CodeToolError, contains: "EvalError"},
		{name: "generator function constructor", body: `return (function* () {}).constructor('yield 1')().next();`, code: tool.CodeToolError, contains: "EvalError"},
		{name: "setTimeout string", body: `setTimeout('globalThis.x = 1', 0); return 1;`, code: tool.CodeToolError, contains: "code strings are not allowed"},
		{name: "global object frozen", body: `(globalThis as any).leak = 1; return 1;`, code: tool.CodeToolError, contains: "TypeError"},
		{name: "prototype pollution throws", body: `(Object.prototype as any).polluted = 1; return 1;`, code: tool.CodeToolError, contains: "TypeError"},
		{name: "__proto__ pollution throws", body: `({} as any).__proto__.polluted = 1; return 1;`, code: tool.CodeToolError, contains: "TypeError"},
		{name: "array prototype throws", body: `Array.prototype.push = function () { return 0; }; return 1;`, code: tool.CodeToolError, contains: "TypeError"},
		{name: "replace JSON throws", body: `(globalThis as any).JSON = null; return 1;`, code: tool.CodeToolError, contains: "TypeError"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := mustLoad(t, toolSrc(tc.body), Options{FSRoot: t.TempDir()})
			out, err := call(t, m, `{}`)
			wantOutcome(t, out, err, tc.want, tc.code, tc.contains)
		})
	}
}

// TestTamperingDoesNotLeak checks that what one call does to the built-ins
// is not seen by the next call on the same pooled runtime.
func TestTamperingDoesNotLeak(t *testing.T) {
	t.Parallel()
	m := mustLoad(t, `
let tampered = false;
const attempt = (f: () => void) => { try { f(); return 'changed'; } catch (e) { return (e as Error).name; } };
export const tool = {
  name: 'tamper',
  description: 'tries to poison its runtime',
  handler(args: any) {
    if (args.mode === 'tamper') {
      tampered = true;
      return [
        attempt(() => { (Object.prototype as any).polluted = 1; }),
        attempt(() => { Array.prototype.push = function () { return -1; }; }),
        attempt(() => { (Array.prototype as any).extra = 1; }),
        attempt(() => { String.prototype.split = function () { return ['x']; } as any; }),
        attempt(() => { JSON.stringify = () => '"hacked"'; }),
        attempt(() => { Math.random = () => 4; }),
        attempt(() => { (Promise.prototype as any).then = null; }),
        attempt(() => { Object.defineProperty(Object.prototype, 'sneaky', { get() { return 1; } }); }),
        attempt(() => { Object.setPrototypeOf(Array.prototype, null); }),
        attempt(() => { (Error.prototype as any).name = 'Hacked'; }),
        attempt(() => { console.log = () => {}; }),
        attempt(() => { (globalThis as any).setTimeout = null; }),
        attempt(() => { const it = Object.getPrototypeOf([][Symbol.iterator]()); it.next = () => ({ done: true }); }),
        attempt(() => { (Object.getPrototypeOf(async function () {}) as any).polluted = 1; }),
        attempt(() => { delete (Object.prototype as any).toString; }),
      ];
    }
    const arr: number[] = [];
    arr.push(1, 2);
    return {
      sameRuntime: tampered,
      polluted: ({} as any).polluted === undefined && ({} as any).sneaky === undefined && ([] as any).extra === undefined,
      push: arr.length === 2,
      split: 'a,b'.split(',').length === 2,
      stringify: JSON.stringify({ a: 1 }) === '{"a":1}',
      random: Math.random() < 1,
      errorName: new Error('x').name === 'Error',
      iter: [...[1, 2, 3]].length === 3,
      toString: String({}) === '[object Object]',
      timers: typeof setTimeout === 'function',
    };
  },
};
`, Options{})
	clean := `{"sameRuntime":%s,"polluted":true,"push":true,"split":true,"stringify":true,"random":true,"errorName":true,"iter":true,"toString":true,"timers":true}`
	sawReuse := false
	for i := 0; i < 50 && !sawReuse; i++ {
		out := mustCall(t, m, `{"mode":"tamper"}`)
		var results []string
		if err := json.Unmarshal([]byte(out), &results); err != nil {
			t.Fatal(err)
		}
		for j, r := range results {
			if r == "changed" {
				t.Fatalf("tampering %d succeeded: %s", j, out)
			}
		}
		out = mustCall(t, m, `{"mode":"check"}`)
		if strings.Contains(out, `"sameRuntime":true`) {
			sawReuse = true
			jsonEq(t, out, strings.Replace(clean, "%s", "true", 1))
		} else {
			jsonEq(t, out, strings.Replace(clean, "%s", "false", 1))
		}
	}
	if !sawReuse {
		t.Fatal("never saw a runtime reused after tampering; the test proves nothing")
	}
}

func TestTimeouts(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, body string }{
		{"sync loop", `while (true) {}`},
		{"sync loop in sync handler path", `for (;;) { JSON.stringify({ a: [1, 2, 3] }); }`},
		{"microtask loop", `while (true) await null;`},
		{"promise job chain", `const spin = (): Promise<void> => Promise.resolve().then(spin); await spin();`},
		{"timer chain", `await new Promise(() => { const loop = () => setTimeout(loop, 0); loop(); });`},
		{"setInterval", `await new Promise(() => { setInterval(() => {}, 1); });`},
		{"never settles", `await new Promise(() => {});`},
		{"busy timer callback", `await new Promise(() => setTimeout(() => { while (true) {} }, 5));`},
		{"sleeping", `await new Promise(r => setTimeout(r, 60_000));`},
	}
	const deadline = 200 * time.Millisecond
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := mustLoad(t, toolSrc(tc.body+"\nreturn 1;"), Options{})
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			start := time.Now()
			_, err := callCtx(t, m, ctx, `{}`)
			el := time.Since(start)
			if err == nil || err.Code != tool.CodeTimeout {
				t.Fatalf("err = %v, want %s", err, tool.CodeTimeout)
			}
			// Stopped by the deadline, not by the body ending: the slowest
			// body sleeps a minute. (How soon is a benchmark's business; a
			// loaded machine adds its own delay.)
			if el > deadline+10*time.Second {
				t.Errorf("Call returned after %v, deadline was %v", el, deadline)
			}
			if !strings.Contains(err.Message, "timed out") {
				t.Errorf("message = %q", err.Message)
			}
		})
	}
}

func TestTimedOutRuntimeIsNotReused(t *testing.T) {
	t.Parallel()
	m := mustLoad(t, `
let poisoned = false;
export const tool = {
  name: 'x', description: 'd',
  async handler(args: any) {
    if (poisoned) return 'reused';
    if (args.hang) { poisoned = true; while (true) {} }
    return 'fresh';
  },
};`, Options{})
	for range 10 {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		_, err := callCtx(t, m, ctx, `{"hang":true}`)
		cancel()
		if err == nil || err.Code != tool.CodeTimeout {
			t.Fatalf("err = %v", err)
		}
		if out := mustCall(t, m, `{}`); out != `"fresh"` {
			t.Fatalf("after a timeout the next call got %s", out)
		}
	}
}

func TestCancelled(t *testing.T) {
	t.Parallel()
	m := mustLoad(t, toolSrc(`await new Promise(() => {}); return 1;`), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	start := time.Now()
	_, err := callCtx(t, m, ctx, `{}`)
	if err == nil || err.Code != tool.CodeCancelled {
		t.Fatalf("err = %v, want %s", err, tool.CodeCancelled)
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("took %v", el)
	}
	// Already-cancelled context: no JS runs at all.
	_, err = callCtx(t, m, ctx, `{}`)
	if err == nil || err.Code != tool.CodeCancelled {
		t.Fatalf("err = %v, want %s", err, tool.CodeCancelled)
	}
}

func TestNeverSettlesWithoutDeadline(t *testing.T) {
	t.Parallel()
	m := mustLoad(t, toolSrc(`await new Promise(() => {}); return 1;`), Options{})
	_, err := callCtx(t, m, context.Background(), `{}`)
	if err == nil || err.Code != tool.CodeToolError || !strings.Contains(err.Message, "can never settle") {
		t.Fatalf("err = %v", err)
	}
}

// TestIntrinsicsAllFrozen walks everything reachable from the global object,
// the hidden intrinsics and the ctx members of a locked-down runtime and
// checks that all of it is frozen.
func TestIntrinsicsAllFrozen(t *testing.T) {
	t.Parallel()
	m := mustLoad(t, toolSrc(`return 1;`, "network", "filesystem"), Options{})
	rt, err := m.newRuntime(t.Context(), false)
	if err != nil {
		t.Fatal(err)
	}
	check, err := rt.vm.RunString(`(function (extras) {
		const roots = [['globalThis', globalThis],
			['AsyncFunction.prototype', Object.getPrototypeOf(async function () {})],
			['GeneratorFunction.prototype', Object.getPrototypeOf(function* () {})],
			['generator', (function* () {})()],
			['ArrayIterator', [][Symbol.iterator]()],
			['MapIterator', new Map().entries()],
			['SetIterator', new Set().values()],
			['StringIterator', ''[Symbol.iterator]()],
			['RegExpStringIterator', 'a'.matchAll(/a/g)],
			['ctx.log', extras[0]], ['ctx.fetch', extras[1]], ['ctx.fs', extras[2]]];
		const seen = new Set();
		const todo = [];
		const add = (path, v) => {
			if (v !== null && (typeof v === 'object' || typeof v === 'function') && !seen.has(v)) { seen.add(v); todo.push([path, v]); }
		};
		for (const [p, v] of roots) add(p, v);
		const fresh = new Set(roots.slice(3, 9).map(r => r[1]));
		fresh.add(Object.getPrototypeOf(roots[3][1])); // the test's own generator function's prototype
		const bad = [];
		while (todo.length) {
			const [path, o] = todo.pop();
			if (!Object.isFrozen(o) && !fresh.has(o)) bad.push(path);
			add(path + '.[[Prototype]]', Object.getPrototypeOf(o));
			for (const k of Reflect.ownKeys(o)) {
				const d = Object.getOwnPropertyDescriptor(o, k);
				const p = path + '.' + String(k);
				if ('value' in d) add(p, d.value); else { add(p + '<get>', d.get); add(p + '<set>', d.set); }
			}
		}
		return [seen.size, bad.length, bad.slice(0, 20).join('\n')];
	})`)
	if err != nil {
		t.Fatal(err)
	}
	fn, _ := goja.AssertFunction(check)
	res, err := fn(goja.Undefined(), rt.vm.NewArray(rt.logFn, rt.fetchFn, rt.fsObj))
	if err != nil {
		t.Fatal(err)
	}
	out := res.Export().([]any)
	if n := out[0].(int64); n < 400 {
		t.Errorf("walked only %d objects", n)
	}
	if out[1].(int64) != 0 {
		t.Errorf("%d reachable intrinsics are not frozen, e.g.\n%s", out[1], out[2])
	}
}

// TestPanicIsRecovered makes a Go function called from JS panic: the call
// fails with CodeInternal, the process survives and the module keeps working.
func TestPanicIsRecovered(t *testing.T) {
	t.Parallel()
	m := mustLoad(t, toolSrc(`return 1;`), Options{})
	for i := 0; ; i++ {
		if i == 50 {
			t.Fatal("never got the panicking runtime from the pool")
		}
		rt, err := m.newRuntime(t.Context(), false)
		if err != nil {
			t.Fatal(err)
		}
		boom, _ := goja.AssertFunction(rt.vm.ToValue(func(goja.FunctionCall) goja.Value { panic("boom") }))
		rt.handler = func(this goja.Value, args ...goja.Value) (goja.Value, error) { return boom(this, args...) }
		m.idle.put(rt)
		_, terr := call(t, m, `{}`)
		if terr == nil {
			continue // the pool handed out another runtime
		}
		if terr.Code != tool.CodeInternal || !strings.Contains(terr.Message, "boom") {
			t.Fatalf("err = %v", terr)
		}
		break
	}
	for m.idle.get() != nil { // drop panicking runtimes still kept
	}
	for range 5 {
		if out := mustCall(t, m, `{}`); out != "1" {
			t.Fatalf("after the panic: %s", out)
		}
	}
}
