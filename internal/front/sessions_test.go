package front

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/doctor"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/testsupport/lockedbuf"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// httpFront is a front served over real HTTP, with a tool that holds its
// call in flight until the test lets it go.
type httpFront struct {
	s       *Server
	srv     *httptest.Server
	log     *lockedbuf.Buffer
	entered atomic.Int64  // calls of test_hold begun
	release chan struct{} // closed: every test_hold call returns
}

func newHTTPFront(t *testing.T, maxSessions int, idle time.Duration) *httpFront {
	t.Helper()
	f := &httpFront{log: &lockedbuf.Buffer{}, release: make(chan struct{})}
	cfg := config.Default()
	cfg.Home = t.TempDir()
	cfg.Tools.EnableDynamic = false
	cfg.MCP.MaxSessions = maxSessions
	cfg.MCP.SessionIdleTimeout = idle
	hold := tool.Tool{
		Def: tool.Def{Name: "test_hold", Description: "Holds the call until the test lets it go.", Group: "Test", Category: tool.CategoryMeta, Input: schema.Object()},
		Run: func(ctx context.Context, _ *tool.Call) (any, error) {
			f.entered.Add(1)
			select {
			case <-f.release:
			case <-ctx.Done():
			}
			return "released", nil
		},
	}
	log := slog.New(slog.NewTextHandler(f.log, nil))
	d, err := doctor.New(doctor.Options{Config: cfg, IgorCommand: []string{"false"}, Tools: []tool.Tool{hold}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	f.s = New(d, log, nil)
	f.srv = httptest.NewServer(f.s.HTTPHandler())
	t.Cleanup(func() {
		f.letGo()
		f.srv.CloseClientConnections() // a go-sdk client's stream of server messages stays open
		f.srv.Close()
	})
	return f
}

// letGo ends every test_hold call, now and later.
func (f *httpFront) letGo() {
	select {
	case <-f.release:
	default:
		close(f.release)
	}
}

// post sends one JSON-RPC message of session (none: "") and returns the
// status, the headers and the body.
func (f *httpFront) post(t *testing.T, session, msg string) (int, http.Header, string) {
	t.Helper()
	return f.do(t, http.MethodPost, session, msg)
}

func (f *httpFront) do(t *testing.T, method, session, msg string) (int, http.Header, string) {
	t.Helper()
	var body io.Reader
	if msg != "" {
		body = strings.NewReader(msg)
	}
	req, err := http.NewRequest(method, f.srv.URL, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Errorf("%s %s: %v", method, msg, err)
		return 0, nil, ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Errorf("%s %s: reading the answer: %v", method, msg, err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

const initializeMsg = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sessions_test","version":"1"}}}`

// open initializes a session and returns its id.
func (f *httpFront) open(t *testing.T) string {
	t.Helper()
	status, h, body := f.post(t, "", initializeMsg)
	id := h.Get("Mcp-Session-Id")
	if status != http.StatusOK || id == "" || !strings.Contains(body, `"protocolVersion"`) {
		t.Fatalf("initialize: want 200 with an Mcp-Session-Id and a result, got %d %q %s", status, id, body)
	}
	if status, _, body := f.post(t, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != http.StatusAccepted {
		t.Fatalf("notifications/initialized: want 202, got %d %s", status, body)
	}
	return id
}

// ping returns the status of a ping of session.
func (f *httpFront) ping(t *testing.T, session string) (int, string) {
	t.Helper()
	status, _, body := f.post(t, session, `{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	return status, body
}

// wantGone checks that session's requests are answered 404 with a JSON-RPC
// error that says to initialize again.
func (f *httpFront) wantGone(t *testing.T, session string) {
	t.Helper()
	status, body := f.ping(t, session)
	var e struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if status != http.StatusNotFound || json.Unmarshal([]byte(body), &e) != nil || e.Error.Code != -32600 ||
		string(e.ID) != "7" || !strings.Contains(e.Error.Message, "initialize") {
		t.Errorf("session %s: want 404 with a JSON-RPC error (id 7) saying to initialize again, got %d %s", session, status, body)
	}
}

// openSessions is worker_status' count of open HTTP sessions.
func (f *httpFront) openSessions(t *testing.T) int {
	t.Helper()
	st, ok := f.s.doctor.Status()["httpSessions"].(doctor.HTTPSessions)
	if !ok {
		t.Fatalf("worker_status has no httpSessions: %v", f.s.doctor.Status())
	}
	return st.Open
}

// eventually polls cond until it holds, failing the test after 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// hasBag reports whether the front holds a tool bag for session id.
func (f *httpFront) hasBag(id string) bool {
	f.s.bags.mu.Lock()
	defer f.s.bags.mu.Unlock()
	for ss := range f.s.bags.m {
		if ss.ID() == id {
			return true
		}
	}
	return false
}

// sdkSessions is how many sessions the go-sdk server holds.
func (f *httpFront) sdkSessions() int {
	n := 0
	for range f.s.mcp.Sessions() {
		n++
	}
	return n
}

// TestHTTPSessionsBoundedAtMax opens 150 sessions at mcp.maxSessions 100:
// each initialize past 100 ends the session idle longest, whose requests
// are then answered 404, and whose tool bag is released; the others go on.
// With a request in flight on every one of the 100, an initialize is
// answered 503 with Retry-After, and succeeds once one is idle again.
func TestHTTPSessionsBoundedAtMax(t *testing.T) {
	// The idle timeout is long here, so that only the bound ends sessions.
	f := newHTTPFront(t, 100, time.Hour)
	ids := []string{f.open(t)}
	// The first session lists its tools: the front makes it a tool bag.
	if status, _, body := f.post(t, ids[0], `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); status != http.StatusOK || !f.hasBag(ids[0]) {
		t.Fatalf("tools/list: want 200 and a bag for the session, got %d %s (bag: %v)", status, body, f.hasBag(ids[0]))
	}
	for range 99 {
		ids = append(ids, f.open(t))
	}
	if n := f.openSessions(t); n != 100 {
		t.Fatalf("worker_status httpSessions.open: want 100, got %d", n)
	}
	for range 50 {
		ids = append(ids, f.open(t))
	}
	if n := f.openSessions(t); n != 100 {
		t.Errorf("after 150 initializes worker_status httpSessions.open: want 100, got %d", n)
	}
	ended, kept := ids[:50], ids[50:]
	for _, id := range ended {
		f.wantGone(t, id)
	}
	for _, id := range kept {
		if status, body := f.ping(t, id); status != http.StatusOK {
			t.Errorf("session %s, one of the 100 newest: ping want 200, got %d %s", id, status, body)
		}
	}
	eventually(t, "the ended session's tool bag released", func() bool { return !f.hasBag(ids[0]) })
	eventually(t, "the go-sdk server holding 100 sessions", func() bool { return f.sdkSessions() == 100 })
	eventually(t, "50 sessions logged as evicted", func() bool {
		return strings.Count(f.log.String(), `reason="evicted at mcp.maxSessions"`) == 50
	})
	if !strings.Contains(f.log.String(), "session="+ids[0]+" reason=\"evicted at mcp.maxSessions\"") {
		t.Errorf("no log line for the eviction of %s:\n%s", ids[0], f.log.String())
	}

	// A request in flight on every session: none can be ended.
	var wg sync.WaitGroup
	for _, id := range kept {
		wg.Go(func() {
			status, _, body := f.post(t, id, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_hold","arguments":{}}}`)
			if status != http.StatusOK || !strings.Contains(body, "released") {
				t.Errorf("test_hold on %s: want 200 and its result, got %d %s", id, status, body)
			}
		})
	}
	eventually(t, "100 calls of test_hold in flight", func() bool { return f.entered.Load() == 100 })
	status, h, body := f.post(t, "", initializeMsg)
	var e struct {
		ID    int `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if status != http.StatusServiceUnavailable || h.Get("Retry-After") != "5" || h.Get("Mcp-Session-Id") != "" {
		t.Errorf("initialize with every session busy: want 503 with Retry-After: 5 and no session, got %d %v %s", status, h, body)
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.ID != 1 || e.Error.Code != codeServerBusy ||
		!strings.Contains(e.Error.Message, "mcp.maxSessions") || !strings.Contains(e.Error.Message, "retry") {
		t.Errorf("the 503's body: want a JSON-RPC error for id 1 naming mcp.maxSessions and saying to retry, got %s (%v)", body, err)
	}
	f.letGo()
	wg.Wait()
	id := f.open(t)
	if status, body := f.ping(t, id); status != http.StatusOK {
		t.Errorf("a session opened once the calls ended: ping want 200, got %d %s", status, body)
	}
	if n := f.openSessions(t); n != 100 {
		t.Errorf("worker_status httpSessions.open: want 100, got %d", n)
	}
}

// TestHTTPSessionIdleTimeout: a session with no request for
// mcp.sessionIdleTimeout ends (a go-sdk client's, which keeps a stream of
// server messages open, as well as a raw one), releases its tool bag and
// answers 404; a new session works.
func TestHTTPSessionIdleTimeout(t *testing.T) {
	f := newHTTPFront(t, 100, 300*time.Millisecond)
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "sessions_test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.srv.URL, HTTPClient: f.srv.Client()}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	raw := f.open(t)
	if !f.hasBag(cs.ID()) {
		t.Fatalf("no tool bag for the client's session after tools/list")
	}
	eventually(t, "both sessions ended by the idle timeout", func() bool { return f.openSessions(t) == 0 })
	f.wantGone(t, raw)
	f.wantGone(t, cs.ID())
	if _, err := cs.ListTools(ctx, nil); err == nil || !strings.Contains(err.Error(), "Not Found") {
		t.Errorf("the go-sdk client's tools/list on its ended session: want a Not Found error, got %v", err)
	}
	eventually(t, "the ended session's tool bag released", func() bool { return !f.hasBag(cs.ID()) })
	eventually(t, "the go-sdk server holding no session", func() bool { return f.sdkSessions() == 0 })
	eventually(t, "both sessions logged as ended by the idle timeout", func() bool {
		log := f.log.String()
		return strings.Contains(log, "session="+raw+` reason="idle timeout"`) && strings.Contains(log, "session="+cs.ID()+` reason="idle timeout"`)
	})

	cs2, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.srv.URL, HTTPClient: f.srv.Client()}, nil)
	if err != nil {
		t.Fatalf("a new session after the timeout: %v", err)
	}
	defer cs2.Close()
	res, err := cs2.CallTool(ctx, &mcp.CallToolParams{Name: "worker_status"})
	if err != nil || res.IsError {
		t.Fatalf("worker_status on the new session: %v %v", err, res)
	}
	var st struct {
		HTTPSessions doctor.HTTPSessions `json:"httpSessions"`
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if err := json.Unmarshal([]byte(text), &st); err != nil || st.HTTPSessions != (doctor.HTTPSessions{Open: 1, Max: 100, IdleTimeout: "300ms"}) {
		t.Errorf("worker_status httpSessions: want open 1, max 100, idleTimeout 300ms, got %+v (%v)", st.HTTPSessions, err)
	}
}

// TestHTTPSessionDeleteAndUnknown: a client's DELETE ends its session (logged
// as such; its requests then get 404), and an id the server never gave is
// answered 404 with a JSON-RPC error, for POST, GET and DELETE alike.
func TestHTTPSessionDeleteAndUnknown(t *testing.T) {
	f := newHTTPFront(t, 10, 0)
	id := f.open(t)
	if status, _, body := f.do(t, http.MethodDelete, id, ""); status != http.StatusNoContent {
		t.Fatalf("DELETE: want 204, got %d %s", status, body)
	}
	f.wantGone(t, id)
	eventually(t, "the DELETE logged", func() bool {
		return strings.Contains(f.log.String(), "session="+id+` reason="client DELETE"`)
	})
	f.wantGone(t, "no-such-session")
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		if status, _, body := f.do(t, method, "no-such-session", ""); status != http.StatusNotFound || !strings.Contains(body, `"code":-32600`) {
			t.Errorf("%s of an unknown session: want 404 with a JSON-RPC error, got %d %s", method, status, body)
		}
	}
	if n := f.openSessions(t); n != 0 {
		t.Errorf("worker_status httpSessions.open: want 0, got %d", n)
	}
}

// TestIdlestSkipsSessionsInFlight: the session ended at the bound is the one
// whose last request ended first, of those with none in flight; with every
// session busy there is none.
func TestIdlestSkipsSessionsInFlight(t *testing.T) {
	tab := &httpSessions{live: map[string]*httpSession{
		"a": {id: "a", lastSeq: 1, inflight: 1},
		"b": {id: "b", lastSeq: 2},
		"c": {id: "c", lastSeq: 3},
	}}
	if e := tab.idlest(); e == nil || e.id != "b" {
		t.Errorf("want b (a has a request in flight), got %+v", e)
	}
	tab.live["b"].inflight, tab.live["c"].inflight = 2, 1
	if e := tab.idlest(); e != nil {
		t.Errorf("every session busy: want none, got %+v", e)
	}
}

// TestOpensSession: only an initialize request keeps the session the SDK
// makes for a sessionless POST.
func TestOpensSession(t *testing.T) {
	for body, want := range map[string]bool{
		initializeMsg: true,
		`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}]`: true,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`:                     false,
		`{"jsonrpc":"2.0","method":"initialize"}`:                      false,
		``: false,
	} {
		if got := opensSession([]byte(body)); got != want {
			t.Errorf("%s: want %v, got %v", body, want, got)
		}
	}
}
