package jsrt

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
)

func testServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Test", "yes")
		fmt.Fprint(w, `{"hello":"world","n":[1,2]}`)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, "%s|%s|%s|%s", r.Method, r.Header.Get("X-Token"), r.Header.Get("Content-Type"), body)
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, strings.Repeat("x", 4096))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestFetch(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	tests := []struct {
		name, body string
		want       string
		code       string
		contains   string
	}{
		{name: "json", body: `const r = await ctx.fetch(args.base + '/json');
			return { status: r.status, ok: r.ok, statusText: r.statusText, json: r.json(), text: r.text().length,
			  header: r.headers['x-test'], get: r.headers.get('Content-Type'), has: r.headers.has('X-TEST'), none: r.headers.get('nope') };`,
			want: `{"status":200,"ok":true,"statusText":"OK","json":{"hello":"world","n":[1,2]},"text":27,"header":"yes","get":"application/json","has":true,"none":null}`},
		{name: "post", body: `const r = await ctx.fetch(args.base + '/echo', { method: 'post', headers: { 'X-Token': 't1' }, body: { a: 1 } });
			return [r.status, r.ok, r.text()];`,
			want: `[201,true,"POST|t1|application/json|{\"a\":1}"]`},
		{name: "then chain", body: `return ctx.fetch(args.base + '/json').then((r: any) => r.json()).then((j: any) => j.hello);`, want: `"world"`},
		{name: "404", body: `const r = await ctx.fetch(args.base + '/missing'); return [r.status, r.ok, r.statusText];`, want: `[404,false,"Not Found"]`},
		{name: "size cap", body: `return (await ctx.fetch(args.base + '/big')).text();`, code: tool.CodeToolError, contains: "response body exceeds the 1024-byte limit"},
		{name: "size cap catchable", body: `try { await ctx.fetch(args.base + '/big'); } catch (e) { return String(e); } return 'no';`,
			want: `"Error: ctx.fetch GET ` + srv.URL + `/big: response body exceeds the 1024-byte limit"`},
		{name: "timeout option", body: `return await ctx.fetch(args.base + '/slow', { timeout: 50 });`, code: tool.CodeToolError, contains: "timed out after 50ms"},
		{name: "file scheme", body: `return (await ctx.fetch('file:///etc/passwd')).text();`, code: tool.CodeForbidden, contains: `only http and https URLs are allowed, got a "file" URL`},
		{name: "ftp scheme", body: `return await ctx.fetch('ftp://127.0.0.1/x');`, code: tool.CodeForbidden, contains: `got a "ftp" URL`},
		{name: "relative url", body: `return await ctx.fetch('/json');`, code: tool.CodeToolError, contains: "TypeError: ctx.fetch: invalid URL"},
		{name: "connection refused", body: `return await ctx.fetch('http://127.0.0.1:1/');`, code: tool.CodeToolError, contains: "ctx.fetch GET http://127.0.0.1:1/:"},
		{name: "parallel fetches", body: `const rs = await Promise.all([1, 2, 3].map(() => ctx.fetch(args.base + '/json')));
			return rs.map((r: any) => r.json().n.length);`, want: `[2,2,2]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := mustLoad(t, toolSrc(tc.body, "network"), Options{FetchMaxBytes: 1024})
			out, err := call(t, m, fmt.Sprintf(`{"base":%q}`, srv.URL))
			wantOutcome(t, out, err, tc.want, tc.code, tc.contains)
		})
	}
}

func TestFetchAbandonedAtCallEnd(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	// The handler returns without awaiting a slow fetch: the call ends at
	// once and the request is cancelled.
	m := mustLoad(t, toolSrc(`ctx.fetch(args.base + '/slow').catch(() => {}); return 'done';`, "network"), Options{})
	start := time.Now()
	out := mustCall(t, m, fmt.Sprintf(`{"base":%q}`, srv.URL))
	if out != `"done"` || time.Since(start) > time.Second {
		t.Fatalf("out %s after %v", out, time.Since(start))
	}
}

func TestFS(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	m := mustLoad(t, toolSrc(`
		const fs = ctx.fs;
		switch (args.op) {
		case 'roundtrip':
			fs.mkdir('sub/deeper');
			fs.writeFile('sub/a.txt', 'alpha');
			fs.writeFile('sub/b.txt', 'beta');
			fs.writeFile(args.abs, 'absolute inside');
			const r = [fs.readFile('sub/a.txt'), fs.readdir('sub'), fs.exists('sub/b.txt'), fs.exists('sub/nope'), fs.readFile('abs.txt')];
			fs.remove('sub/b.txt');
			fs.remove('sub', { recursive: true });
			return [...r, fs.exists('sub'), fs.readdir('.').filter((n: string) => n !== 'link')];
		case 'enoent':
			try { fs.readFile('missing.txt'); } catch (e: any) { return [e.code, e.message]; }
			return 'no error';
		default:
			return fs[args.op](...args.args);
		}`, "filesystem"), Options{FSRoot: root})

	out := mustCall(t, m, fmt.Sprintf(`{"op":"roundtrip","abs":%q}`, filepath.Join(root, "abs.txt")))
	jsonEq(t, out, `["alpha",["a.txt","b.txt","deeper"],true,false,"absolute inside",false,["abs.txt"]]`)
	jsonEq(t, mustCall(t, m, `{"op":"enoent"}`), `["ENOENT","ctx.fs.readFile \"missing.txt\": no such file or directory"]`)

	refused := []struct{ op, args string }{
		{"readFile", `["../x"]`},
		{"readFile", `["sub/../../x"]`},
		{"readFile", `["/etc/passwd"]`},
		{"readFile", fmt.Sprintf(`[%q]`, filepath.Join(outside, "secret.txt"))},
		{"readFile", `["link/secret.txt"]`},
		{"writeFile", `["../evil.txt", "x"]`},
		{"writeFile", `["link/evil.txt", "x"]`},
		{"readdir", `[".."]`},
		{"readdir", `["/"]`},
		{"exists", `["../"]`},
		{"mkdir", `["../newdir"]`},
		{"remove", `["../secret.txt"]`},
		{"remove", `["."]`},
	}
	for _, tc := range refused {
		t.Run(tc.op+tc.args, func(t *testing.T) {
			t.Parallel()
			_, err := call(t, m, fmt.Sprintf(`{"op":%q,"args":%s}`, tc.op, tc.args))
			if err == nil || err.Code != tool.CodeForbidden {
				t.Fatalf("err = %v, want %s", err, tool.CodeForbidden)
			}
			if !strings.Contains(err.Message, "filesystem root") {
				t.Errorf("message %q does not say why", err.Message)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(outside, "evil.txt")); err == nil {
		t.Error("a write escaped the root")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), "evil.txt")); err == nil {
		t.Error("a write escaped the root")
	}
}

func TestFSWithoutRoot(t *testing.T) {
	t.Parallel()
	m := mustLoad(t, toolSrc(`return ctx.fs.readdir('.');`, "filesystem"), Options{})
	_, err := call(t, m, `{}`)
	if err == nil || err.Code != tool.CodeForbidden || !strings.Contains(err.Message, "no filesystem root is configured") {
		t.Fatalf("err = %v", err)
	}
}
