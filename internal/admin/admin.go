// Package admin serves BarrHawk's admin HTTP API: the Beta secondary's
// GET /health, GET /tools, POST /call, POST /reload, DELETE /tools/{name} and
// POST /shutdown, with the same JSON shapes, served by the front.
//
// The API is opt-in (barrhawk serve --admin 127.0.0.1:PORT), listens on
// loopback unless forced with the flag named by [AllowRemoteFlag], and every
// request must carry "Authorization: Bearer <token>". It can run any tool and
// stop the server, so treat the token like a password.
//
// This package maps HTTP to a [Backend]; what the calls do is the front's job.
package admin

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/loopback"
	"github.com/barrhawk/barrhawk/internal/rawjson"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// MaxBodyBytes is the largest request body the API accepts (10 MiB); a larger
// one is answered 413.
const MaxBodyBytes = 10 << 20

// ShutdownGrace is how long [Serve] lets in-flight requests finish after its
// context ends before it closes their connections.
const ShutdownGrace = loopback.ShutdownGrace

// AllowRemoteFlag is the serve flag that lets the admin API listen on a
// non-loopback address; [CheckAddress] names it in its refusal.
const AllowRemoteFlag = "--admin-allow-remote"

// Backend is what the admin API needs from the front.
type Backend interface {
	// Health reports the server's state for GET /health.
	Health() Health
	// Tools lists the loaded tools for GET /tools.
	Tools() []ToolInfo
	// Call runs a tool with its JSON arguments (always a JSON object) and
	// returns its result as JSON, or a tool error. ctx ends when the HTTP
	// client goes away.
	Call(ctx context.Context, tool string, args json.RawMessage) (result json.RawMessage, err *tool.Error)
	// Reload reloads every tool and returns the names now loaded.
	Reload(ctx context.Context) (loaded []string, err error)
	// DeleteTool removes a tool. Errors may be *tool.Error: NOT_FOUND or
	// UNKNOWN_TOOL (404), FORBIDDEN for protected tools (403), INVALID_ARGS
	// (400); anything else is answered 500.
	DeleteTool(ctx context.Context, name string) error
	// Shutdown asks the front to stop. It must not block: it is called from
	// the request handler after the answer has been sent.
	Shutdown()
}

// Health is the body of GET /health.
type Health struct {
	// Status is "healthy", "degraded" or another word the front chooses.
	Status string `json:"status"`
	// Uptime is in milliseconds, as in the seed.
	Uptime int64 `json:"uptime"`
	// ToolCount is the number of loaded tools.
	ToolCount int `json:"toolCount"`
	// LastError is the most recent error the front recorded, or null.
	LastError *string `json:"lastError"`
	// MemoryUsage is the front's heap, in bytes.
	MemoryUsage MemoryUsage `json:"memoryUsage"`
}

// MemoryUsage is the heap figures of GET /health, in bytes.
type MemoryUsage struct {
	HeapUsed  uint64 `json:"heapUsed"`
	HeapTotal uint64 `json:"heapTotal"`
}

// ToolInfo is one element of GET /tools.
type ToolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// expectedCallShape is quoted in every 400 answer of POST /call.
const expectedCallShape = `expected {"tool": "<name>", "args": {...}}`

// endpoints is quoted in 404 answers.
const endpoints = "GET /health, GET /tools, POST /call, POST /reload, DELETE /tools/{name}, POST /shutdown"

// NewToken returns a fresh random bearer token (32 bytes, base64url), for a
// front that was given none.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("admin token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// NewHandler returns the admin API's handler. Every request must carry
// "Authorization: Bearer <token>"; the token is compared in constant time.
// It returns an error, and no handler, if b is nil or token is empty or holds
// whitespace or control characters (which no client could send back intact):
// an admin API without a usable token must not be served at all. log may be
// nil; each request is logged at debug level.
func NewHandler(b Backend, token string, log *slog.Logger) (http.Handler, error) {
	if b == nil {
		return nil, errors.New("admin API: no backend")
	}
	if token == "" {
		return nil, errors.New("admin API: no token configured; the admin API runs tools and stops the server, so it is never served without one")
	}
	if strings.IndexFunc(token, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return nil, errors.New("admin API: the token contains whitespace or control characters; use printable characters only")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &handler{b: b, tokenHash: sha256.Sum256([]byte(token)), log: log, mux: http.NewServeMux()}
	h.route("GET", "/health", h.health)
	h.route("GET", "/tools", h.tools)
	h.route("POST", "/call", h.call)
	h.route("POST", "/reload", h.reload)
	h.route("DELETE", "/tools/{name}", h.deleteTool)
	h.route("POST", "/shutdown", h.shutdown)
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, errorBody{fmt.Sprintf("no such endpoint: %s %s; endpoints are %s", r.Method, r.URL.Path, endpoints)})
	})
	return h, nil
}

