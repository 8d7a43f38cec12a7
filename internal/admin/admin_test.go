package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/testsupport/lockedbuf"
	"github.com/barrhawk/barrhawk/internal/tool"
)

const testToken = "s3cret-token"

// fakeBackend records calls and answers with canned values.
type fakeBackend struct {
	mu        sync.Mutex
	calls     []string // "tool <name> <args>", "reload", "delete <name>", "shutdown"
	health    Health
	tools     []ToolInfo
	callRes   json.RawMessage
	callErr   *tool.Error
	reloaded  []string
	reloadErr error
	deleteErr error
	block     chan struct{} // if set, Call waits for it (or ctx)
	entered   chan struct{} // if set, Call signals here first
	shutdown  chan struct{}
	cancelled chan struct{} // if set, closed when a blocked Call sees ctx end
}

func (f *fakeBackend) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

func (f *fakeBackend) recorded() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeBackend) Health() Health    { f.record("health"); return f.health }
func (f *fakeBackend) Tools() []ToolInfo { f.record("tools"); return f.tools }
func (f *fakeBackend) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, *tool.Error) {
	f.record("tool " + name + " " + string(args))
	if f.entered != nil {
		f.entered <- struct{}{}
	}
	if f.block != nil {
		select {
		case <-f.block:
		case <-ctx.Done():
			if f.cancelled != nil {
				close(f.cancelled)
			}
			return nil, tool.Errorf(tool.CodeCancelled, "cancelled")
		}
	}
	return f.callRes, f.callErr
}
func (f *fakeBackend) Reload(context.Context) ([]string, error) {
	f.record("reload")
	return f.reloaded, f.reloadErr
}
func (f *fakeBackend) DeleteTool(_ context.Context, name string) error {
	f.record("delete " + name)
	return f.deleteErr
}
func (f *fakeBackend) Shutdown() {
	f.record("shutdown")
	if f.shutdown != nil {
		close(f.shutdown)
	}
}

