package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStructuredContent: an object result also comes as structuredContent
// from protocol 2025-06-18 on, beside its text; before it, text only. A
// 2026-07-28 request, which names its version in _meta and needs no
// initialize, gets it too.
func TestStructuredContent(t *testing.T) {
	t.Parallel()
	const meta2026 = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"e2e","version":"1"}}`
	for _, c := range []struct {
		protocol string
		want     bool
	}{{"2025-06-18", true}, {"2025-11-25", true}, {"2025-03-26", false}, {"2026-07-28", true}} {
		t.Run(c.protocol, func(t *testing.T) {
			t.Parallel()
			lc := startLines(t, "")
			meta := ""
			if c.protocol >= "2026-07-28" {
				meta = meta2026
			} else {
				lc.initialize(c.protocol)
			}
			lc.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hash_text","arguments":{"text":"a","algorithm":"md5"}` + meta + `}}`)
			lc.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hash_text","arguments":{"text":1}` + meta + `}}`)
			r := lc.await("1")
			text, _ := toolText(t, "object result", r)
			res := r["result"].(map[string]any)
			sc, has := res["structuredContent"].(map[string]any)
			if has != c.want || has && sc["hash"] != "0cc175b9c0f1b6a831c399e269772661" {
				t.Errorf("structuredContent: want present=%v, got %v", c.want, res)
			}
			if !strings.Contains(text, "0cc175b9c0f1b6a831c399e269772661") {
				t.Errorf("the text part must stay: %v", res)
			}
			errRes := lc.await("2")["result"].(map[string]any)
			if _, has := errRes["structuredContent"]; has || errRes["isError"] != true {
				t.Errorf("an error result must be isError with text only: %v", errRes)
			}
		})
	}
}

// TestResourcesAreTheDynamicToolsAndSnapshots: initialize advertises
// resources and no prompts; the resources are the tools' sources and the
// snapshots, kept current with list_changed.
func TestResourcesAreTheDynamicToolsAndSnapshots(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	caps := s.session.InitializeResult().Capabilities
	if caps.Prompts != nil || caps.Resources == nil || !caps.Resources.ListChanged {
		t.Errorf("capabilities: want resources with listChanged and no prompts, got %+v", caps)
	}
	list := func() map[string]*mcp.Resource {
		res, err := s.session.ListResources(ctx, nil)
		if err != nil {
			t.Fatalf("resources/list: %v", err)
		}
		m := map[string]*mcp.Resource{}
		for _, r := range res.Resources {
			m[r.URI] = r
		}
		return m
	}
	snaps := 0
	for uri := range list() {
		if strings.HasPrefix(uri, "barrhawk://snapshots/initial_") {
			snaps++
		}
	}
	if snaps != 1 {
		t.Errorf("want the initial snapshot listed, got %v", list())
	}
	drain(s.resourcesChanged)
	s.mustCall("dynamic_tool_create", reverseArgs("return { reversed: (args.text as string).split('').reverse().join('') };"))
	select {
	case <-s.resourcesChanged:
	case <-ctx.Done():
		t.Fatal("no notifications/resources/list_changed after dynamic_tool_create")
	}
	waitFor(t, "the new tool's source among the resources", func() bool { return list()["barrhawk://dynamic-tools/reverse_string.ts"] != nil })
	rr, err := s.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "barrhawk://dynamic-tools/reverse_string.ts"})
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, "reverse()") || rr.Contents[0].MIMEType != "text/typescript" {
		t.Fatalf("resources/read of the source: %v %+v", err, rr)
	}
	snap := s.mustCall("worker_snapshot", map[string]any{"name": "with_reverse"})
	uri := "barrhawk://snapshots/" + snap["snapshot"].(string)
	waitFor(t, "the new snapshot among the resources", func() bool { return list()[uri] != nil })
	rr, err = s.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil || !strings.Contains(rr.Contents[0].Text, `"reverse_string.ts"`) || !strings.Contains(rr.Contents[0].Text, "sha256") {
		t.Fatalf("resources/read of the snapshot: %v %+v", err, rr)
	}
	if _, err := s.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "barrhawk://dynamic-tools/nope.ts"}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("reading a missing resource: %v", err)
	}
	s.mustCall("dynamic_tool_delete", map[string]any{"name": "reverse_string"})
	waitFor(t, "the deleted tool's source gone from the resources", func() bool { return list()["barrhawk://dynamic-tools/reverse_string.ts"] == nil })
}

