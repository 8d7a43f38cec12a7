package jsrt

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/barrhawk/barrhawk/internal/testsupport/lockedbuf"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// reverseString is the seed's filesystem example, verbatim.
var reverseString = func() string {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "reverse_string.ts"))
	if err != nil {
		panic(err)
	}
	return string(b)
}()

func TestSeedReverseString(t *testing.T) {
	t.Parallel()
	m := mustLoad(t, reverseString, Options{})
	meta := m.Meta()
	if meta.Name != "reverse_string" || meta.Description != "Reverse a string" || len(meta.Permissions) != 0 {
		t.Fatalf("meta = %+v", meta)
	}
	jsonEq(t, string(meta.Schema), `{"type":"object","properties":{"text":{"type":"string","description":"Text to reverse"}},"required":["text"]}`)
	for _, tc := range []struct{ in, want string }{
		{`{"text":"hello"}`, `{"reversed":"olleh"}`},
		{`{"text":""}`, `{"reversed":""}`},
		{` {"text":"ab c"} `, `{"reversed":"c ba"}`},
	} {
		jsonEq(t, mustCall(t, m, tc.in), tc.want)
	}
}

func TestHandlers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, args, want string
	}{
		{"sync value", `export const tool = { name: 'x', description: 'd', handler(args: any) { return { n: args.n * 2 } } };`, `{"n":21}`, `{"n":42}`},
		{"async value", toolSrc(`return { n: args.n + 1 };`), `{"n":1}`, `{"n":2}`},
		{"awaits timers", toolSrc(`
			const order: string[] = [];
			await new Promise(r => setTimeout(() => { order.push('a'); r(null); }, 5));
			const p = new Promise(r => setTimeout(r, 1, 'b'));
			order.push(await p as string);
			queueMicrotask(() => order.push('c'));
			await null;
			return order;`), `{}`, `["a","b","c"]`},
		{"setInterval and clear", toolSrc(`
			let n = 0;
			await new Promise<void>(r => { const id = setInterval(() => { if (++n === 3) { clearInterval(id); r(); } }, 1); });
			return n;`), `{}`, `3`},
		{"cleared timeout never fires", toolSrc(`
			let fired = false;
			const id = setTimeout(() => { fired = true; }, 1);
			clearTimeout(id);
			await new Promise(r => setTimeout(r, 20));
			return fired;`), `{}`, `false`},
		{"undefined is null", toolSrc(`return undefined;`), `{}`, `null`},
		{"string result", toolSrc(`return 'hi';`), `{}`, `"hi"`},
		{"empty args are {}", toolSrc(`return Object.keys(args).length;`), ``, `0`},
		{"null args are {}", toolSrc(`return typeof args;`), `null`, `"object"`},
		{"args are plain objects", toolSrc(`return [Object.getPrototypeOf(args) === Object.prototype, Array.isArray(args.a), args.a.map((x: number) => x + 1), Object.keys(args.o)];`),
			`{"a":[1,2],"o":{"z":1,"a":2}}`, `[true,true,[2,3],["z","a"]]`},
		{"__proto__ key is data", toolSrc(`return [({} as any).x === undefined, Object.keys(args)];`), `{"__proto__":{"x":1}}`, `[true,["__proto__"]]`},
		{"this is the tool", `export const tool = { name: 'x', description: 'd', helper() { return 7 }, async handler() { return this.helper() } };`, `{}`, `7`},
		{"module state", `let calls = 0; export const tool = { name: 'x', description: 'd', handler() { return ++calls > 0 } };`, `{}`, `true`},
		{"Error subclass can set name", toolSrc(`
			class MyError extends Error { constructor(m: string) { super(m); this.name = 'MyError'; } }
			const e = new MyError('m');
			function Legacy(this: any) {}
			Legacy.prototype.toString = function () { return 'legacy'; };
			Legacy.prototype.constructor = Legacy;
			const o: any = {}; o.toString = () => 'own'; o.hasOwnProperty = 1;
			return [e.name, String(e), e instanceof Error, String(new (Legacy as any)()), String(o), o.hasOwnProperty, (() => {}) instanceof Function];`),
			`{}`, `["MyError","MyError: m",true,"legacy","own",1,true]`},
		{"console and ctx.log", toolSrc(`console.log('a', 1, {b: 2}); console.error(new Error('e')); ctx.log('from ctx'); return 1;`), `{}`, `1`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := mustLoad(t, tc.src, Options{})
			jsonEq(t, mustCall(t, m, tc.args), tc.want)
			// Second call: pooled runtimes give the same answer.
			jsonEq(t, mustCall(t, m, tc.args), tc.want)
		})
	}
}