func newServer(t *testing.T, b *fakeBackend) *httptest.Server {
	t.Helper()
	h, err := NewHandler(b, testToken, slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatalf("NewHandler: %v", err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

type response struct {
	status int
	header http.Header
	body   string
}

func do(t *testing.T, srv *httptest.Server, method, path, auth string, body io.Reader) response {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return response{resp.StatusCode, resp.Header, string(b)}
}

// jsonEq reports whether two JSON texts hold the same value.
func jsonEq(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("response is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want: %v", err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if !bytes.Equal(gb, wb) {
		t.Errorf("body\n got: %s\nwant: %s", gb, wb)
	}
}

func errorText(t *testing.T, body string) string {
	t.Helper()
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error == "" {
		t.Fatalf("want a JSON {\"error\": ...}, got %q (%v)", body, err)
	}
	return e.Error
}

func TestNewHandlerRefusesBadConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		b     Backend
		token string
		want  string
	}{
		{"empty token", &fakeBackend{}, "", "no token"},
		{"space in token", &fakeBackend{}, "ab cd", "whitespace"},
		{"newline in token", &fakeBackend{}, "abcd\n", "whitespace"},
		{"nil backend", nil, "tok", "no backend"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, err := NewHandler(tc.b, tc.token, nil)
			if err == nil || h != nil {
				t.Fatalf("NewHandler = %v, %v; want nil and an error", h, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func TestNewToken(t *testing.T) {
	t.Parallel()
	a, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewToken()
	if len(a) < 40 || a == b {
		t.Errorf("tokens %q, %q: want long and distinct", a, b)
	}
	if _, err := NewHandler(&fakeBackend{}, a, nil); err != nil {
		t.Errorf("NewHandler refuses a NewToken token: %v", err)
	}
}

func TestUnauthorized(t *testing.T) {
	t.Parallel()
	b := &fakeBackend{}
	srv := newServer(t, b)
	for _, tc := range []struct {
		name, method, path, auth string
		invalid                  bool
	}{
		{"no header", "GET", "/health", "", false},
		{"wrong token", "GET", "/health", "Bearer nope", true},
		{"token prefix", "GET", "/health", "Bearer " + testToken[:5], true},
		{"token plus extra", "GET", "/health", "Bearer " + testToken + "x", true},
		{"basic scheme", "GET", "/tools", "Basic " + testToken, true},
		{"empty bearer", "GET", "/tools", "Bearer ", true},
		{"token without scheme", "GET", "/tools", testToken, true},
		{"shutdown", "POST", "/shutdown", "Bearer wrong", true},
		{"call", "POST", "/call", "", false},
		{"delete", "DELETE", "/tools/x", "", false},
		{"unknown path", "GET", "/nope", "", false},
		{"wrong method", "PUT", "/health", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := do(t, srv, tc.method, tc.path, tc.auth, strings.NewReader(`{"tool":"x"}`))
			if r.status != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401; body %s", r.status, r.body)
			}
			ch := r.header.Get("WWW-Authenticate")
			if !strings.HasPrefix(ch, "Bearer") {
				t.Errorf("WWW-Authenticate = %q, want a Bearer challenge", ch)
			}
			if got := strings.Contains(ch, `error="invalid_token"`); got != tc.invalid {
				t.Errorf("WWW-Authenticate = %q; invalid_token present %v, want %v", ch, got, tc.invalid)
			}
			errorText(t, r.body)
		})
	}
	if c := b.recorded(); len(c) != 0 {
		t.Errorf("backend was called without a valid token: %v", c)
	}
}

func TestSchemeIsCaseInsensitive(t *testing.T) {
	t.Parallel()
	srv := newServer(t, &fakeBackend{health: Health{Status: "healthy"}})
	r := do(t, srv, "GET", "/health", "bearer "+testToken, nil)
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
}

func TestHealth(t *testing.T) {
	t.Parallel()
	last := "igor-1 died"
	for _, tc := range []struct {
		name string
		h    Health
		want string
	}{
		{"seed", Health{Status: "healthy", Uptime: 3600000, ToolCount: 36, MemoryUsage: MemoryUsage{HeapUsed: 1553784, HeapTotal: 1936384}},
			`{"status":"healthy","uptime":3600000,"toolCount":36,"lastError":null,"memoryUsage":{"heapUsed":1553784,"heapTotal":1936384}}`},
		{"last error", Health{Status: "degraded", Uptime: 5, ToolCount: 1, LastError: &last},
			`{"status":"degraded","uptime":5,"toolCount":1,"lastError":"igor-1 died","memoryUsage":{"heapUsed":0,"heapTotal":0}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, &fakeBackend{health: tc.h})
			r := do(t, srv, "GET", "/health", "Bearer "+testToken, nil)
			if r.status != http.StatusOK {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
			jsonEq(t, r.body, tc.want)
		})
	}
}

func TestTools(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		tools []ToolInfo
		want  string
	}{
		{"none", nil, `[]`},
		{"two", []ToolInfo{
			{Name: "hello_world", Description: "A simple greeting tool", InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)},
			{Name: "hash_text", Description: "Hash <text>", InputSchema: json.RawMessage(`{"type":"object"}`)},
		}, `[{"name":"hello_world","description":"A simple greeting tool","inputSchema":{"type":"object","properties":{"name":{"type":"string"}}}},
		     {"name":"hash_text","description":"Hash <text>","inputSchema":{"type":"object"}}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, &fakeBackend{tools: tc.tools})
			r := do(t, srv, "GET", "/tools", "Bearer "+testToken, nil)
			if r.status != http.StatusOK {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			jsonEq(t, r.body, tc.want)
			if strings.Contains(r.body, `\u003c`) {
				t.Errorf("HTML escaping in body: %s", r.body)
			}
		})
	}
}

func TestToolsBadSchemaIs500(t *testing.T) {
	t.Parallel()
	srv := newServer(t, &fakeBackend{tools: []ToolInfo{{Name: "x", InputSchema: json.RawMessage(`{broken`)}}})
	r := do(t, srv, "GET", "/tools", "Bearer "+testToken, nil)
	if r.status != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500: %s", r.status, r.body)
	}
	errorText(t, r.body)
}

func TestCall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		body     string
		res      json.RawMessage
		terr     *tool.Error
		want     string
		wantCall string
	}{
		{"seed success", `{"tool":"hello_world","args":{"name":"World"}}`,
			json.RawMessage(`{ "greeting": "Hello, World!" }`), nil,
			`{"content":[{"type":"text","text":"{ \"greeting\": \"Hello, World!\" }"}]}`,
			`tool hello_world {"name":"World"}`},
		{"args omitted", `{"tool":"now"}`, json.RawMessage(`"12:00"`), nil,
			`{"content":[{"type":"text","text":"\"12:00\""}]}`, `tool now {}`},
		{"args null", `{"tool":"now","args":null}`, nil, nil,
			`{"content":[{"type":"text","text":"null"}]}`, `tool now {}`},
		{"tool error", `{"tool":"hello_world","args":{}}`, nil,
			tool.Errorf(tool.CodeToolError, "Something went wrong"),
			`{"content":[{"type":"text","text":"Tool: hello_world\nError: TOOL_ERROR: Something went wrong"}],"isError":true}`,
			`tool hello_world {}`},
		{"tool error with stack", `{"tool":"boom","args":{"a":1}}`, nil,
			&tool.Error{Code: tool.CodeToolPanic, Message: "nil map", Stack: "at boom (boom.ts:3)\nat run"},
			`{"content":[{"type":"text","text":"Tool: boom\nError: TOOL_PANIC: nil map\n\nStack trace:\nat boom (boom.ts:3)\nat run"}],"isError":true}`,
			`tool boom {"a":1}`},
		{"unknown tool", `{"tool":"nope","args":{}}`, nil, tool.Errorf(tool.CodeUnknownTool, `no tool "nope"`),
			`{"content":[{"type":"text","text":"Tool: nope\nError: UNKNOWN_TOOL: no tool \"nope\""}],"isError":true}`, `tool nope {}`},
		{"html stays literal", `{"tool":"t","args":{}}`, json.RawMessage(`"<b>&</b>"`), nil,
			`{"content":[{"type":"text","text":"\"<b>&</b>\""}]}`, `tool t {}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := &fakeBackend{callRes: tc.res, callErr: tc.terr}
			srv := newServer(t, b)
			r := do(t, srv, "POST", "/call", "Bearer "+testToken, strings.NewReader(tc.body))
			if r.status != http.StatusOK {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			jsonEq(t, r.body, tc.want)
			if c := b.recorded(); len(c) != 1 || c[0] != tc.wantCall {
				t.Errorf("backend calls %q, want [%q]", c, tc.wantCall)
			}
		})
	}
}

func TestCallMalformed(t *testing.T) {
	t.Parallel()
	b := &fakeBackend{}
	srv := newServer(t, b)
	for _, tc := range []struct {
		name, body, want string
	}{
		{"empty", ``, "empty"},
		{"whitespace", "  \n", "empty"},
		{"not json", `{"tool":`, "not valid JSON"},
		{"garbage", `hello`, "not valid JSON"},
		{"trailing data", `{"tool":"a"} {"tool":"b"}`, "not valid JSON"},
		{"array", `[{"tool":"a"}]`, "must be a JSON object, got an array"},
		{"null", `null`, "must be a JSON object, got null"},
		{"missing tool", `{"args":{}}`, `missing field "tool"`},
		{"tool number", `{"tool":3}`, `"tool" must be a string, got a number`},
		{"tool null", `{"tool":null}`, `"tool" must be a string, got null`},
		{"tool empty", `{"tool":""}`, `"tool" is empty`},
		{"args array", `{"tool":"a","args":[1]}`, `"args" must be a JSON object, got an array`},
		{"args string", `{"tool":"a","args":"{}"}`, `"args" must be a JSON object, got a string`},
		{"mcp-style names", `{"name":"a","arguments":{}}`, `unknown field "arguments", "name"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := do(t, srv, "POST", "/call", "Bearer "+testToken, strings.NewReader(tc.body))
			if r.status != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", r.status, r.body)
			}
			msg := errorText(t, r.body)
			if !strings.Contains(msg, tc.want) {
				t.Errorf("error %q does not contain %q", msg, tc.want)
			}
			if !strings.Contains(msg, `{"tool": "<name>", "args": {...}}`) {
				t.Errorf("error %q does not show the expected shape", msg)
			}
		})
	}
	if c := b.recorded(); len(c) != 0 {
		t.Errorf("backend called for malformed bodies: %v", c)
	}
}

func TestCallCancelledWhenClientLeaves(t *testing.T) {
	t.Parallel()
	b := &fakeBackend{block: make(chan struct{}), entered: make(chan struct{}, 1), cancelled: make(chan struct{})}
	srv := newServer(t, b)
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/call", strings.NewReader(`{"tool":"slow"}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	errc := make(chan error, 1)
	go func() {
		resp, err := srv.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	<-b.entered
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("request succeeded after cancel")
	}
	select {
	case <-b.cancelled:
	case <-time.After(5 * time.Second):
		close(b.block) // let cleanup finish
		t.Fatal("Backend.Call's ctx did not end when the client left")
	}
}

func TestRequestLog(t *testing.T) {
	t.Parallel()
	var buf lockedbuf.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h, err := NewHandler(&fakeBackend{}, testToken, log)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	do(t, srv, "GET", "/tools", "Bearer "+testToken, nil)
	do(t, srv, "GET", "/tools", "", nil)
	srv.Close() // waits for the handlers, which log after answering
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 2 {
		t.Fatalf("want 2 log lines, got %d: %s", len(lines), buf.String())
	}
	for i, status := range []float64{200, 401} {
		m := lines[i]
		if m["level"] != "DEBUG" || m["method"] != "GET" || m["path"] != "/tools" || m["status"] != status {
			t.Errorf("log line %d = %v; want DEBUG GET /tools %v", i, m, status)
		}
		if _, ok := m["duration"]; !ok {
			t.Errorf("log line %d has no duration: %v", i, m)
		}
	}
}

func TestReload(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		loaded []string
		err    error
		status int
		want   string
	}{
		{"ok", []string{"hello_world", "json_validator"}, nil, 200, `{"success":true,"loaded":["hello_world","json_validator"]}`},
		{"none loaded", nil, nil, 200, `{"success":true,"loaded":[]}`},
		{"failure", nil, errors.New("compile bad_tool.ts: unexpected token"), 500, `{"success":false,"error":"compile bad_tool.ts: unexpected token"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := &fakeBackend{reloaded: tc.loaded, reloadErr: tc.err}
			srv := newServer(t, b)
			r := do(t, srv, "POST", "/reload", "Bearer "+testToken, nil)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			jsonEq(t, r.body, tc.want)
			if c := b.recorded(); len(c) != 1 || c[0] != "reload" {
				t.Errorf("backend calls %v", c)
			}
		})
	}
}

func TestDeleteTool(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path string
		err        error
		status     int
		want       string
		wantCall   string
	}{
		{"ok", "/tools/hello_world", nil, 200, `{"success":true}`, "delete hello_world"},
		{"not found", "/tools/ghost", tool.Errorf(tool.CodeNotFound, `tool "ghost" not found`), 404,
			`{"success":false,"error":"NOT_FOUND: tool \"ghost\" not found"}`, "delete ghost"},
		{"unknown tool", "/tools/ghost", tool.Errorf(tool.CodeUnknownTool, `no tool "ghost"`), 404,
			`{"success":false,"error":"UNKNOWN_TOOL: no tool \"ghost\""}`, "delete ghost"},
		{"protected", "/tools/dynamic_tool_create", tool.Errorf(tool.CodeForbidden, "dynamic_tool_create is protected"), 403,
			`{"success":false,"error":"FORBIDDEN: dynamic_tool_create is protected"}`, "delete dynamic_tool_create"},
		{"wrapped forbidden", "/tools/x", fmt.Errorf("delete: %w", tool.Errorf(tool.CodeForbidden, "built-in")), 403,
			`{"success":false,"error":"delete: FORBIDDEN: built-in"}`, "delete x"},
		{"invalid name", "/tools/x", tool.Errorf(tool.CodeInvalidArgs, "bad name"), 400,
			`{"success":false,"error":"INVALID_ARGS: bad name"}`, "delete x"},
		{"other tool error", "/tools/x", tool.Errorf(tool.CodeInternal, "disk full"), 500,
			`{"success":false,"error":"INTERNAL: disk full"}`, "delete x"},
		{"plain error", "/tools/x", errors.New("rename: permission denied"), 500,
			`{"success":false,"error":"rename: permission denied"}`, "delete x"},
		{"escaped name", "/tools/my%20tool", nil, 200, `{"success":true}`, "delete my tool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := &fakeBackend{deleteErr: tc.err}
			srv := newServer(t, b)
			r := do(t, srv, "DELETE", tc.path, "Bearer "+testToken, nil)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			jsonEq(t, r.body, tc.want)
			if c := b.recorded(); len(c) != 1 || c[0] != tc.wantCall {
				t.Errorf("backend calls %q, want [%q]", c, tc.wantCall)
			}
		})
	}
}

func TestShutdown(t *testing.T) {
	t.Parallel()
	b := &fakeBackend{shutdown: make(chan struct{})}
	srv := newServer(t, b)
	r := do(t, srv, "POST", "/shutdown", "Bearer "+testToken, nil)
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	jsonEq(t, r.body, `{"success":true}`)
	select {
	case <-b.shutdown:
	case <-time.After(5 * time.Second):
		t.Fatal("Backend.Shutdown not called")
	}
}

func TestRoutingErrors(t *testing.T) {
	t.Parallel()
	b := &fakeBackend{}
	srv := newServer(t, b)
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"POST", "/health", 405, "GET, HEAD"},
		{"DELETE", "/tools", 405, "GET, HEAD"},
		{"GET", "/call", 405, "POST"},
		{"PUT", "/call", 405, "POST"},
		{"GET", "/reload", 405, "POST"},
		{"GET", "/tools/hello_world", 405, "DELETE"},
		{"POST", "/tools/hello_world", 405, "DELETE"},
		{"GET", "/shutdown", 405, "POST"},
		{"GET", "/", 404, ""},
		{"GET", "/nope", 404, ""},
		{"GET", "/health/extra", 404, ""},
		{"DELETE", "/tools/", 404, ""},
		{"DELETE", "/tools/a/b", 404, ""},
		{"POST", "/tools/a/b", 404, ""},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			t.Parallel()
			r := do(t, srv, tc.method, tc.path, "Bearer "+testToken, nil)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			if got := r.header.Get("Allow"); got != tc.allow {
				t.Errorf("Allow = %q, want %q", got, tc.allow)
			}
			msg := errorText(t, r.body)
			if tc.status == 404 && !strings.Contains(msg, "GET /health") {
				t.Errorf("404 error %q does not list the endpoints", msg)
			}
			if tc.status == 405 && !strings.Contains(msg, tc.method) {
				t.Errorf("405 error %q does not name the method", msg)
			}
		})
	}
	if c := b.recorded(); len(c) != 0 {
		t.Errorf("backend called on routing errors: %v", c)
	}
}

func TestHeadHealth(t *testing.T) {
	t.Parallel()
	srv := newServer(t, &fakeBackend{health: Health{Status: "healthy"}})
	r := do(t, srv, "HEAD", "/health", "Bearer "+testToken, nil)
	if r.status != http.StatusOK || r.body != "" {
		t.Fatalf("HEAD /health: %d %q", r.status, r.body)
	}
}

// sizedReader yields n bytes of a JSON string inside a /call body, without
// holding them in memory.
func callBodyOfSize(n int) io.Reader {
	head := `{"tool":"t","args":{"s":"`
	tail := `"}}`
	pad := n - len(head) - len(tail)
	return io.MultiReader(strings.NewReader(head), io.LimitReader(repeatReader('a'), int64(pad)), strings.NewReader(tail))
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		size    int
		chunked bool // hide the length, so the cap is hit while reading
		status  int
	}{
		{"at limit", MaxBodyBytes, false, 200},
		{"over limit, Content-Length", MaxBodyBytes + 1, false, 413},
		{"over limit, chunked", MaxBodyBytes + 1, true, 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := &fakeBackend{callRes: json.RawMessage(`true`)}
			srv := newServer(t, b)
			var body io.Reader = callBodyOfSize(tc.size)
			req, _ := http.NewRequest("POST", srv.URL+"/call", body)
			if tc.chunked {
				req.ContentLength = -1
				req.Body = io.NopCloser(body)
			} else {
				req.ContentLength = int64(tc.size)
			}
			req.Header.Set("Authorization", "Bearer "+testToken)
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatalf("POST /call: %v", err)
			}
			defer resp.Body.Close()
			data, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, data)
			}
			calls := b.recorded()
			if tc.status == 413 {
				if msg := errorText(t, string(data)); !strings.Contains(msg, "10 MiB") {
					t.Errorf("413 error %q does not state the limit", msg)
				}
				if len(calls) != 0 {
					t.Errorf("backend called for an oversized body")
				}
			} else if len(calls) != 1 {
				t.Errorf("backend calls: %d, want 1", len(calls))
			}
		})
	}
}