// TestHTTPBearerToken: with mcp.token set, the MCP endpoint over HTTP asks
// for it.
func TestHTTPBearerToken(t *testing.T) {
	t.Parallel()
	addr := freePort(t)
	home := t.TempDir()
	cmd := exec.Command(bin, "serve", "--http", addr, "--stdio=false")
	cmd.Env = append(os.Environ(), "HOME="+home, "BARRHAWK_LOG_LEVEL=warn", "BARRHAWK_MCP_TOKEN=s3cret-token")
	cmd.Stderr = testWriter{t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	url := "http://" + addr + "/"
	initBody := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	post := func(auth string) (*http.Response, string) {
		t.Helper()
		resp := doUntilUp(t, func() *http.Request {
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initBody))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			return req
		})
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	for _, auth := range []string{"", "Bearer wrong", "Basic czNjcmV0"} {
		resp, body := post(auth)
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") ||
			!strings.Contains(body, `"code":-32600`) || !strings.Contains(body, "BARRHAWK_MCP_TOKEN") {
			t.Errorf("Authorization %q: want 401 with a JSON-RPC error naming the token, got %d %s", auth, resp.StatusCode, body)
		}
	}
	if resp, body := post("Bearer s3cret-token"); resp.StatusCode != http.StatusOK || !strings.Contains(body, "protocolVersion") {
		t.Errorf("with the token: %d %s", resp.StatusCode, body)
	}
	// A client passing the header works end to end.
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-token", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hc := &http.Client{Transport: headerTransport{"Authorization": "Bearer s3cret-token"}}
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("connect with the token: %v", err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "hash_text", Arguments: map[string]any{"text": "hello", "algorithm": "md5"}})
	if err != nil || !strings.Contains(text(res), "5d41402abc4b2a76b9719d911017c592") {
		t.Fatalf("call with the token: %v %v", err, res)
	}
	// Over HTTP too an object result is structuredContent (the SDK's path,
	// not the stdio hot path).
	if sc, ok := res.StructuredContent.(map[string]any); !ok || sc["hash"] != "5d41402abc4b2a76b9719d911017c592" {
		t.Errorf("structuredContent over HTTP: got %#v", res.StructuredContent)
	}
}

type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestFetchRefusesTheServersOwnAddresses: a dynamic tool with the network
// permission cannot reach this server's MCP endpoint or admin API, by any
// name, while other loopback services stay reachable.
func TestFetchRefusesTheServersOwnAddresses(t *testing.T) {
	t.Parallel()
	mcpAddr, adminAddr := freePort(t), freePort(t)
	s := startWith(t, []string{"--http", mcpAddr, "--admin", adminAddr}, "", "BARRHAWK_ADMIN_TOKEN=adm")
	s.mustCall("dynamic_tool_create", map[string]any{
		"name": "probe_url", "description": "GET a URL", "permissions": []string{"network"},
		"schema": map[string]any{"type": "object", "properties": map[string]any{"url": map[string]any{"type": "string"}}, "required": []string{"url"}},
		"code":   "const r = await ctx.fetch(args.url as string); return { status: r.status };",
	})
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	defer app.Close()
	if got := s.mustCall("probe_url", map[string]any{"url": app.URL}); got["status"] != 418.0 {
		t.Errorf("another loopback service: %v", got)
	}
	_, mcpPort, _ := strings.Cut(mcpAddr, ":")
	_, adminPort, _ := strings.Cut(adminAddr, ":")
	for _, u := range []string{
		"http://" + mcpAddr + "/", "http://localhost:" + mcpPort + "/", "http://127.0.0.2:" + mcpPort + "/",
		"http://0.0.0.0:" + mcpPort + "/", "http://[::1]:" + mcpPort + "/", "http://" + adminAddr + "/health",
		"http://localhost:" + adminPort + "/health",
	} {
		s.mustFail("probe_url", map[string]any{"url": u}, "own MCP or admin address")
	}
	// A redirect from an allowed service to the server is refused too.
	redirect := httptest.NewServer(http.RedirectHandler("http://"+mcpAddr+"/", http.StatusFound))
	defer redirect.Close()
	s.mustFail("probe_url", map[string]any{"url": redirect.URL}, "own MCP or admin address")
}

