// Package front is BarrHawk's MCP face: it serves the Doctor's tools over
// stdio and streamable HTTP with the official go-sdk. A tool failure is an
// isError result with a clear message; JSON-RPC errors are left for protocol
// faults.
package front

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/barrhawk/barrhawk/internal/doctor"
	"github.com/barrhawk/barrhawk/internal/logging"
	"github.com/barrhawk/barrhawk/internal/loopback"
	"github.com/barrhawk/barrhawk/internal/record"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/toolbag"
	"github.com/barrhawk/barrhawk/internal/version"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Instructions are sent to clients at initialize.
const Instructions = `BarrHawk is a QA and automation toolbox. Every tool runs in a replaceable worker process (an Igor), so a tool that crashes or hangs costs one call, never the connection. Failed calls answer isError with a stable code (INVALID_ARGS, TIMEOUT, WORKER_DIED, ...) and a message saying what was wrong. worker_status shows the workers.`

// Server is the MCP server in front of a Doctor.
type Server struct {
	mcp    *mcp.Server
	doctor *doctor.Doctor
	log    *slog.Logger

	mu       sync.RWMutex
	handlers map[string]mcp.ToolHandler // what the SDK calls for each tool; the hot path calls the same
	tools    map[string]*mcp.Tool       // as registered, to re-register one when a list bag changes
	res      resourceSet
	bags     sessionBags
	rec      *record.Recorder // nil: calls are not recorded
	// httpTables are the session tables of the HTTP handlers made
	// (sessions.go), for worker_status.
	httpTables []*httpSessions
	// serverInfo is the server's implementation as JSON, which each result
	// of the per-request protocol carries.
	serverInfo []byte
}

// Record hands every finished tools/call to rec, on every transport. Call
// it before serving.
func (s *Server) Record(rec *record.Recorder) { s.rec = rec }

// New builds the MCP server for d. level, if not nil, follows the client's
// logging/setLevel.
func New(d *doctor.Doctor, log *slog.Logger, level *slog.LevelVar) *Server {
	s := &Server{doctor: d, log: log, handlers: map[string]mcp.ToolHandler{}, tools: map[string]*mcp.Tool{}}
	impl := &mcp.Implementation{Name: "barrhawk", Title: "BarrHawk", Version: version.Version}
	s.serverInfo, _ = json.Marshal(impl)
	s.mcp = mcp.NewServer(impl, &mcp.ServerOptions{
		Instructions: Instructions,
		Logger:       log,
		Capabilities: capabilities(d),
		SetCacheable: cacheScope,
	})
	// Order: unknown tools are answered before anything else looks at the
	// call; tools/list shows the session's list bag; the log level follows
	// the client's setLevel. (tools/call on stdio takes the hot path, which
	// no middleware sees: see hot.go.)
	s.mcp.AddReceivingMiddleware(onlyAdvertised(d), s.suggestTools, s.filterToolsList)
	if level != nil {
		s.mcp.AddReceivingMiddleware(followLogLevel(level))
	}
	s.addTools(d.Registry().List())
	if d.DynamicEnabled() {
		s.watchResources()
	}
	s.forwardEvents()
	// Dynamic tools come and go; the SDK tells clients with
	// notifications/tools/list_changed.
	d.OnToolsChanged(func(added []*tool.Tool, removed []string) {
		if len(removed) > 0 {
			s.mcp.RemoveTools(removed...)
			s.mu.Lock()
			for _, name := range removed {
				delete(s.handlers, name)
				delete(s.tools, name)
			}
			s.mu.Unlock()
		}
		for _, t := range added {
			s.addTool(t)
		}
	})
	return s
}

// capabilities advertises only what is served: tools, logging, and the
// dynamic tools' sources and snapshots as resources when dynamic tools are
// on. There are no prompts.
func capabilities(d *doctor.Doctor) *mcp.ServerCapabilities {
	c := &mcp.ServerCapabilities{
		Tools:   &mcp.ToolCapabilities{ListChanged: true},
		Logging: &mcp.LoggingCapabilities{},
	}
	if d.DynamicEnabled() {
		c.Resources = &mcp.ResourceCapabilities{ListChanged: true}
	}
	return c
}

// cacheScope marks tools/list private: each session lists its own list
// bag, so a shared cache would show one session's tools to another.
func cacheScope(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
	if _, ok := req.(*mcp.ListToolsRequest); ok {
		c.CacheScope = "private"
	}
}

// onlyAdvertised answers a method of a capability the server does not
// advertise (prompts; resources with dynamic tools off) as not found, as
// MCP says, where the SDK answered an empty list. (The SDK's connection
// words every method-not-found itself: method not found: "prompts/list".)
func onlyAdvertised(d *doctor.Doctor) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if strings.HasPrefix(method, "prompts/") || strings.HasPrefix(method, "resources/") && !d.DynamicEnabled() {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}
			}
			return next(ctx, method, req)
		}
	}
}