func TestPanicIs500(t *testing.T) {
	t.Parallel()
	h, err := NewHandler(&panicky{}, testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	r := do(t, srv, "GET", "/health", "Bearer "+testToken, nil)
	if r.status != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500: %s", r.status, r.body)
	}
	if msg := errorText(t, r.body); !strings.Contains(msg, "boom") {
		t.Errorf("error %q does not carry the panic", msg)
	}
}

type panicky struct{ fakeBackend }

func (*panicky) Health() Health { panic("boom") }

func TestCheckAddress(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr        string
		allowRemote bool
		wantErr     string // "" for ok
	}{
		{"127.0.0.1:0", false, ""},
		{"127.0.0.1:8766", false, ""},
		{"127.1.2.3:0", false, ""},
		{"[::1]:0", false, ""},
		{"localhost:0", false, ""},
		{"LOCALHOST:9000", false, ""},
		{"[::ffff:127.0.0.1]:0", false, ""},
		{"0.0.0.0:0", false, AllowRemoteFlag},
		{"10.0.0.1:0", false, AllowRemoteFlag},
		{"[::]:0", false, AllowRemoteFlag},
		{":8766", false, "every interface"},
		{"example.com:80", false, AllowRemoteFlag},
		{"0.0.0.0:0", true, ""},
		{"10.0.0.1:0", true, ""},
		{":8766", true, ""},
		{"garbage", false, "want host:port"},
		{"garbage", true, "want host:port"},
		{"127.0.0.1", false, "want host:port"},
		{"127.0.0.1:", false, "no port"},
		{"127.0.0.1:http", false, "not a number"},
		{"127.0.0.1:70000", false, "not a number"},
	} {
		t.Run(fmt.Sprintf("%s allow=%v", tc.addr, tc.allowRemote), func(t *testing.T) {
			t.Parallel()
			err := CheckAddress(tc.addr, tc.allowRemote)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("CheckAddress: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("CheckAddress accepted it")
			}
			if !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), tc.addr) {
				t.Errorf("error %q should name the address and contain %q", err, tc.wantErr)
			}
		})
	}
}