func TestConsoleGoesToLog(t *testing.T) {
	t.Parallel()
	var lb lockedbuf.Buffer
	m := mustLoad(t, toolSrc(`console.warn('careful', {a: 1}); console.debug('dbg'); ctx.log('via ctx'); return 1;`), Options{Log: debugLogger(&lb)})
	mustCall(t, m, `{}`)
	out := lb.String()
	for _, want := range []string{`level=WARN msg="careful {\"a\":1}" tool=t source=console`, `level=DEBUG msg=dbg tool=t`, `msg="via ctx" tool=t source=ctx.log`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}

func TestCallErrors(t *testing.T) {
	t.Parallel()
	// lines matter: the throw is on line 9.
	src := `import type { DynamicTool } from '../../shared/types.js';

export const tool: DynamicTool = {
  name: 'thrower',
  description: 'throws',
  async handler(args: Record<string, unknown>) {
    if (args.mode === 'sync') return sync();
    if (args.mode === 'async') {
      throw new Error('kaboom');
    }
    if (args.mode === 'string') throw 'just a string';
    if (args.mode === 'object') throw { code: 42 };
    if (args.mode === 'reject') return Promise.reject(new TypeError('nope'));
    if (args.mode === 'timer') { setTimeout(() => { throw new RangeError('in timer'); }, 1); await new Promise(() => {}); }
    if (args.mode === 'cycle') { const a: any = {}; a.a = a; return a; }
    if (args.mode === 'bigint') return 1n;
    if (args.mode === 'recurse') { const f = (n: number): number => f(n + 1) + 1; return f(0); }
    if (args.mode === 'require') { return (globalThis as any).require ? 1 : require('fs'); }
    return 'ok';
  },
};

function sync(): never {
  throw new Error('sync kaboom');
}
`
	m := mustLoad(t, src, Options{})
	tests := []struct {
		args, code string
		contains   []string
	}{
		{`{"mode":"async"}`, tool.CodeToolError, []string{"Error: kaboom\n\nStack trace:\n\tat handler (mytool.ts:9:"}},
		{`{"mode":"sync"}`, tool.CodeToolError, []string{"Error: sync kaboom\n\nStack trace:\n\tat sync (mytool.ts:24:", "at handler (mytool.ts:7:"}},
		{`{"mode":"string"}`, tool.CodeToolError, []string{"just a string"}},
		{`{"mode":"object"}`, tool.CodeToolError, []string{`uncaught {"code":42}`}},
		{`{"mode":"reject"}`, tool.CodeToolError, []string{"TypeError: nope", "mytool.ts:13:"}},
		{`{"mode":"timer"}`, tool.CodeToolError, []string{"RangeError: in timer", "mytool.ts:14:"}},
		{`{"mode":"cycle"}`, tool.CodeToolError, []string{"not JSON-serialisable"}},
		{`{"mode":"bigint"}`, tool.CodeToolError, []string{"not JSON-serialisable"}},
		{`{"mode":"recurse"}`, tool.CodeToolError, []string{"maximum call stack size exceeded"}},
		{`{"mode":"require"}`, tool.CodeToolError, []string{"require is not defined", "only `import type`"}},
		{`[1,2]`, tool.CodeInvalidArgs, []string{"must be a JSON object, got an array"}},
		{`"s"`, tool.CodeInvalidArgs, []string{"got a string"}},
		{`42`, tool.CodeInvalidArgs, []string{"got a number"}},
		{`{"mode":`, tool.CodeInvalidArgs, []string{"not valid JSON"}},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			t.Parallel()
			_, err := call(t, m, tc.args)
			if err == nil {
				t.Fatal("no error")
			}
			if err.Code != tc.code {
				t.Fatalf("code = %s, want %s (%s)", err.Code, tc.code, err.Message)
			}
			// What a client reads: the message, then the stack, once.
			text := err.Text()
			for _, want := range tc.contains {
				if !strings.Contains(text, want) {
					t.Errorf("text %q lacks %q", text, want)
				}
			}
			if strings.Contains(text, ")(") || strings.Contains(text, "barrhawk-setup") {
				t.Errorf("text leaks goja internals: %q", text)
			}
			if err.Stack != "" && (strings.Count(text, err.Stack) != 1 || strings.Contains(err.Message, "\tat ")) {
				t.Errorf("the stack is not shown once, apart from the message: %q", text)
			}
		})
	}
	// The module still works after all that.
	if out := mustCall(t, m, `{}`); out != `"ok"` {
		t.Fatalf("after errors: %s", out)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, code string
		contains        []string
	}{
		{"no tool export", `export const tools = { name: 'x', description: 'd', handler() {} };`, tool.CodeInvalidArgs, []string{"mytool.ts", "no export named `tool`"}},
		{"bad name", `export const tool = { name: 'Bad-Name', description: 'd', handler() {} };`, tool.CodeInvalidArgs, []string{`"Bad-Name"`, "^[a-z][a-z0-9_]*$"}},
		{"name not a string", `export const tool = { name: 3, description: 'd', handler() {} };`, tool.CodeInvalidArgs, []string{"tool.name is missing"}},
		{"missing description", `export const tool = { name: 'x', handler() {} };`, tool.CodeInvalidArgs, []string{"tool.description"}},
		{"blank description", `export const tool = { name: 'x', description: '  ', handler() {} };`, tool.CodeInvalidArgs, []string{"tool.description"}},
		{"missing handler", `export const tool = { name: 'x', description: 'd' };`, tool.CodeInvalidArgs, []string{"tool.handler is missing"}},
		{"handler not a function", `export const tool = { name: 'x', description: 'd', handler: 'no' };`, tool.CodeInvalidArgs, []string{"tool.handler is missing or not a function"}},
		{"schema not object", `export const tool = { name: 'x', description: 'd', schema: 'object', handler() {} };`, tool.CodeInvalidArgs, []string{"tool.schema must be", "got a string"}},
		{"schema array", `export const tool = { name: 'x', description: 'd', schema: [], handler() {} };`, tool.CodeInvalidArgs, []string{"tool.schema must be", "got an array"}},
		{"schema type not object", `export const tool = { name: 'x', description: 'd', schema: { type: 'string' }, handler() {} };`, tool.CodeInvalidArgs, []string{`tool.schema.type must be "object"`, `got "string"`}},
		{"unknown permission", `export const tool = { name: 'x', description: 'd', permissions: ['network', 'root'], handler() {} };`, tool.CodeInvalidArgs, []string{`unknown permission "root"`, `"network", "filesystem", "browser", "ai"`}},
		{"permissions not array", `export const tool = { name: 'x', description: 'd', permissions: 'network', handler() {} };`, tool.CodeInvalidArgs, []string{"tool.permissions must be an array"}},
		{"phrases not array", `export const tool = { name: 'x', description: 'd', phrases: 'csv to json', handler() {} };`, tool.CodeInvalidArgs, []string{"tool.phrases must be an array of strings"}},
		{"phrase not a string", `export const tool = { name: 'x', description: 'd', phrases: ['csv', 3], handler() {} };`, tool.CodeInvalidArgs, []string{"tool.phrases[1] must be a string, got a number"}},
		{"phrase too long", `export const tool = { name: 'x', description: 'd', phrases: ['ok', 'x'.repeat(101)], handler() {} };`, tool.CodeInvalidArgs, []string{"tool.phrases[1] is 101 characters", "at most 100"}},
		{"too many phrases", `export const tool = { name: 'x', description: 'd', phrases: Array.from({length: 33}, (_, i) => 'p' + i), handler() {} };`, tool.CodeInvalidArgs, []string{"tool.phrases holds 33 phrases", "at most 32"}},
		{"top-level throw", "const x = 1;\nthrow new Error('at load');\nexport const tool = { name: 'x', description: 'd', handler() {} };", tool.CodeInvalidArgs, []string{"top-level code failed: Error: at load", "mytool.ts:2:"}},
		{"imports a module", "import fs from 'fs';\nexport const tool = { name: 'x', description: 'd', handler() { return fs } };", tool.CodeInvalidArgs, []string{"require is not defined", "only `import type`"}},
		{"top-level infinite loop", "while (true) {}\nexport const tool = { name: 'x', description: 'd', handler() {} };", tool.CodeTimeout, []string{"mytool.ts: top-level code did not finish within 2s"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			_, err := Load("mytool.ts", compileTS(t, tc.src), Options{})
			if el := time.Since(start); el > LoadTimeout+time.Second {
				t.Errorf("Load took %v", el)
			}
			te, ok := err.(*tool.Error)
			if !ok {
				t.Fatalf("err = %T %v, want *tool.Error", err, err)
			}
			if te.Code != tc.code {
				t.Fatalf("code = %s, want %s: %s", te.Code, tc.code, te.Message)
			}
			for _, want := range tc.contains {
				if !strings.Contains(te.Text(), want) {
					t.Errorf("text %q lacks %q", te.Text(), want)
				}
			}
		})
	}
}