// addTool registers t with the SDK. The schema is marshalled once, here:
// marshalling *jsonschema.Schema on every tools/list made it take
// milliseconds.
func (s *Server) addTool(t *tool.Tool) {
	input, err := t.InputJSON()
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema does not marshal: %v", t.Name, err)) // caught by any test
	}
	h := s.handler(t.Name)
	mt := &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: json.RawMessage(input)}
	s.mu.Lock()
	s.handlers[t.Name] = h
	s.tools[t.Name] = mt
	s.mu.Unlock()
	s.mcp.AddTool(mt, h)
}

// addTools registers tools on every core at once: each costs a schema
// encoded here and twice re-encoded by the SDK (AddTool), which was most of
// the time from exec to the answer to initialize. The SDK lists tools by
// name, so the order they are added in does not show.
func (s *Server) addTools(tools []*tool.Tool) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(tools)) {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(tools)); i = next.Add(1) - 1 {
				s.addTool(tools[i])
			}
		})
	}
	wg.Wait()
}

// toolHandler returns the handler of a tool, or nil for an unknown one.
func (s *Server) toolHandler(name string) mcp.ToolHandler {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.handlers[name]
}

// MCP returns the underlying go-sdk server.
func (s *Server) MCP() *mcp.Server { return s.mcp }

func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if roots := clientRoots(req.Session); roots != nil {
			ctx = doctor.WithClientRoots(ctx, roots)
		}
		if req.Session != nil {
			ctx = toolbag.With(ctx, s.bagSession(req.Session))
			if token := req.Params.GetProgressToken(); token != nil {
				ctx = tool.WithProgress(ctx, progressTo(ctx, req.Session, token))
			}
			if ask := askUser(req.Session); ask != nil {
				ctx = tool.WithAsk(ctx, ask)
			}
		}
		start := time.Now()
		return s.toolResult(start, req, name, s.doctor.Call(ctx, name, req.Params.Arguments)), nil
	}
}

// toolResult is how every tools/call ends, from the handler or the hot
// path's callNow: the call recorded (when the record is on), its result
// made the MCP result.
func (s *Server) toolResult(start time.Time, req *mcp.CallToolRequest, name string, r doctor.Result) *mcp.CallToolResult {
	if s.rec != nil {
		s.record(start, req, name, r)
	}
	return ToResult(r, Structured(req.ProtocolVersion()))
}

// record hands one finished call to the recorder: a few field copies, no
// encoding (the recorder's flusher does that off the call's path).
func (s *Server) record(start time.Time, req *mcp.CallToolRequest, name string, r doctor.Result) {
	e := record.Entry{Start: start, Duration: time.Since(start), Tool: name, Args: req.Params.Arguments, Value: r.Value, Igor: r.Igor}
	if r.Err != nil {
		e.Code, e.Message = r.Err.Code, r.Err.Message
	}
	if req.Session != nil {
		e.Session = req.Session.ID()
	}
	s.rec.Call(e)
}

// progressTo sends a call's progress to its client.
func progressTo(ctx context.Context, ss *mcp.ServerSession, token any) tool.Progress {
	return func(done, total float64, message string) {
		_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: done, Total: total, Message: message}) // a client gone is not the call's failure
	}
}

// askUser puts yes-or-no questions to the session's user through MCP
// elicitation, when the client declared it can (and the protocol lets a
// server send requests); nil otherwise.
func askUser(ss *mcp.ServerSession) tool.Ask {
	if p := ss.InitializeParams(); p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil || p.ProtocolVersion >= noServerRequests {
		return nil
	}
	return func(ctx context.Context, question string) (bool, error) {
		res, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: question, RequestedSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"allow": map[string]any{"type": "boolean", "description": "Allow it"}},
			"required":   []string{"allow"},
		}})
		if err != nil {
			return false, fmt.Errorf("elicitation/create: %w", err)
		}
		allow, _ := res.Content["allow"].(bool)
		return res.Action == "accept" && allow, nil
	}
}

// clientRoots asks the session's client for its roots, if it declared
// that it has them. From protocol 2026-07-28 on a server may not send
// roots/list (SEP-2322), so such a session has none to ask.
func clientRoots(ss *mcp.ServerSession) doctor.ClientRoots {
	if ss == nil {
		return nil
	}
	if p := ss.InitializeParams(); p == nil || p.Capabilities == nil || p.Capabilities.RootsV2 == nil || p.ProtocolVersion >= noServerRequests {
		return nil
	}
	return func(ctx context.Context) ([]string, error) {
		res, err := ss.ListRoots(ctx, nil)
		if err != nil {
			return nil, fmt.Errorf("roots/list: %w", err)
		}
		uris := make([]string, 0, len(res.Roots))
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return uris, nil
	}
}