func TestServe(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		t.Run(addr, func(t *testing.T) {
			t.Parallel()
			h, err := NewHandler(&fakeBackend{health: Health{Status: "healthy"}}, testToken, nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			bound, done, err := Serve(ctx, addr, false, h)
			if err != nil {
				t.Fatalf("Serve: %v", err)
			}
			ta, ok := bound.(*net.TCPAddr)
			if !ok || ta.Port == 0 || !ta.IP.IsLoopback() {
				t.Fatalf("bound address %v: want a loopback address with a real port", bound)
			}
			url := "http://" + bound.String() + "/health"
			req, _ := http.NewRequest("GET", url, nil)
			req.Header.Set("Authorization", "Bearer "+testToken)
			client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatalf("GET %s: %v", url, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(body), `"healthy"`) {
				t.Fatalf("GET /health: %d %s", resp.StatusCode, body)
			}

			cancel()
			select {
			case err, ok := <-done:
				if !ok || err != nil {
					t.Fatalf("done = %v, %v; want nil, true", err, ok)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("server did not stop after ctx was cancelled")
			}
			if _, ok := <-done; ok {
				t.Error("done not closed after its value")
			}
			if c, err := net.DialTimeout("tcp", bound.String(), time.Second); err == nil {
				c.Close()
				t.Error("still accepting connections after stop")
			}
		})
	}
}

func TestServeRefusesRemote(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", "10.0.0.1:0", "nonsense"} {
		t.Run(addr, func(t *testing.T) {
			t.Parallel()
			h, _ := NewHandler(&fakeBackend{}, testToken, nil)
			bound, done, err := Serve(t.Context(), addr, false, h)
			if err == nil || bound != nil || done != nil {
				t.Fatalf("Serve(%q) = %v, %v, %v; want a refusal", addr, bound, done, err)
			}
			if !strings.Contains(err.Error(), addr) {
				t.Errorf("error %q does not name the address", err)
			}
		})
	}
}