func TestLoadSyntaxError(t *testing.T) {
	t.Parallel()
	// Not through esbuild: what goja itself rejects.
	_, err := Load("broken.ts", "var x = ;", Options{})
	if err == nil || !strings.Contains(err.Error(), "broken.ts") || !strings.Contains(err.Error(), "does not compile") || !strings.Contains(err.Error(), "Line 1:9 ") {
		t.Fatalf("err = %v", err)
	}
}

func TestMetaDefaults(t *testing.T) {
	t.Parallel()
	m := mustLoad(t, `export const tool = { name: 'x_1', description: 'd', permissions: ['ai', 'network', 'ai'], handler() {} };`, Options{})
	meta := m.Meta()
	if string(meta.Schema) != `{"type":"object"}` {
		t.Errorf("schema = %s", meta.Schema)
	}
	if fmt.Sprint(meta.Permissions) != "[network ai]" {
		t.Errorf("permissions = %v", meta.Permissions)
	}
	if p := m.Permissions(); !p.Network || !p.AI || p.Filesystem || p.Browser {
		t.Errorf("Permissions() = %+v", p)
	}
}

// A tool's phrases are kept tidied: spaces folded, empty and repeated
// ones dropped, the order kept.
func TestMetaPhrases(t *testing.T) {
	t.Parallel()
	m := mustLoad(t, `export const tool = { name: 'csv_to_json', description: 'd', phrases: ['  spreadsheet   export to json ', '', 'csv rows as objects', 'spreadsheet export to json'], handler() {} };`, Options{})
	if got := m.Meta().Phrases; !slices.Equal(got, []string{"spreadsheet export to json", "csv rows as objects"}) {
		t.Errorf("phrases = %q", got)
	}
	if got := mustLoad(t, `export const tool = { name: 'x', description: 'd', handler() {} };`, Options{}).Meta().Phrases; got != nil {
		t.Errorf("no phrases declared: %q", got)
	}
}