// TestPlanReadRoots: plan_read reads inside the working directory,
// tools.roots and the client's roots, and refuses elsewhere naming them.
func TestPlanReadRoots(t *testing.T) {
	t.Parallel()
	configured, clientDir, outside := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{configured, clientDir, outside} {
		if err := os.WriteFile(filepath.Join(d, "PLAN.md"), []byte("# in "+d+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "barrhawk.yaml"), []byte("tools:\n  roots: ["+configured+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "PLAN.md"), filepath.Join(home, "escape.md")); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-roots", Version: "1"}, nil)
	client.AddRoots(&mcp.Root{Name: "project", URI: "file://" + clientDir})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session := connect(t, client, home, "2025-11-25")
	read := func(p string) (string, bool) {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "plan_read", Arguments: map[string]any{"path": p}})
		if err != nil {
			t.Fatalf("plan_read %s: %v", p, err)
		}
		return text(res), res.IsError
	}
	for _, d := range []string{configured, clientDir} {
		if out, isErr := read(filepath.Join(d, "PLAN.md")); isErr || !strings.Contains(out, "# in "+d) {
			t.Errorf("plan_read inside %s: %s", d, out)
		}
	}
	for _, p := range []string{filepath.Join(outside, "PLAN.md"), filepath.Join(home, "escape.md")} {
		out, isErr := read(p)
		if !isErr || !strings.Contains(out, "FORBIDDEN") || !strings.Contains(out, "outside the allowed roots") ||
			!strings.Contains(out, configured) || !strings.Contains(out, clientDir) {
			t.Errorf("plan_read %s: want FORBIDDEN naming the roots, got %s", p, out)
		}
	}
}