func TestServeListenError(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	h, _ := NewHandler(&fakeBackend{}, testToken, nil)
	if _, _, err := Serve(t.Context(), ln.Addr().String(), false, h); err == nil {
		t.Fatal("Serve on a port in use succeeded")
	}
}

// On ctx cancel, an in-flight call still gets its answer.
func TestServeGraceful(t *testing.T) {
	t.Parallel()
	b := &fakeBackend{block: make(chan struct{}), entered: make(chan struct{}, 1), callRes: json.RawMessage(`"done"`)}
	h, _ := NewHandler(b, testToken, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	bound, done, err := Serve(ctx, "127.0.0.1:0", false, h)
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		status int
		body   string
		err    error
	}
	ans := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("POST", "http://"+bound.String()+"/call", strings.NewReader(`{"tool":"slow"}`))
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			ans <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		ans <- answer{resp.StatusCode, string(b), err}
	}()
	<-b.entered
	cancel()
	select {
	case err := <-done:
		t.Fatalf("server stopped with a call in flight: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(b.block)
	a := <-ans
	if a.err != nil || a.status != 200 {
		t.Fatalf("in-flight call: %d %q %v", a.status, a.body, a.err)
	}
	jsonEq(t, a.body, `{"content":[{"type":"text","text":"\"done\""}]}`)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("done: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop")
	}
}