func TestParsePermissions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   []string
		want Permissions
		err  string
	}{
		{nil, Permissions{}, ""},
		{[]string{"network", "filesystem", "browser", "ai"}, Permissions{true, true, true, true}, ""},
		{[]string{"fs"}, Permissions{}, `unknown permission "fs": valid permissions are "network", "filesystem", "browser", "ai"`},
	}
	for _, tc := range tests {
		got, err := ParsePermissions(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParsePermissions(%v) err = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParsePermissions(%v) = %+v, %v", tc.in, got, err)
		}
	}
}

func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	m := mustLoad(t, toolSrc(`
		const id = args.id as number;
		await new Promise(r => setTimeout(r, id % 3));
		const acc: number[] = [];
		for (let i = 0; i < 100; i++) { acc.push(i * id); await null; }
		return { id, sum: acc.reduce((a, b) => a + b, 0), text: String(args.text).split('').reverse().join('') };`), Options{})
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := m.Call(t.Context(), json.RawMessage(fmt.Sprintf(`{"id":%d,"text":"abc%d"}`, i, i)))
			if err != nil {
				errs <- err
				return
			}
			var got struct {
				ID, Sum int
				Text    string
			}
			if err := json.Unmarshal(out, &got); err != nil {
				errs <- err
				return
			}
			want := fmt.Sprintf("%d", i)
			want = reverse(want) + "cba"
			if got.ID != i || got.Sum != 4950*i || got.Text != want {
				errs <- fmt.Errorf("call %d got %+v", i, got)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func BenchmarkCall(b *testing.B) {
	m := mustLoad(b, reverseString, Options{})
	args := json.RawMessage(`{"text":"hello world"}`)
	ctx := b.Context()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.Call(ctx, args); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCallParallel(b *testing.B) {
	m := mustLoad(b, reverseString, Options{})
	args := json.RawMessage(`{"text":"hello world"}`)
	ctx := b.Context()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := m.Call(ctx, args); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkNewRuntime(b *testing.B) {
	m := mustLoad(b, reverseString, Options{})
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.newRuntime(ctx, false); err != nil {
			b.Fatal(err)
		}
	}
}

func TestToolTimeoutMeta(t *testing.T) {
	t.Parallel()
	withTimeout := func(v string) string {
		return "export const tool = { name: 't', description: 'd', timeout: " + v + ", async handler() { return 1; } };\n"
	}
	if m := mustLoad(t, withTimeout("1500"), Options{}); m.Meta().Timeout != 1500*time.Millisecond {
		t.Fatalf("timeout 1500: %v", m.Meta().Timeout)
	}
	for _, bad := range []string{"0", "-5", "1.5", "'fast'", "600001"} {
		_, err := Load("mytool.ts", compileTS(t, withTimeout(bad)), Options{})
		if err == nil || !strings.Contains(err.Error(), "tool.timeout must be a whole number of milliseconds") {
			t.Errorf("timeout %s: want a refusal naming tool.timeout, got %v", bad, err)
		}
	}
}

func TestStringResultsAreBoundedInsideTheRuntime(t *testing.T) {
	t.Parallel()
	m := mustLoad(t, toolSrc(`return 'ab'.repeat(args.n);`), Options{Results: tool.ResultLimits{Cut: 1000, Hard: 100_000}})
	var s string
	if err := json.Unmarshal([]byte(mustCall(t, m, `{"n":10}`)), &s); err != nil || s != strings.Repeat("ab", 10) {
		t.Fatalf("a small string: %q %v", s, err)
	}
	if err := json.Unmarshal([]byte(mustCall(t, m, `{"n":5000}`)), &s); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s, strings.Repeat("ab", 500)+"\n\n[BarrHawk cut this result: the first 1000 of 10000 characters") {
		t.Errorf("a string over the cut: %.200q", s)
	}
	_, err := call(t, m, `{"n":60000}`)
	var te *tool.Error
	if !errors.As(err, &te) || te.Code != tool.CodeResultTooLarge || !strings.Contains(te.Message, "120000 characters") {
		t.Errorf("a string over the hard bound: want RESULT_TOO_LARGE, got %v", err)
	}
}

// TestObjectResultsAreBoundedInsideTheRuntime: the JSON of a result that is
// not a string is measured before it leaves JavaScript: over the cut it
// becomes the start of its JSON with a note, over the hard bound the call
// answers RESULT_TOO_LARGE.
func TestObjectResultsAreBoundedInsideTheRuntime(t *testing.T) {
	t.Parallel()
	m := mustLoad(t, toolSrc(`return { items: Array.from({ length: args.n }, (_, i) => 'item' + i) };`), Options{Results: tool.ResultLimits{Cut: 1000, Hard: 100_000}})
	jsonEq(t, mustCall(t, m, `{"n":2}`), `{"items":["item0","item1"]}`)
	var s string
	if err := json.Unmarshal([]byte(mustCall(t, m, `{"n":1000}`)), &s); err != nil {
		t.Fatal(err)
	}
	items := make([]string, 1000)
	for i := range items {
		items[i] = fmt.Sprint("item", i)
	}
	whole, _ := json.Marshal(map[string]any{"items": items})
	prefix, note, ok := strings.Cut(s, "\n\n[BarrHawk cut this result: ")
	if !ok || prefix != string(whole[:1000]) || !strings.HasPrefix(note, fmt.Sprintf("the first 1000 of %d characters of JSON are shown", len(whole))) {
		t.Errorf("an object over the cut: %.200q … %.300q", s, note)
	}
	_, err := call(t, m, `{"n":20000}`)
	if err == nil || err.Code != tool.CodeResultTooLarge || !strings.Contains(err.Message, "tools.maxResultHardBytes") {
		t.Errorf("an object over the hard bound: want RESULT_TOO_LARGE, got %v", err)
	}
}

// TestCutStringsStayWholeCharacters: a string cut in the runtime is at most
// the cut in UTF-8 bytes, ends on a whole character (never half a
// surrogate pair), and the note counts JavaScript characters.
func TestCutStringsStayWholeCharacters(t *testing.T) {
	t.Parallel()
	m := mustLoad(t, toolSrc(`return args.unit.repeat(args.n);`), Options{Results: tool.ResultLimits{Cut: 1000, Hard: 100_000}})
	for _, tc := range []struct {
		unit  string
		shown int // whole units kept
		chars int // JavaScript characters a unit counts
	}{{"é", 500, 1}, {"😀", 250, 2}, {"a😀", 200, 3}} {
		var s string
		if err := json.Unmarshal([]byte(mustCall(t, m, fmt.Sprintf(`{"unit":%q,"n":3000}`, tc.unit))), &s); err != nil {
			t.Fatal(err)
		}
		text, note, _ := strings.Cut(s, "\n\n[BarrHawk cut")
		if text != strings.Repeat(tc.unit, tc.shown) || !utf8.ValidString(text) {
			t.Errorf("%q: kept %d bytes %.40q…", tc.unit, len(text), text)
		}
		if want := fmt.Sprintf("the first %d of %d characters", tc.shown*tc.chars, 3000*tc.chars); !strings.Contains(note, want) {
			t.Errorf("%q: note %.100q, want %q", tc.unit, note, want)
		}
	}
}

// TestThrownTextIsBounded: a tool that throws a huge string or an Error
// with a huge message fails with its start and a note, copied out of the
// runtime only that far.
func TestThrownTextIsBounded(t *testing.T) {
	t.Parallel()
	opts := Options{Results: tool.ResultLimits{Cut: 1000, Hard: 100_000}}
	for _, body := range []string{`throw 'x'.repeat(5_000_000);`, `throw new Error('x'.repeat(5_000_000));`} {
		m := mustLoad(t, toolSrc(body), opts)
		_, err := call(t, m, `{}`)
		if err == nil || err.Code != tool.CodeToolError || !strings.Contains(err.Message, "xxxx") || !strings.Contains(err.Message, "[BarrHawk cut this error message: the first 1000 of ") || len(err.Message) > 3000 {
			t.Errorf("%s: %.200v", body, err)
		}
	}
}

// TestDroppedModulesGoAtTheNextCollection: modules that were called and
// then dropped (dynamic tools replaced or deleted) are freed, with their
// kept runtimes, by the next garbage collection, not held on for more (a
// sync.Pool would hold every one made since the collection before,
// growing an Igor under create/delete churn). The collector is off while
// they are made, so that the one collection after is the first they meet;
// a few may be freed late (the cleanups run on their own goroutine).
func TestDroppedModulesGoAtTheNextCollection(t *testing.T) {
	const n, atLeast = 30, 25
	var freed atomic.Int32
	old := debug.SetGCPercent(-1)
	for range n {
		loadCallAndDrop(t, &freed)
	}
	debug.SetGCPercent(old)
	runtime.GC()
	deadline := time.Now().Add(5 * time.Second)
	for freed.Load() < atLeast && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := freed.Load(); got < atLeast {
		t.Fatalf("%d of %d dropped modules were freed by the collection after (want at least %d)", got, n, atLeast)
	}
}

//go:noinline
func loadCallAndDrop(t *testing.T, freed *atomic.Int32) {
	m := mustLoad(t, toolSrc(`return args.n + 1;`), Options{})
	if out := mustCall(t, m, `{"n":1}`); out != "2" {
		t.Fatalf("call: %s", out)
	}
	runtime.AddCleanup(m, func(c *atomic.Int32) { c.Add(1) }, freed)
}
