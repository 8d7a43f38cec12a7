package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// everythingBin is server-everything, the MCP reference server, installed
// from the npm registry by scripts/test.
func everythingBin(tb testing.TB) string {
	return filepath.Join(testbin.MCPServers(tb, ".bin/mcp-server-everything"), ".bin", "mcp-server-everything")
}

// everythingYAML configures server-everything as upstreams of these
// names, with a secret in their environment: $GW_SECRET, by default
// sekret-token-123.
func everythingYAML(t *testing.T, extra string, names ...string) string {
	var b strings.Builder
	b.WriteString("gateway:\n" + extra + "  servers:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "    %s:\n      command: %s\n      args: [stdio]\n      env: {API_TOKEN: \"${GW_SECRET:-sekret-token-123}\"}\n", n, everythingBin(t))
	}
	return b.String()
}

// health is one upstream's mcp_health.
func (s *server) health(name string) map[string]any {
	s.t.Helper()
	return s.mustCall("mcp_health", map[string]any{"id": name})
}

// A configured upstream's tools are found by tool_search and called
// directly, through tool_call and as a bag; its secret is masked in
// mcp_list but reaches the server.
func TestGatewayConfigured(t *testing.T) {
	t.Parallel()
	s := startConfigured(t, everythingYAML(t, "", "everything"), "GW_SECRET=from-the-environment-456")
	if out, isErr := s.call("everything__echo", map[string]any{"message": "hello upstream"}); isErr || out != "Echo: hello upstream" {
		t.Fatalf("echo: %v %q", isErr, out)
	}
	found := s.mustCall("tool_search", map[string]any{"query": "echo a message back", "category": "gateway"})
	if r := found["results"].([]any); len(r) == 0 || r[0].(map[string]any)["name"] != "everything__echo" {
		t.Errorf("tool_search: %v", found)
	}
	if out, isErr := s.call("tool_call", map[string]any{"name": "everything__get-sum", "arguments": map[string]any{"a": 2, "b": 40}}); isErr || !strings.Contains(out, "42") {
		t.Errorf("tool_call get-sum: %v %s", isErr, out)
	}
	// Arguments are checked against the upstream's schema before it is called.
	if out, isErr := s.call("everything__echo", map[string]any{"message": 7}); !isErr || !strings.HasPrefix(out, "INVALID_ARGS") || !strings.Contains(out, "message") {
		t.Errorf("a number for a string: %v %s", isErr, out)
	}
	list := s.mustCall("mcp_list", map[string]any{})
	if strings.Contains(fmt.Sprint(list), "from-the-environment") || !strings.Contains(fmt.Sprint(list), "API_TOKEN:[REDACTED]") {
		t.Errorf("mcp_list: %v", list)
	}
	// ${GW_SECRET} was expanded from BarrHawk's environment when it started.
	if out, _ := s.call("everything__get-env", map[string]any{}); !strings.Contains(out, "from-the-environment-456") || strings.Contains(out, "BARRHAWK_LOG_LEVEL") {
		t.Errorf("the upstream's environment: its env and the inherited few only: %s", out)
	}
	// A bag per server.
	bag := s.mustCall("tool_bag", map[string]any{"action": "load", "server": "everything"})
	if !strings.Contains(fmt.Sprint(bag["loaded"]), "everything__echo") {
		t.Errorf("tool_bag load server: %v", bag)
	}
	tools, err := s.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := 0
	for _, tl := range tools.Tools {
		if strings.HasPrefix(tl.Name, "everything__") {
			listed++
			if !tool.GatewayNamePattern.MatchString(tl.Name) {
				t.Errorf("listed name %q", tl.Name)
			}
		}
	}
	if listed != 13 {
		t.Errorf("%d of server-everything's 13 tools listed after loading its bag", listed)
	}
	if strings.Contains(s.stderr.String(), "from-the-environment") {
		t.Errorf("the log shows the secret")
	}
}

