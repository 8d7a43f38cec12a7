// Package e2e tests BarrHawk as its users meet it: the real binary, started
// by the go-sdk MCP client over stdio or streamable HTTP, with real Igor
// processes killed for real.
package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/testsupport/lockedbuf"
	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
)

// bin is the barrhawk binary built for this test run.
var bin string

func TestMain(m *testing.M) {
	// The dashboard test drives a Chromium of its own, started through
	// this test binary as the Igors start theirs through barrhawk.
	browser.ExecIfBrowserStart()
	testbin.Main(m, &bin)
}

// server is a running `barrhawk serve` with a connected client.
type server struct {
	t       testing.TB
	cmd     *exec.Cmd
	session *mcp.ClientSession
	home    string
	// listChanged receives a value for every tools/list_changed notification.
	listChanged chan struct{}
	// resourcesChanged receives one for every resources/list_changed.
	resourcesChanged chan struct{}
	// stderr holds everything the server wrote to its log.
	stderr *lockedbuf.Buffer
}

// start runs `barrhawk serve` with extra env (KEY=VALUE) and connects.
func start(t testing.TB, env ...string) *server {
	t.Helper()
	return startConfigured(t, "", env...)
}

// startConfigured is start with a barrhawk.yaml in the server's working
// directory.
func startConfigured(t testing.TB, yaml string, env ...string) *server {
	t.Helper()
	return startWith(t, nil, yaml, env...)
}

// startWith is startConfigured with extra arguments to serve.
func startWith(t testing.TB, args []string, yaml string, env ...string) *server {
	t.Helper()
	home := t.TempDir()
	if yaml != "" {
		if err := os.WriteFile(filepath.Join(home, "barrhawk.yaml"), []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+home, "BARRHAWK_HOME="+filepath.Join(home, ".barrhawk"), "BARRHAWK_LOG_LEVEL=warn")
	cmd.Env = append(cmd.Env, env...)
	cmd.Dir = home
	stderr := &lockedbuf.Buffer{}
	cmd.Stderr = io.MultiWriter(testWriter{t}, stderr)
	listChanged, resourcesChanged := make(chan struct{}, 100), make(chan struct{}, 100)
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case listChanged <- struct{}{}:
			default:
			}
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			select {
			case resourcesChanged <- struct{}{}:
			default:
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	s := &server{t: t, cmd: cmd, session: session, home: home, listChanged: listChanged, resourcesChanged: resourcesChanged, stderr: stderr}
	t.Cleanup(s.stop)
	return s
}

// stop closes the client (stdin EOF) and checks the server exits and leaves
// nothing behind.
func (s *server) stop() {
	if s.session == nil {
		return
	}
	pid := s.cmd.Process.Pid
	before := proc.Descendants(pid)
	_ = s.session.Close()
	s.session = nil
	for _, p := range before {
		waitGone(s.t, p.PID)
	}
	proc.ReapOrphans()
}

// waitGone fails the test if pid is still alive (not a zombie) after 10 s.
func waitGone(t testing.TB, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if !processAlive(pid) {
			return
		}
		proc.ReapOrphans()
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("process %d still running", pid)
}

func processAlive(pid int) bool {
	for _, p := range proc.All() {
		if p.PID == pid {
			return p.State != 'Z'
		}
	}
	return false
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Logf("server: %s", strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// call calls a tool and returns the text of its result and whether it is an
// error result.
func (s *server) call(name string, args any) (string, bool) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		s.t.Fatalf("%s: protocol error: %v", name, err)
	}
	return text(res), res.IsError
}

// mustCall calls a tool that must succeed and decodes its JSON result.
func (s *server) mustCall(name string, args any) map[string]any {
	s.t.Helper()
	out, isErr := s.call(name, args)
	if isErr {
		s.t.Fatalf("%s(%v) failed: %s", name, args, out)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		s.t.Fatalf("%s: result is not a JSON object: %s", name, out)
	}
	return v
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// freePort returns a loopback address nobody listens on.
func freePort(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// igorPIDs returns the pids of the live Igors, from worker_status.
func (s *server) igorPIDs() []int {
	s.t.Helper()
	st := s.mustCall("worker_status", nil)
	var pids []int
	for _, ig := range st["pool"].(map[string]any)["igors"].([]any) {
		if pid := int(ig.(map[string]any)["pid"].(float64)); pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids
}

func callParams(name string, args any) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: name, Arguments: args}
}

// doUntilUp sends the request newReq makes, again every 50 ms for up to
// 5 s while the server is not listening yet.
func doUntilUp(t testing.TB, newReq func() *http.Request) *http.Response {
	t.Helper()
	var err error
	for range 100 {
		var resp *http.Response
		if resp, err = http.DefaultClient.Do(newReq()); err == nil {
			return resp
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the server did not answer over HTTP: %v", err)
	return nil
}

// connect starts `barrhawk serve` in home (its working directory and
// HOME) with a client of the test's own, speaking protocol, and closes it
// at the end of the test.
func connect(t testing.TB, client *mcp.Client, home, protocol string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "HOME="+home, "BARRHAWK_LOG_LEVEL=warn")
	cmd.Dir = home
	cmd.Stderr = testWriter{t}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = session.Close() })
	return session
}