// TestToolSearchReachesEveryTool: a client that keeps the first tool list
// it saw (and ignores list_changed) still finds and calls a tool created
// later, through tool_search and tool_call.
func TestToolSearchReachesEveryTool(t *testing.T) {
	t.Parallel()
	lc := startLines(t, "")
	lc.initialize("2025-06-18")
	lc.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dynamic_tool_create","arguments":{"name":"reverse_string","description":"Reverse a string","schema":{"type":"object","properties":{"text":{"type":"string","description":"Text to reverse"}},"required":["text"]},"code":"return { reversed: (args.text as string).split('').reverse().join('') };"}}}`)
	if text, isErr := toolText(t, "create", lc.await("1")); isErr {
		t.Fatalf("dynamic_tool_create: %s", text)
	}
	lc.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"tool_search","arguments":{"query":"reverse the characters of a string","limit":3}}}`)
	r := lc.await("2")["result"].(map[string]any)
	results := r["structuredContent"].(map[string]any)["results"].([]any)
	if len(results) == 0 || results[0].(map[string]any)["name"] != "reverse_string" {
		t.Fatalf("tool_search did not put the new tool first: %v", results)
	}
	lc.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"tool_call","arguments":{"name":"reverse_string","arguments":{"text":"abc"}}}}`)
	if text, isErr := toolText(t, "tool_call", lc.await("3")); isErr || !strings.Contains(text, `"reversed":"cba"`) {
		t.Fatalf("tool_call reverse_string: %s", text)
	}
	lc.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"tool_call","arguments":{"name":"reverse_strng","arguments":{}}}}`)
	if text, isErr := toolText(t, "tool_call typo", lc.await("4")); !isErr || !strings.Contains(text, "did you mean reverse_string") {
		t.Fatalf("tool_call of a misspelt name: %s", text)
	}
}

// TestListBags: tools/list shows a compact profile by default, under 5,000
// tokens, and tool_bag widens or narrows this session's list,
// telling the client with list_changed.
func TestListBags(t *testing.T) {
	t.Parallel()
	s := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list := func() (map[string]bool, int) {
		res, err := s.session.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		size := 0
		for _, tl := range res.Tools {
			names[tl.Name] = true
			b, _ := json.Marshal(tl)
			size += len(b)
		}
		return names, size / 4
	}
	names, tokens := list()
	t.Logf("the default list: %d tokens, %d tools", tokens, len(names))
	if tokens > 5000 || !names["tool_search"] || !names["tool_call"] || !names["tool_bag"] || !names["worker_status"] || names["test_prioritize"] {
		t.Errorf("default list: %d tokens, %v", tokens, names)
	}
	st := s.mustCall("worker_status", nil)["toolList"].(map[string]any)
	if st["profile"] != "core" || st["listedTokens"].(float64) > 5000 || st["allTokens"].(float64) <= st["listedTokens"].(float64) {
		t.Errorf("worker_status toolList: %v", st)
	}
	drain(s.listChanged)
	got := s.mustCall("tool_bag", map[string]any{"action": "load", "tools": []string{"test_*", "url_parse"}})
	if loaded := got["loaded"].([]any); len(loaded) != 5 {
		t.Errorf("tool_bag load: %v", got)
	}
	select {
	case <-s.listChanged:
	case <-time.After(10 * time.Second):
		t.Error("no tools/list_changed after tool_bag load")
	}
	if names, _ = list(); !names["test_prioritize"] || !names["url_parse"] || names["report_summary"] {
		t.Errorf("after loading test_* and url_parse: %v", names)
	}
	s.mustCall("tool_bag", map[string]any{"action": "load", "category": "utility"})
	if names, _ = list(); !names["report_summary"] {
		t.Errorf("after loading the utility category: %v", names)
	}
	s.mustCall("tool_bag", map[string]any{"action": "unload", "tools": []string{"test_prioritize"}})
	if names, _ = list(); names["test_prioritize"] || !names["test_flaky_detect"] {
		t.Errorf("after unloading test_prioritize: %v", names)
	}
	s.mustCall("tool_bag", map[string]any{"action": "load", "profile": "all"})
	if names, _ = list(); !names["report_summary"] || !names["test_prioritize"] {
		t.Errorf("after loading all: %v", names)
	}
	s.mustFail("tool_bag", map[string]any{"action": "load", "profile": "nope"}, "INVALID_ARGS", "no profile", "core")
	s.mustFail("tool_bag", map[string]any{"action": "load", "tools": []string{"no_such_*"}}, "nothing matches", "tool_search")
	// Whatever is listed, every tool answers by name.
	s.mustCall("tool_bag", map[string]any{"action": "unload", "profile": "all"})
	if names, _ = list(); names["hash_text"] {
		t.Errorf("after unloading all: %v", names)
	}
	if got := s.mustCall("hash_text", map[string]any{"text": "a", "algorithm": "md5"}); got["hash"] != "0cc175b9c0f1b6a831c399e269772661" {
		t.Errorf("an unlisted tool by name: %v", got)
	}
}

// TestEventsReachTheClient: the front's events come back from
// events_recent, and as log notifications to a client that set a level.
func TestEventsReachTheClient(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	logs := make(chan *mcp.LoggingMessageParams, 100)
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-events", Version: "1"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			select {
			case logs <- r.Params:
			default:
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session := connect(t, client, home, "2025-11-25")
	if err := session.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	call := func(name string, args any) string {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", name, err, text(res))
		}
		return text(res)
	}
	call("hash_text", map[string]any{"text": "a"}) // an Igor starts
	call("worker_restart", map[string]any{})
	deadline := time.After(15 * time.Second)
	for seen := false; !seen; {
		select {
		case p := <-logs:
			seen = p.Logger == "barrhawk.events" && strings.Contains(fmt.Sprint(p.Data), "igor:")
		case <-deadline:
			t.Fatal("no igor event arrived as a log notification")
		}
	}
	out := call("events_recent", map[string]any{"types": []string{"igor:*"}, "limit": 5})
	if !strings.Contains(out, `"igor:spawned"`) || !strings.Contains(out, `"igor:terminated"`) || strings.Contains(out, "tool:") {
		t.Errorf("events_recent of igor:*: %s", out)
	}
	if out = call("events_recent", map[string]any{"since": time.Now().Add(time.Hour).Format(time.RFC3339)}); !strings.Contains(out, `"count":0`) {
		t.Errorf("events_recent since a future time: %s", out)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "events_recent", Arguments: map[string]any{"since": "yesterday"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "RFC 3339") {
		t.Errorf("a bad since: %v %v", err, text(res))
	}
}