type handler struct {
	b         Backend
	tokenHash [sha256.Size]byte
	log       *slog.Logger
	mux       *http.ServeMux
}

type errorBody struct {
	Error string `json:"error"`
}

type result struct {
	Success bool     `json:"success"`
	Loaded  []string `json:"loaded,omitempty"`
	Error   string   `json:"error,omitempty"`
}

type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type callResult struct {
	Content []content `json:"content"`
	IsError bool      `json:"isError,omitempty"`
}

// route registers method+path, and a method-less pattern for the same path
// that answers 405 with an Allow header (the mux's own 405 is plain text).
func (h *handler) route(method, path string, fn http.HandlerFunc) {
	h.mux.HandleFunc(method+" "+path, fn)
	allow := method
	if method == http.MethodGet {
		allow = "GET, HEAD"
	}
	h.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeJSON(w, http.StatusMethodNotAllowed, errorBody{fmt.Sprintf("method %s not allowed on %s; use %s", r.Method, r.URL.Path, method)})
	})
}

// ServeHTTP authenticates, caps the body, recovers panics, routes and logs.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &recorder{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			h.log.Error("admin API handler panicked", "method", r.Method, "path", r.URL.Path, "panic", p)
			if !rec.wrote {
				writeJSON(rec, http.StatusInternalServerError, errorBody{fmt.Sprintf("internal error: %v", p)})
			}
		}
		h.log.Debug("admin request", "method", r.Method, "path", r.URL.Path, "status", rec.status(), "duration", time.Since(start), "remote", r.RemoteAddr)
	}()

	if msg, ok := h.authorize(r); !ok {
		challenge := `Bearer realm="barrhawk-admin"`
		if r.Header.Get("Authorization") != "" {
			challenge += `, error="invalid_token"`
		}
		rec.Header().Set("WWW-Authenticate", challenge)
		writeJSON(rec, http.StatusUnauthorized, errorBody{msg})
		return
	}
	if r.ContentLength > MaxBodyBytes {
		rec.Header().Set("Connection", "close")
		writeJSON(rec, http.StatusRequestEntityTooLarge, errorBody{tooLarge(r.ContentLength)})
		return
	}
	r.Body = http.MaxBytesReader(rec, r.Body, MaxBodyBytes)
	h.mux.ServeHTTP(rec, r)
}

// authorize checks the bearer token; on failure it returns the reason.
func (h *handler) authorize(r *http.Request) (string, bool) {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return "missing credentials: send the header Authorization: Bearer <token>", false
	}
	scheme, tok, _ := strings.Cut(auth, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return fmt.Sprintf("unsupported authorization scheme %q: send Authorization: Bearer <token>", scheme), false
	}
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return "empty bearer token: send Authorization: Bearer <token>", false
	}
	// Hashing first makes the comparison constant-time in the length too.
	got := sha256.Sum256([]byte(tok))
	if subtle.ConstantTimeCompare(got[:], h.tokenHash[:]) != 1 {
		return "invalid bearer token", false
	}
	return "", true
}

func tooLarge(n int64) string {
	s := fmt.Sprintf("request body exceeds the limit of %d bytes (10 MiB)", MaxBodyBytes)
	if n > 0 {
		s = fmt.Sprintf("request body of %d bytes exceeds the limit of %d bytes (10 MiB)", n, MaxBodyBytes)
	}
	return s
}

func (h *handler) health(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, h.b.Health())
}

func (h *handler) tools(w http.ResponseWriter, _ *http.Request) {
	list := h.b.Tools()
	if list == nil {
		list = []ToolInfo{}
	}
	writeJSON(w, http.StatusOK, list)
}

func (h *handler) call(w http.ResponseWriter, r *http.Request) {
	name, args, status, msg := parseCall(r.Body)
	if status != 0 {
		if status == http.StatusRequestEntityTooLarge {
			w.Header().Set("Connection", "close")
		}
		writeJSON(w, status, errorBody{msg})
		return
	}
	res, terr := h.b.Call(r.Context(), name, args)
	if terr != nil {
		text := "Tool: " + name + "\nError: " + terr.Text()
		writeJSON(w, http.StatusOK, callResult{Content: []content{{Type: "text", Text: text}}, IsError: true})
		return
	}
	text := "null"
	if len(res) > 0 {
		text = string(res)
	}
	writeJSON(w, http.StatusOK, callResult{Content: []content{{Type: "text", Text: text}}})
}