// An upstream killed with SIGKILL in the middle of a call: that call
// answers WORKER_DIED, the upstream is restarted, and the next call works.
func TestGatewayUpstreamKilledMidCall(t *testing.T) {
	t.Parallel()
	s := startConfigured(t, everythingYAML(t, "  restartDelay: 100ms\n", "everything"))
	s.call("everything__echo", map[string]any{"message": "warm"})
	pid := int(s.health("everything")["pid"].(float64))
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		params := callParams("everything__trigger-long-running-operation", map[string]any{"duration": 30, "steps": 30})
		params.SetProgressToken("p1")
		res, err := s.session.CallTool(context.Background(), params)
		if err != nil {
			t.Errorf("the long call: %v", err)
		}
		done <- res
	}()
	waitFor(t, "the long call to be in flight", func() bool { return s.health("everything")["inFlight"].(float64) == 1 })
	syscall.Kill(pid, syscall.SIGKILL)
	select {
	case res := <-done:
		if out := text(res); !res.IsError || !strings.HasPrefix(out, "WORKER_DIED") || !strings.Contains(out, "SIGKILL") {
			t.Errorf("the call whose upstream was killed: %s", out)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the call whose upstream was killed did not answer")
	}
	if out, isErr := s.call("everything__echo", map[string]any{"message": "after"}); isErr || out != "Echo: after" {
		t.Errorf("the next call: %v %s", isErr, out)
	}
	h := s.health("everything")
	if h["restarts"].(float64) != 1 || h["state"] != "ready" || int(h["pid"].(float64)) == pid || !strings.Contains(fmt.Sprint(h["lastError"]), "SIGKILL") {
		t.Errorf("health after: %v", h)
	}
	if processAlive(pid) {
		t.Errorf("the killed upstream %d is still there", pid)
	}
	if out, _ := s.call("events_recent", map[string]any{"types": []string{"upstream:*"}}); !strings.Contains(out, `"type":"upstream:crashed","reason":"killed by signal SIGKILL (exit code 137)","server":"everything"`) {
		t.Errorf("events: %s", out)
	}
	if st := fmt.Sprint(s.mustCall("worker_status", map[string]any{})["gateway"]); !strings.Contains(st, "name:everything") || !strings.Contains(st, "restarts:1") {
		t.Errorf("worker_status's gateway: %s", st)
	}
}

// rogue is the command of a misbehaving upstream (testdata/upstreams).
func rogue(t *testing.T, mode string) string {
	p, err := filepath.Abs(filepath.Join("testdata", "upstreams", "rogue.js"))
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("      command: node\n      args: [%s, %s]\n", p, mode)
}

// Upstreams that never answer initialize, write garbage, answer 50 MB or
// flood notifications cost only the calls made to them.
func TestGatewayRogueUpstreams(t *testing.T) {
	t.Parallel()
	yaml := "gateway:\n  startTimeout: 3s\n  servers:\n"
	for _, m := range []string{"silent", "garbage", "huge", "flood"} {
		yaml += "    " + m + ":\n" + rogue(t, m)
	}
	s := startConfigured(t, yaml)
	// Its tools never became known: the call is refused saying why.
	_, err := s.session.CallTool(context.Background(), callParams("silent__say", map[string]any{"words": "hi"}))
	if err == nil || !strings.Contains(err.Error(), "upstream silent") || !strings.Contains(err.Error(), "did not answer initialize") {
		t.Errorf("the silent upstream: %v", err)
	}
	if out, isErr := s.call("garbage__say", map[string]any{"words": "through the noise"}); isErr || out != "said: through the noise" {
		t.Errorf("the garbage upstream: %v %s", isErr, out)
	}
	out, isErr := s.call("huge__huge", map[string]any{})
	if !isErr || !strings.HasPrefix(out, "RESULT_TOO_LARGE") {
		t.Errorf("50 MB: %v %.300s", isErr, out)
	}
	if out, isErr := s.call("huge__say", map[string]any{"words": "still here"}); isErr || out != "said: still here" {
		t.Errorf("after 50 MB: %v %s", isErr, out)
	}
	if h := s.health("huge"); h["restarts"].(float64) != 0 {
		t.Errorf("the huge upstream was restarted: %v", h)
	}
	if out, isErr := s.call("flood__flood", map[string]any{}); isErr || out != "flooded" {
		t.Errorf("flood: %v %.300s", isErr, out)
	}
	// The front is unharmed.
	if out, isErr := s.call("hash_text", map[string]any{"text": "a", "algorithm": "sha256"}); isErr {
		t.Errorf("our own tool after the rogues: %s", out)
	}
	h := s.health("silent")
	if h["state"] != "restarting" && h["state"] != "starting" || !strings.Contains(fmt.Sprint(h["lastError"]), "initialize") {
		t.Errorf("silent's health: %v", h)
	}
}

