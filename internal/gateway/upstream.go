package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/barrhawk/barrhawk/internal/redact"
	"github.com/barrhawk/barrhawk/internal/supervise"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/version"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Upstream states.
const (
	StateStopped    = "stopped"    // not running; the next call starts it
	StateStarting   = "starting"   // its process is starting or its initialize is unanswered
	StateReady      = "ready"      // initialized and answering
	StateRestarting = "restarting" // it died or failed to start; waiting out its backoff
	StateDisabled   = "disabled"   // registered, never started
)

// protocolVersion is what the gateway asks upstreams for: the last
// version with the initialize handshake, which every server of the last
// two years answers, and with which ping and list_changed exist.
const protocolVersion = "2025-11-25"

// Upstream is one hosted MCP server: its process (stdio) or its address
// (HTTP), its client session, and its supervision: started when wanted,
// pinged, restarted with backoff when it dies, stopped when idle.
type Upstream struct {
	hub  *Hub
	spec Spec
	red  *redact.Redactor
	log  *slog.Logger

	mu        sync.Mutex
	state     string
	sess      *mcp.ClientSession
	child     *supervise.Child // stdio only
	conn      *stdioConn       // stdio only: tools/call goes straight to it
	gen       int              // counts sessions; a call knows which one it used
	dead      chan struct{}    // closed when the current session ends
	starting  chan struct{}    // closed when the start under way ends
	startErr  error            // the last start's failure
	stopping  bool             // the current session is being ended on purpose
	removed   bool             // unregistered: never start again
	backoff   supervise.Backoff
	restarts  int
	lastErr   string
	lastErrAt time.Time
	lastExit  string // how its last process ended
	startedAt time.Time
	lastUse   time.Time
	inFlight  int
	misses    int // pings unanswered in a row
	pinging   bool

	calls, failures atomic.Int64
	latency         atomic.Int64 // the last ping's round trip, ns
	callNs          atomic.Int64 // the last call's duration, ns
	progress        sync.Map     // progress token → tool.Progress
	seq             atomic.Uint64
}

func newUpstream(h *Hub, spec Spec) *Upstream {
	u := &Upstream{hub: h, spec: spec, red: redact.New(spec.secrets()...), state: StateStopped,
		backoff: supervise.Backoff{Base: h.cfg.RestartDelay, Max: h.cfg.MaxRestartDelay}}
	u.log = h.log.With("upstream", spec.Name)
	if spec.Disabled {
		u.state = StateDisabled
	}
	return u
}

// Name is the upstream's name.
func (u *Upstream) Name() string { return u.spec.Name }

// session returns a ready session, starting the upstream (or waiting for
// the start under way, or for its backoff to end) if need be.
func (u *Upstream) session(ctx context.Context) (*mcp.ClientSession, *stdioConn, <-chan struct{}, error) {
	for {
		u.mu.Lock()
		switch {
		case u.removed:
			u.mu.Unlock()
			return nil, nil, nil, tool.Errorf(tool.CodeNotFound, "upstream %s was unregistered", u.spec.Name)
		case u.spec.Disabled:
			u.mu.Unlock()
			return nil, nil, nil, tool.Errorf(tool.CodeUpstreamError, "upstream %s is disabled (disabled: true); enable it to call it", u.spec.Name)
		case u.state == StateReady:
			s, conn, dead := u.sess, u.conn, u.dead
			u.mu.Unlock()
			return s, conn, dead, nil
		case u.starting != nil:
			ch := u.starting
			u.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				return nil, nil, nil, u.startTimeout(ctx)
			}
			u.mu.Lock()
			err := u.startErr
			ready := u.state == StateReady
			u.mu.Unlock()
			if !ready && err != nil {
				return nil, nil, nil, err
			}
			continue
		}
		wait := time.Until(u.backoff.Next())
		u.mu.Unlock()
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, nil, nil, u.startTimeout(ctx)
			}
		}
		u.ensure()
	}
}

// startTimeout is the error of a call whose time ran out while its
// upstream started.
func (u *Upstream) startTimeout(ctx context.Context) error {
	u.mu.Lock()
	last := u.lastErr
	u.mu.Unlock()
	msg := fmt.Sprintf("upstream %s was not ready within the call's time", u.spec.Name)
	if last != "" {
		msg += "; its last error: " + last
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return tool.Errorf(tool.CodeCancelled, "%s (cancelled by the caller)", msg)
	}
	return tool.Errorf(tool.CodeTimeout, "%s", msg)
}