// parseCall reads a POST /call body. On failure it returns the HTTP status
// (400 or 413) and a message naming what was wrong and the expected shape.
func parseCall(body io.Reader) (name string, args json.RawMessage, status int, msg string) {
	bad := func(format string, a ...any) (string, json.RawMessage, int, string) {
		return "", nil, http.StatusBadRequest, fmt.Sprintf(format, a...) + "; " + expectedCallShape
	}
	data, err := io.ReadAll(body)
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			return "", nil, http.StatusRequestEntityTooLarge, tooLarge(0)
		}
		return bad("reading the request body: %v", err)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return bad("request body is empty")
	}
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return bad("request body is not valid JSON (%v)", err)
	}
	if data[0] != '{' {
		return bad("request body must be a JSON object, got %s", rawjson.Kind(data))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return bad("request body: %v", err)
	}
	var unknown []string
	for k := range fields {
		if k != "tool" && k != "args" {
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return bad("unknown field %s", strings.Join(unknown, ", "))
	}
	rawTool, ok := fields["tool"]
	if !ok {
		return bad(`missing field "tool"`)
	}
	if err := json.Unmarshal(rawTool, &name); err != nil || rawTool[0] != '"' {
		return bad(`field "tool" must be a string, got %s`, rawjson.Kind(rawTool))
	}
	if strings.TrimSpace(name) == "" {
		return bad(`field "tool" is empty`)
	}
	args = fields["args"]
	switch {
	case len(args) == 0 || string(args) == "null":
		args = json.RawMessage("{}")
	case args[0] != '{':
		return bad(`field "args" must be a JSON object, got %s`, rawjson.Kind(args))
	}
	return name, args, 0, ""
}

func (h *handler) reload(w http.ResponseWriter, r *http.Request) {
	loaded, err := h.b.Reload(r.Context())
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, result{Error: err.Error()})
		return
	}
	if loaded == nil {
		loaded = []string{}
	}
	// Loaded is omitempty for the error shape; write it explicitly here so
	// an empty reload still shows "loaded": [].
	writeJSON(w, http.StatusOK, struct {
		Success bool     `json:"success"`
		Loaded  []string `json:"loaded"`
	}{true, loaded})
}

func (h *handler) deleteTool(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	err := h.b.DeleteTool(r.Context(), name)
	if err == nil {
		writeJSON(w, http.StatusOK, result{Success: true})
		return
	}
	status := http.StatusInternalServerError
	if te := (*tool.Error)(nil); errors.As(err, &te) {
		switch te.Code {
		case tool.CodeNotFound, tool.CodeUnknownTool:
			status = http.StatusNotFound
		case tool.CodeForbidden:
			status = http.StatusForbidden
		case tool.CodeInvalidArgs:
			status = http.StatusBadRequest
		}
	}
	writeJSON(w, status, result{Error: err.Error()})
}

func (h *handler) shutdown(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, result{Success: true})
	_ = http.NewResponseController(w).Flush() // the answer is out before the front stops
	h.b.Shutdown()
}

// writeJSON encodes v first, so an encoding failure becomes a clean 500.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		_ = json.NewEncoder(&buf).Encode(errorBody{fmt.Sprintf("encoding the response: %v", err)})
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/json; charset=utf-8")
	hd.Set("Content-Length", strconv.Itoa(buf.Len()))
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// recorder remembers the status written, for the request log.
type recorder struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.code, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.code, r.wrote = http.StatusOK, true
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *recorder) status() int {
	if !r.wrote {
		return http.StatusOK
	}
	return r.code
}

// CheckAddress refuses an admin address that is not on loopback unless
// allowRemote: a host that is empty (all interfaces), a non-loopback IP, or
// a host name other than "localhost". It also refuses an address that is not
// host:port with a numeric port. Errors name the address and, for a remote
// one, the flag [AllowRemoteFlag] that forces it.
func CheckAddress(addr string, allowRemote bool) error {
	return loopback.Check("admin address", addr, allowRemote, AllowRemoteFlag)
}

// Serve checks addr with [CheckAddress], listens on it and serves h until ctx
// ends; then it stops accepting connections and lets in-flight requests
// finish for up to [ShutdownGrace] before closing them. It returns the bound
// address (the real port for ":0") and a channel that receives once, when the
// server has stopped (nil after a clean stop, else the error that stopped
// it), and is then closed. If it cannot listen, it returns an error and no
// server runs.
func Serve(ctx context.Context, addr string, allowRemote bool, h http.Handler) (net.Addr, <-chan error, error) {
	return loopback.Serve(ctx, "admin address", addr, allowRemote, AllowRemoteFlag, h)
}