// Servers registered with mcp_register (stdio: server-everything and
// playwright-mcp; streamable HTTP: a second barrhawk) are found and
// called, and are back after a restart.
func TestGatewayRegister(t *testing.T) {
	t.Parallel()
	inner := freePort(t)
	other := exec.Command(bin, "serve", "--http", inner)
	otherHome := t.TempDir()
	other.Env = append(os.Environ(), "HOME="+otherHome, "BARRHAWK_HOME="+filepath.Join(otherHome, ".barrhawk"), "BARRHAWK_LOG_LEVEL=warn")
	other.Dir = otherHome
	stdin, _ := other.StdinPipe()
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); other.Process.Kill(); other.Wait() })

	s := start(t)
	home := s.home
	reg := func(args map[string]any) map[string]any { return s.mustCall("mcp_register", args) }
	reg(map[string]any{"name": "everything", "command": everythingBin(t), "args": []string{"stdio"}, "env": map[string]string{"TOKEN": "hush-hush-secret"}})
	pw := filepath.Join(testbin.MCPServers(t, ".bin/playwright-mcp"), ".bin", "playwright-mcp")
	reg(map[string]any{"name": "playwright", "command": pw, "args": []string{"--headless", "--isolated", "--no-sandbox", "--executable-path", "/usr/bin/chromium"}})
	waitFor(t, "the other barrhawk to listen", func() bool {
		out, isErr := s.call("mcp_register", map[string]any{"name": "inner", "url": "http://" + inner + "/", "headers": map[string]string{"Authorization": "Bearer not-needed-but-masked"}})
		return !isErr || !strings.Contains(out, "connection refused") && t.Failed()
	})

	if out, isErr := s.call("inner__hash_text", map[string]any{"text": "abc", "algorithm": "sha256"}); isErr || !strings.Contains(out, "ba7816bf") {
		t.Errorf("through HTTP: %v %s", isErr, out)
	}
	found := s.mustCall("tool_search", map[string]any{"query": "navigate the browser to a URL", "category": "gateway", "limit": 10})
	if !strings.Contains(fmt.Sprint(found), "playwright__browser_navigate") {
		t.Errorf("tool_search for navigation: %v", found)
	}
	page := "data:text/html,<h1>Gateway page</h1>"
	if out, isErr := s.call("tool_call", map[string]any{"name": "playwright__browser_navigate", "arguments": map[string]any{"url": page}}); isErr || !strings.Contains(out, "Gateway page") {
		t.Errorf("playwright navigate: %v %.500s", isErr, out)
	}
	list := fmt.Sprint(s.mustCall("mcp_list", map[string]any{}))
	if strings.Contains(list, "hush-hush") || strings.Contains(list, "not-needed") {
		t.Errorf("mcp_list shows a secret: %s", list)
	}
	state, err := os.ReadFile(filepath.Join(home, ".barrhawk", "gateway.json"))
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(home, ".barrhawk", "gateway.json")); fi.Mode().Perm() != 0o600 {
		t.Errorf("gateway.json mode %v", fi.Mode())
	}
	var st struct{ Servers []map[string]any }
	if json.Unmarshal(state, &st) != nil || len(st.Servers) != 3 {
		t.Fatalf("gateway.json: %s", state)
	}
	s.stop()

	// A new serve in the same home has them all, and their tools before
	// they start.
	again := restartIn(t, home)
	if out, isErr := again.call("everything__echo", map[string]any{"message": "back"}); isErr || out != "Echo: back" {
		t.Errorf("after a restart: %v %s", isErr, out)
	}
	if out := fmt.Sprint(again.mustCall("mcp_list", map[string]any{})); !strings.Contains(out, "playwright") || !strings.Contains(out, "inner") {
		t.Errorf("mcp_list after a restart: %s", out)
	}
	if out, isErr := again.call("playwright__browser_navigate", map[string]any{"url": page}); isErr {
		t.Errorf("playwright after a restart: %.300s", out)
	}
	pwPID := int(again.health("playwright")["pid"].(float64))
	tree := proc.Descendants(pwPID) // node, and the chromium it drives
	if len(tree) == 0 {
		t.Errorf("playwright-mcp %d has no browser under it", pwPID)
	}
	if out, isErr := again.call("mcp_unregister", map[string]any{"id": "playwright"}); isErr {
		t.Errorf("unregister: %s", out)
	}
	for _, p := range append(tree, proc.Info{PID: pwPID}) {
		waitGone(t, p.PID) // its whole tree
	}
	if _, err := again.session.CallTool(context.Background(), callParams("playwright__browser_navigate", map[string]any{"url": page})); err == nil || !strings.Contains(err.Error(), "UNKNOWN_TOOL") {
		t.Errorf("a tool of an unregistered server: %v", err)
	}
}