// ensure starts the upstream in the background unless it runs, starts,
// or may not.
func (u *Upstream) ensure() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.removed || u.spec.Disabled || u.state == StateReady || u.starting != nil || u.hub.isClosed() {
		return
	}
	u.starting = make(chan struct{})
	u.state = StateStarting
	u.startErr = nil
	go u.start(u.starting)
}

// start starts the process (stdio), connects and lists the tools; done
// is closed at the end, ready or not.
func (u *Upstream) start(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), u.hub.cfg.StartTimeout)
	defer cancel()
	began := time.Now()
	sess, child, conn, gone, err := u.connect(ctx)
	var tools []*mcp.Tool
	if err == nil {
		tools, err = listTools(ctx, sess)
		if err != nil {
			err = fmt.Errorf("listing its tools: %w", err)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("it did not answer initialize and tools/list within %s (gateway.startTimeout): %w", u.hub.cfg.StartTimeout, err)
		}
		if sess != nil {
			sess.Close()
		}
		if child != nil {
			child.Proc.Kill()
		}
	}
	u.mu.Lock()
	u.starting = nil
	if err != nil || u.removed || u.hub.isClosed() {
		if err == nil {
			err = errors.New("unregistered while it started")
			go u.end(sess, child, u.hub.cfg.StopGrace)
		}
		msg := u.red.String(err.Error())
		u.startErr = tool.Errorf(tool.CodeUpstreamError, "upstream %s (%s) could not start: %s", u.spec.Name, u.red.String(u.spec.describe()), msg)
		u.lastErr, u.lastErrAt = "start: "+msg, time.Now()
		delay := u.backoff.Fail()
		u.state = StateRestarting
		auto := u.spec.AutoStart
		u.mu.Unlock()
		close(done)
		u.log.Error("upstream failed to start", "err", msg, "retryIn", delay)
		u.hub.emit(EventUpstreamFailed, u.spec.Name, msg)
		if auto {
			time.AfterFunc(delay, u.ensure)
		}
		return
	}
	u.gen++
	dead := make(chan struct{})
	u.sess, u.child, u.conn, u.dead = sess, child, conn, dead
	u.state = StateReady
	u.startedAt, u.lastUse = time.Now(), time.Now()
	u.misses = 0
	gen := u.gen
	u.mu.Unlock()
	u.hub.toolsChanged(u, tools) // registered before the callers waiting for the start look for them
	close(done)
	go u.watch(gen, sess, child, gone, dead)
	u.log.Info("upstream ready", "tools", len(tools), "in", time.Since(began).Round(time.Millisecond))
	u.hub.emit(EventUpstreamStarted, u.spec.Name, fmt.Sprintf("%d tools, ready in %s", len(tools), time.Since(began).Round(time.Millisecond)))
}

// connect starts the process (stdio) and the client session. gone is
// closed when the session ends.
func (u *Upstream) connect(ctx context.Context) (*mcp.ClientSession, *supervise.Child, *stdioConn, chan struct{}, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "barrhawk-gateway", Version: version.Version}, &mcp.ClientOptions{
		Capabilities:                &mcp.ClientCapabilities{},
		ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { go u.refreshTools() },
		ProgressNotificationHandler: u.progressed,
	})
	opts := &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion}
	gone := make(chan struct{})
	spec, err := u.spec.expand(os.LookupEnv)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	u.red.Add(spec.secrets()...) // the secrets the variables stood for
	if spec.Type == "http" {
		sess, err := client.Connect(ctx, httpTransport(spec.URL, spec.Headers, u.hub.lineLimit()), opts)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		go func() { _ = sess.Wait(); close(gone) }()
		return sess, nil, nil, gone, nil
	}
	cmd := exec.Command(spec.Command, spec.Args...)
	cmd.Env = spec.environ(os.LookupEnv)
	cmd.Dir = spec.Cwd
	child, err := supervise.Start(cmd, supervise.ChildOptions{OnStderr: func(line string) {
		u.log.Info("upstream stderr: " + u.red.String(line))
	}})
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("starting %s: %w", spec.Command, err)
	}
	conn := newStdioConn(child.Stdout, child.Stdin, u.hub.lineLimit(), u.log)
	go func() {
		child.Wait(conn.readDone)
		conn.Close()
		close(gone)
	}()
	sess, err := client.Connect(ctx, conn, opts)
	if err != nil {
		select { // a process that exited says why better than the client can
		case <-gone:
			err = fmt.Errorf("it exited (%s) before it answered initialize: %w", child.Proc.ExitStatus(), err)
		case <-time.After(time.Second):
		case <-ctx.Done():
		}
		return nil, child, conn, gone, err
	}
	return sess, child, conn, gone, nil
}