// Protocol versions that change what the front sends. MCP versions are
// dates, so they compare as strings.
const (
	// withStructuredContent is the first version whose tool results have
	// structuredContent.
	withStructuredContent = "2025-06-18"
	// noServerRequests is the first version in which a server may not send
	// requests (roots/list) of its own.
	noServerRequests = "2026-07-28"
)

// Structured reports whether a request of protocol version (the one the
// session negotiated, or the request's own from 2026-07-28 on:
// mcp.ServerRequest.ProtocolVersion) has structuredContent in tool results.
func Structured(version string) bool { return version >= withStructuredContent }

// ToResult turns a Doctor result into an MCP tool result: the value as JSON
// text (a string value as itself), or isError with "CODE: message". With
// withStructured, a JSON object value is also the structuredContent, for
// clients that read it; the text stays for those that do not.
func ToResult(r doctor.Result, withStructured bool) *mcp.CallToolResult {
	if r.Err != nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: r.Err.Text()}}}
	}
	if c, ok := tool.AsContent(r.Value); ok {
		res := &mcp.CallToolResult{Content: make([]mcp.Content, 0, len(c.Parts))}
		for _, p := range c.Parts {
			switch p.Type {
			case "image":
				res.Content = append(res.Content, &mcp.ImageContent{Data: p.Data, MIMEType: p.MIMEType})
			case "audio":
				res.Content = append(res.Content, &mcp.AudioContent{Data: p.Data, MIMEType: p.MIMEType})
			default:
				res.Content = append(res.Content, &mcp.TextContent{Text: p.Text})
			}
		}
		return res
	}
	text := string(r.Value)
	if len(r.Value) > 0 && r.Value[0] == '"' {
		var s string
		if json.Unmarshal(r.Value, &s) == nil {
			text = s
		}
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	if withStructured && len(r.Value) > 0 && r.Value[0] == '{' {
		res.StructuredContent = r.Value
	}
	return res
}

// suggestTools answers a call to an unknown tool with the JSON-RPC error
// the MCP spec prescribes (invalid params), naming the closest tools.
func (s *Server) suggestTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil {
				if _, known := s.doctor.Registry().Get(p.Name); !known && !s.doctor.AwaitTool(ctx, p.Name) {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: s.doctor.UnknownTool(p.Name).Error()}
				}
			}
		}
		return next(ctx, method, req)
	}
}

// followLogLevel applies a client's logging/setLevel to our own logger too.
func followLogLevel(level *slog.LevelVar) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "logging/setLevel" {
				if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && p != nil {
					level.Set(logging.ParseLevel(mcpToSlog(p.Level)))
				}
			}
			return next(ctx, method, req)
		}
	}
}

func mcpToSlog(l mcp.LoggingLevel) string {
	switch l {
	case "debug":
		return "debug"
	case "info", "notice":
		return "info"
	case "warning":
		return "warn"
	}
	return "error"
}

// ServeStdio serves one MCP session on stdin and stdout until the client
// disconnects (once every request read has been answered) or ctx ends.
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.Serve(ctx, os.Stdin, os.Stdout)
}

// Serve serves one MCP session of newline-delimited JSON-RPC on in and
// out (see lineConn) until in ends, once every request read has been
// answered, or ctx ends.
func (s *Server) Serve(ctx context.Context, in io.ReadCloser, out io.Writer) error {
	conn := newLineConn(in, out, int(s.doctor.Config().MCP.MaxMessageBytes), s.log)
	conn.hot = s.callHot
	ss, err := s.mcp.Connect(ctx, conn, nil)
	if err != nil {
		return fmt.Errorf("mcp session: %w", err)
	}
	conn.session.Store(ss)
	stop := context.AfterFunc(ctx, func() { _ = ss.Close() })
	defer stop()
	err = ss.Wait()
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// HTTPHandler serves MCP over streamable HTTP. In order: the bearer token
// (mcp.token) is checked first, so that nothing of a request without it is
// read; then the message's frame (checkFrames); then the session bounds
// (mcp.sessionIdleTimeout, mcp.maxSessions: sessions.go); then the SDK.
func (s *Server) HTTPHandler() http.Handler {
	cfg := s.doctor.Config().MCP
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{Logger: s.log, MaxRequestBodyBytes: cfg.MaxMessageBytes})
	bounded := s.boundSessions(h, cfg.MaxSessions, cfg.SessionIdleTimeout)
	return requireToken(checkFrames(bounded, int(cfg.MaxMessageBytes)), cfg.Token)
}

// ListenHTTP checks that addr is a loopback address (unless allowRemote) and
// listens on it.
func ListenHTTP(addr string, allowRemote bool) (net.Listener, error) {
	if err := loopback.Check("address", addr, allowRemote, "--allow-remote"); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return ln, nil
}

// ServeHTTP serves MCP over streamable HTTP on ln until ctx ends.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s.HTTPHandler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx) // streams still open are closed by the deadline
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("http: %w", err)
	}
	return nil
}