// restartIn starts a serve whose home is an earlier one's.
func restartIn(t *testing.T, home string) *server {
	t.Helper()
	s := startWith(t, nil, "", "HOME="+home, "BARRHAWK_HOME="+filepath.Join(home, ".barrhawk"))
	return s
}

// A .mcp.json written as Claude Code writes it is discovered, and
// registered on request.
func TestGatewayDiscover(t *testing.T) {
	t.Parallel()
	s := start(t)
	mcpJSON := fmt.Sprintf(`{
  "mcpServers": {
    "everything": {
      "type": "stdio",
      "command": %q,
      "args": ["stdio"],
      "env": {"EVERYTHING_KEY": "${HOME}"}
    },
    "remote.api": {
      "type": "http",
      "url": "https://mcp.example.com/mcp",
      "headers": {"Authorization": "Bearer ${NO_SUCH_TOKEN_VAR}"}
    }
  }
}`, everythingBin(t))
	if err := os.WriteFile(filepath.Join(s.home, ".mcp.json"), []byte(mcpJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	found := s.mustCall("mcp_discover", map[string]any{})
	out := fmt.Sprint(found)
	if !strings.Contains(out, "claude-code") || !strings.Contains(out, "name:everything") || !strings.Contains(out, "name:remote-api") || !strings.Contains(out, "nameInFile:remote.api") {
		t.Fatalf("discover: %s", out)
	}
	reg := s.mustCall("mcp_discover", map[string]any{"register": true, "names": []string{"everything"}})
	if fmt.Sprint(reg["registered"]) != "[everything]" {
		t.Fatalf("register: %v", reg)
	}
	if out, isErr := s.call("everything__echo", map[string]any{"message": "discovered"}); isErr || out != "Echo: discovered" {
		t.Errorf("a discovered server's tool: %v %s", isErr, out)
	}
}

// Two replicas: failover survives one being killed in the middle of the
// call; loadbalance spreads calls; aggregate answers side by side.
func TestGatewayReplicas(t *testing.T) {
	t.Parallel()
	s := startConfigured(t, everythingYAML(t, "  restartDelay: 100ms\n", "a", "b"))
	s.call("a__echo", map[string]any{"message": "warm"})
	s.call("b__echo", map[string]any{"message": "warm"})
	agg := s.mustCall("mcp_aggregate", map[string]any{"tool": "echo", "args": map[string]any{"message": "both"}})
	if agg["succeeded"].(float64) != 2 {
		t.Errorf("aggregate: %v", agg)
	}
	servers := map[string]int{}
	for range 4 {
		lb := s.mustCall("mcp_loadbalance", map[string]any{"tool": "echo", "args": map[string]any{"message": "rr"}})
		servers[lb["server"].(string)]++
	}
	if servers["a"] != 2 || servers["b"] != 2 {
		t.Errorf("round-robin: %v", servers)
	}
	pid := int(s.health("a")["pid"].(float64))
	done := make(chan map[string]any, 1)
	go func() {
		done <- s.mustCall("mcp_failover", map[string]any{"tool": "trigger-long-running-operation", "args": map[string]any{"duration": 3, "steps": 3}})
	}()
	waitFor(t, "the call on a", func() bool { return s.health("a")["inFlight"].(float64) == 1 })
	syscall.Kill(pid, syscall.SIGKILL)
	res := <-done
	attempts := res["attempts"].([]any)
	if res["server"] != "b" || len(attempts) != 2 || !strings.HasPrefix(attempts[0].(map[string]any)["error"].(string), "WORKER_DIED") {
		t.Errorf("failover: %v", res)
	}
	route := s.mustCall("mcp_route", map[string]any{"tool": "echo", "preferredMcp": "b"})
	if route["server"] != "b" || route["call"] != "b__echo" {
		t.Errorf("route: %v", route)
	}
}

// An upstream's list_changed, progress and cancellation go through: a
// tool it adds becomes callable and the client hears list_changed; its
// progress reaches the client; a call the client cancels is cancelled on
// the upstream.
func TestGatewayPassThrough(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "barrhawk.yaml"), []byte("gateway:\n  servers:\n    r:\n"+rogue(t, "normal")), 0o644); err != nil {
		t.Fatal(err)
	}
	listChanged := make(chan struct{}, 10)
	progress := make(chan string, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { listChanged <- struct{}{} },
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- fmt.Sprintf("%v/%v %s", req.Params.Progress, req.Params.Total, req.Params.Message)
		},
	})
	sess := connect(t, client, home, "2025-11-25")
	call := func(ctx context.Context, name string) (string, error) {
		res, err := sess.CallTool(ctx, callParams(name, map[string]any{}))
		if err != nil {
			return "", err
		}
		return text(res), nil
	}
	if out, err := call(context.Background(), "r__grow"); err != nil || out != "grew" {
		t.Fatalf("grow: %v %s", err, out)
	}
	waitFor(t, "the grown tool", func() bool {
		out, err := call(context.Background(), "r__grown")
		return err == nil && strings.Contains(out, "said")
	})
	select {
	case <-listChanged:
	case <-time.After(10 * time.Second):
		t.Error("no tools/list_changed reached the client")
	}

	ctx, cancel := context.WithCancel(context.Background())
	params := callParams("r__slow", map[string]any{})
	params.SetProgressToken("mine")
	errc := make(chan error, 1)
	go func() { _, err := sess.CallTool(ctx, params); errc <- err }()
	for i := 1; i <= 3; i++ {
		select {
		case p := <-progress:
			if want := fmt.Sprintf("%d/3 step %d", i, i); p != want {
				t.Errorf("progress %d: %q, want %q", i, p, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("progress %d did not arrive", i)
		}
	}
	cancel()
	<-errc
	waitFor(t, "the upstream to hear of the cancellation", func() bool {
		out, err := call(context.Background(), "r__cancels")
		return err == nil && out != "[]"
	})
}