// listTools lists every page of the upstream's tools.
func listTools(ctx context.Context, sess *mcp.ClientSession) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// refreshTools reads the tools again after the upstream said they changed.
func (u *Upstream) refreshTools() {
	u.mu.Lock()
	sess := u.sess
	u.mu.Unlock()
	if sess == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), u.hub.cfg.StartTimeout)
	defer cancel()
	tools, err := listTools(ctx, sess)
	if err != nil {
		u.log.Warn("listing the upstream's tools after list_changed", "err", u.red.String(err.Error()))
		return
	}
	u.hub.toolsChanged(u, tools)
}

// watch waits for a session to end (gone), records how, and then closes
// dead: a call that saw its session break learns from it that the
// upstream died, and how.
func (u *Upstream) watch(gen int, sess *mcp.ClientSession, child *supervise.Child, gone, dead chan struct{}) {
	defer close(dead)
	<-gone
	sess.Close()
	status := "its connection closed"
	if child != nil {
		<-child.Proc.Done()
		status = child.Proc.ExitStatus()
	}
	u.mu.Lock()
	if gen != u.gen || u.sess != sess {
		u.mu.Unlock()
		return
	}
	onPurpose := u.stopping || u.removed || u.hub.isClosed()
	u.sess, u.child, u.conn = nil, nil, nil
	u.stopping = false
	u.lastExit = status
	if onPurpose {
		u.state = StateStopped
		if u.spec.Disabled {
			u.state = StateDisabled
		}
		u.mu.Unlock()
		u.hub.emit(EventUpstreamStopped, u.spec.Name, status)
		return
	}
	u.restarts++
	u.lastErr, u.lastErrAt = "exited: "+status, time.Now()
	delay := u.backoff.Fail()
	u.state = StateRestarting
	restart := u.spec.AutoStart || u.inFlight > 0
	u.mu.Unlock()
	u.log.Warn("upstream exited unexpectedly", "status", status, "restartIn", delay)
	u.hub.emit(EventUpstreamCrashed, u.spec.Name, status)
	if restart {
		time.AfterFunc(delay, u.ensure)
	}
}

// callTimeout bounds one call: the server's timeout, else
// gateway.callTimeout.
func (u *Upstream) callTimeout() time.Duration {
	if u.spec.Timeout > 0 {
		return u.spec.Timeout
	}
	return u.hub.cfg.CallTimeout
}

// Call calls one of the upstream's tools. Its answer is the upstream's
// content (bounded by the front as any result), or an error saying what
// went wrong: the upstream died during the call (WORKER_DIED), did not
// answer in time (TIMEOUT), answered an error (UPSTREAM_ERROR) or too
// much (RESULT_TOO_LARGE), or the tool failed (TOOL_ERROR).
func (u *Upstream) Call(ctx context.Context, name string, args json.RawMessage) (any, error) {
	timeout := u.callTimeout()
	sctx, scancel := context.WithTimeout(ctx, u.hub.cfg.StartTimeout+timeout) // it may have to start first
	sess, conn, dead, err := u.session(sctx)
	scancel()
	if err != nil {
		u.failures.Add(1)
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	u.begin()
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var token string
	if p, ok := tool.ProgressAsked(ctx); ok { // only then is a token sent
		token = "bh-" + strconv.FormatUint(u.seq.Add(1), 10)
		u.progress.Store(token, p)
		defer u.progress.Delete(token)
	}
	began := time.Now()
	var v any
	if conn != nil { // stdio: past the SDK (stdioConn.Call)
		params := callParams{Name: name, Arguments: args}
		if token != "" {
			params.Meta = &progressMeta{ProgressToken: token}
		}
		var raw json.RawMessage
		if raw, err = conn.Call(ctx, "tools/call", params); err == nil {
			v, err = decodeResult(raw)
		}
	} else {
		params := &mcp.CallToolParams{Name: name, Arguments: args}
		if token != "" {
			params.SetProgressToken(token)
		}
		var res *mcp.CallToolResult
		if res, err = sess.CallTool(ctx, params); err == nil {
			v, err = toContent(res)
		}
	}
	u.callNs.Store(int64(time.Since(began)))
	var te *tool.Error
	if errors.As(err, &te) { // the tool's own failure: the upstream is well
		err = nil
	}
	u.finish(err == nil)
	if err != nil {
		u.failures.Add(1)
		return nil, u.callError(ctx, name, timeout, dead, err)
	}
	u.calls.Add(1)
	if te != nil {
		return nil, te
	}
	return v, nil
}

// callParams are a tools/call's params as they travel.
type callParams struct {
	Meta      *progressMeta   `json:"_meta,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type progressMeta struct {
	ProgressToken string `json:"progressToken"`
}

// callError says why a call failed.
func (u *Upstream) callError(ctx context.Context, name string, timeout time.Duration, dead <-chan struct{}, err error) *tool.Error {
	var we *jsonrpc.Error
	switch {
	case errors.As(err, &we) && we.Code == codeTooLarge:
		return tool.Errorf(tool.CodeResultTooLarge, "%s on upstream %s: %s. Ask for less.", name, u.spec.Name, we.Message)
	case errors.As(err, &we):
		return tool.Errorf(tool.CodeUpstreamError, "%s on upstream %s answered error %d: %s", name, u.spec.Name, we.Code, u.red.String(we.Message))
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return tool.Errorf(tool.CodeTimeout, "%s on upstream %s did not answer within %s; the call was cancelled there (set the server's timeout, or gateway.callTimeout, for longer calls)", name, u.spec.Name, timeout)
	case errors.Is(ctx.Err(), context.Canceled):
		return tool.Errorf(tool.CodeCancelled, "%s on upstream %s was cancelled by the caller", name, u.spec.Name)
	}
	// The connection broke: the upstream is dying, or dead.
	died := false
	select {
	case <-dead: // its end is recorded
		died = true
	case <-time.After(2 * time.Second):
	}
	u.mu.Lock()
	status := u.lastExit
	u.mu.Unlock()
	if died {
		return tool.Errorf(tool.CodeWorkerDied, "upstream %s died during the call to %s (%s); it is restarting, so the next call goes to a fresh process", u.spec.Name, name, status)
	}
	return tool.Errorf(tool.CodeUpstreamError, "%s on upstream %s: %s", name, u.spec.Name, u.red.String(err.Error()))
}

func (u *Upstream) begin() {
	u.mu.Lock()
	u.inFlight++
	u.lastUse = time.Now()
	u.mu.Unlock()
}

func (u *Upstream) finish(ok bool) {
	u.mu.Lock()
	u.inFlight--
	u.lastUse = time.Now()
	if ok {
		u.backoff.Reset()
	}
	u.mu.Unlock()
}

// progressed passes an upstream's progress on to the call it belongs to.
func (u *Upstream) progressed(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	if req.Params == nil {
		return
	}
	if p, ok := u.progress.Load(fmt.Sprint(req.Params.ProgressToken)); ok {
		p.(tool.Progress)(req.Params.Progress, req.Params.Total, u.red.String(req.Params.Message))
	}
}

// ping checks a ready upstream; three misses in a row end its session,
// and it is restarted.
func (u *Upstream) ping(timeout time.Duration) {
	u.mu.Lock()
	if u.state != StateReady || u.pinging {
		u.mu.Unlock()
		return
	}
	sess, gen := u.sess, u.gen
	u.pinging = true
	u.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	began := time.Now()
	err := sess.Ping(ctx, nil)
	cancel()
	u.mu.Lock()
	u.pinging = false
	if gen != u.gen {
		u.mu.Unlock()
		return
	}
	if err == nil {
		u.latency.Store(int64(time.Since(began)))
		u.misses = 0
		u.mu.Unlock()
		return
	}
	u.misses++
	misses := u.misses
	u.mu.Unlock()
	if misses >= 3 {
		u.log.Warn("upstream missed 3 pings; restarting it", "err", u.red.String(err.Error()))
		u.kill("missed 3 pings in a row: " + u.red.String(err.Error()))
	}
}

// kill ends a session that is not answering; watch restarts it.
func (u *Upstream) kill(reason string) {
	u.mu.Lock()
	sess, child := u.sess, u.child
	u.lastErr, u.lastErrAt = reason, time.Now()
	u.mu.Unlock()
	if child != nil {
		child.Proc.Kill()
	} else if sess != nil {
		sess.Close()
	}
}

// stop ends the session on purpose (idle, unregister, shutdown) and
// returns once it has ended.
func (u *Upstream) stop() {
	u.mu.Lock()
	sess, child, dead := u.sess, u.child, u.dead
	if sess == nil {
		u.mu.Unlock()
		return
	}
	u.stopping = true
	u.mu.Unlock()
	u.end(sess, child, u.hub.cfg.StopGrace)
	<-dead
}

// end closes a session and stops its process: stdin closed first (how
// MCP's stdio transport asks a server to exit), then SIGTERM and SIGKILL
// to its process group.
func (u *Upstream) end(sess *mcp.ClientSession, child *supervise.Child, grace time.Duration) {
	if child == nil {
		sess.Close()
		return
	}
	child.Stop(grace, func() { child.Stdin.Close() })
	sess.Close()
}

// idle reports whether a lazily started upstream has been unused long
// enough to stop.
func (u *Upstream) idle(now time.Time) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.state == StateReady && !u.spec.AutoStart && u.inFlight == 0 && now.Sub(u.lastUse) > u.hub.cfg.IdleTimeout
}

// Health is an upstream's state as mcp_health and mcp_list show it.
type Health struct {
	Name      string  `json:"name"`
	State     string  `json:"state"`
	PID       int     `json:"pid,omitempty"`
	UptimeMs  int64   `json:"uptimeMs,omitempty"`
	Restarts  int     `json:"restarts"`
	Tools     int     `json:"tools"`
	InFlight  int     `json:"inFlight"`
	Calls     int64   `json:"calls"`
	Failures  int64   `json:"failures"`
	PingMs    float64 `json:"pingMs,omitempty"`
	LastCall  float64 `json:"lastCallMs,omitempty"`
	LastError string  `json:"lastError,omitempty"`
	LastErrAt string  `json:"lastErrorAt,omitempty"`
	LastExit  string  `json:"lastExit,omitempty"`
	// RetryAt is when a dead or failed upstream may start again.
	RetryAt string `json:"retryAt,omitempty"`
	Server  string `json:"server,omitempty"` // the upstream's own name and version
}

// Health reports the upstream's state.
func (u *Upstream) Health() Health {
	tools := len(u.hub.ToolsOf(u.spec.Name))
	u.mu.Lock()
	defer u.mu.Unlock()
	h := Health{Name: u.spec.Name, State: u.state, Restarts: u.restarts, InFlight: u.inFlight, LastError: u.lastErr, LastExit: u.lastExit,
		Calls: u.calls.Load(), Failures: u.failures.Load(), Tools: tools}
	if u.child != nil {
		h.PID = u.child.Proc.PID()
	}
	if u.state == StateReady {
		h.UptimeMs = time.Since(u.startedAt).Milliseconds()
		if r := u.sess.InitializeResult(); r != nil && r.ServerInfo != nil {
			h.Server = r.ServerInfo.Name + " " + r.ServerInfo.Version
		}
	}
	if !u.lastErrAt.IsZero() {
		h.LastErrAt = u.lastErrAt.UTC().Format(time.RFC3339)
	}
	if n := u.backoff.Next(); u.state == StateRestarting && time.Now().Before(n) {
		h.RetryAt = n.UTC().Format(time.RFC3339Nano)
	}
	h.PingMs = float64(u.latency.Load()) / 1e6
	h.LastCall = float64(u.callNs.Load()) / 1e6
	return h
}

// busy is how many calls it runs now.
func (u *Upstream) busy() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.inFlight
}

// healthy reports whether a call to it now could go through: running, or
// free to start.
func (u *Upstream) healthy() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	switch u.state {
	case StateReady, StateStopped, StateStarting:
		return true
	case StateRestarting:
		return u.backoff.Ready(time.Now())
	}
	return false
}
