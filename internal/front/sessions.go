package front

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/doctor"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTP sessions are bounded in time and number (mcp.sessionIdleTimeout,
// mcp.maxSessions). The SDK's handler keeps every session a client
// initialized until the client sends DELETE, and a client that crashed or
// forgot never does; each holds its tool bag and the SDK's state. So the
// front keeps a table of the sessions it served, by Mcp-Session-Id, with
// each one's requests in flight and the end of its last request:
//
//   - a session with no request for mcp.sessionIdleTimeout ends;
//   - an initialize at mcp.maxSessions ends the session idle longest, or,
//     when every session has a request in flight, is answered 503 with
//     Retry-After;
//   - a request naming a session not in the table (ended, or never opened)
//     is answered 404, which tells an MCP client to initialize again.
//
// The table is the one clock for both bounds, and whoever ends a session
// says why, so the line logged when it ends names the reason. (The SDK's
// own StreamableHTTPOptions.SessionTimeout closes idle sessions too, but
// says nothing of why a session ended, and its clock is not the one an
// eviction needs.)
//
// A request in flight is a POST (or DELETE) being answered. A GET, the
// standalone stream of server messages a client may keep open all along,
// counts as the session's activity when it starts but not as a request in
// flight: a client that keeps one open, as most do, must still be idle
// when it sends nothing, or no session would ever be idle.

// Why an HTTP session ended, as its log line says.
const (
	endIdle    = "idle timeout"
	endEvicted = "evicted at mcp.maxSessions"
	endDelete  = "client DELETE"
	endClosed  = "closed"
	endNoInit  = "initialize failed"
)

// retryAfter is how long a 503 at mcp.maxSessions asks the client to wait.
const retryAfter = 5 * time.Second

// codeServerBusy is the JSON-RPC code of that 503: JSON-RPC leaves -32000
// to -32099 to the server's own errors.
const codeServerBusy = -32000

// sessionHeader is the streamable HTTP transport's session header.
const sessionHeader = "Mcp-Session-Id"

// httpSessions bounds the sessions of one streamable HTTP handler (next):
// see above.
type httpSessions struct {
	srv  *Server
	next http.Handler
	max  int           // mcp.maxSessions; 0: no bound
	idle time.Duration // mcp.sessionIdleTimeout; 0: never

	mu   sync.Mutex
	live map[string]*httpSession
	// pending counts the initializes being answered: each holds a place
	// under max until its session is in live (or it failed).
	pending int
	// seq orders the ends of requests, so that of two sessions the one
	// idle longer is certain even when the clock reads the same.
	seq uint64
}

// httpSession is one open session as the table sees it.
type httpSession struct {
	id      string
	ss      *mcp.ServerSession
	started time.Time
	// inflight counts its POSTs and DELETEs being answered.
	inflight int
	// last and lastSeq are when its last request ended (or a GET started).
	last    time.Time
	lastSeq uint64
	timer   *time.Timer // the idle timeout's; nil until first idle
	// reason is why it ended, set by whoever ended it; empty while open.
	reason string
}

// boundSessions puts the session table in front of next, the SDK's
// streamable HTTP handler, and makes worker_status show it.
func (s *Server) boundSessions(next http.Handler, maxSessions int, idle time.Duration) *httpSessions {
	t := &httpSessions{srv: s, next: next, max: maxSessions, idle: idle, live: map[string]*httpSession{}}
	s.mu.Lock()
	s.httpTables = append(s.httpTables, t)
	first := len(s.httpTables) == 1
	s.mu.Unlock()
	if first {
		s.doctor.ReportHTTPSessions(s.httpSessionsStatus)
	}
	return t
}

// httpSessionsStatus is worker_status' "httpSessions": the sessions open
// on every HTTP handler of the server, and the bounds.
func (s *Server) httpSessionsStatus() doctor.HTTPSessions {
	cfg := s.doctor.Config().MCP
	st := doctor.HTTPSessions{Max: cfg.MaxSessions, IdleTimeout: cfg.SessionIdleTimeout.String()}
	s.mu.RLock()
	tables := s.httpTables
	s.mu.RUnlock()
	for _, t := range tables {
		st.Open += t.open()
	}
	return st
}

// open is the number of sessions open.
func (t *httpSessions) open() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.live)
}

func (t *httpSessions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(sessionHeader)
	if id == "" {
		if r.Method == http.MethodPost {
			if body := requestBody(r); opensSession(body) {
				t.initialize(w, r, body)
				return
			}
		}
		t.next.ServeHTTP(w, r) // the SDK answers it (a sessionless ping, a wrong method, ...)
		return
	}
	switch r.Method {
	case http.MethodPost:
		e := t.begin(id)
		if e == nil {
			t.notFound(w, r, id)
			return
		}
		defer t.end(e)
	case http.MethodGet:
		if !t.touch(id) {
			t.notFound(w, r, id)
			return
		}
	case http.MethodDelete:
		if !t.deleted(id) {
			t.notFound(w, r, id)
			return
		}
	}
	t.next.ServeHTTP(w, r) // a DELETE: the SDK closes the session and answers 204
}

// requestBody returns a POST's body and puts it back for the SDK. The
// body is in memory already (checkFrames read it), so this is a copy.
func requestBody(r *http.Request) []byte {
	if r.Body == nil {
		return nil
	}
	body, _ := io.ReadAll(r.Body) // checkFrames read it whole before
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body
}

// opensSession reports whether a sessionless POST's body is an initialize
// (alone or, under a protocol that has batches, in a batch): the requests
// whose session stays open. The SDK makes a session for any sessionless
// POST, but closes one that did not initialize once it has answered.
func opensSession(body []byte) bool {
	msg := bytes.TrimSpace(body)
	if len(msg) == 0 {
		return false
	}
	elems := [][]byte{msg}
	if msg[0] == '[' {
		elems = splitBatch(msg)
	}
	for _, el := range elems {
		if f, e := parseMessage(el); e == nil && f.method == "initialize" && f.isCall() {
			return true
		}
	}
	return false
}

// initialize serves a request that opens a session: at max it first ends
// the session idle longest, or answers 503 when none is idle.
func (t *httpSessions) initialize(w http.ResponseWriter, r *http.Request, body []byte) {
	t.mu.Lock()
	var evicted *httpSession
	if t.max > 0 && len(t.live)+t.pending >= t.max {
		evicted = t.idlest()
		if evicted == nil {
			t.mu.Unlock()
			t.busy(w, body)
			return
		}
		t.drop(evicted, endEvicted)
	}
	t.pending++
	t.mu.Unlock()
	if evicted != nil {
		go evicted.ss.Close() // its log line comes from watch, when it has ended
	}
	sw := &sessionStart{ResponseWriter: w, t: t}
	defer func() {
		if !sw.started {
			t.mu.Lock()
			t.pending--
			t.mu.Unlock()
		}
		if sw.e != nil {
			t.end(sw.e)
		}
	}()
	t.next.ServeHTTP(sw, r)
}

// idlest returns the open session idle longest, of those with no request
// in flight, or nil. t.mu is held.
func (t *httpSessions) idlest() *httpSession {
	var best *httpSession
	for _, e := range t.live {
		if e.inflight == 0 && (best == nil || e.lastSeq < best.lastSeq) {
			best = e
		}
	}
	return best
}

// drop takes e out of the table, as ended for reason: from now on its
// requests are answered 404. The caller closes its MCP session (but for
// a DELETE, which the SDK closes). t.mu is held.
func (t *httpSessions) drop(e *httpSession, reason string) {
	delete(t.live, e.id)
	e.reason = reason
	if e.timer != nil {
		e.timer.Stop()
	}
}

// register puts the session the SDK just made for an initialize (its
// answer carries the id) in the table, with that initialize in flight.
// It gives back the place the initialize held.
func (t *httpSessions) register(id string) *httpSession {
	var ss *mcp.ServerSession
	for s := range t.srv.mcp.Sessions() {
		if s.ID() == id {
			ss = s
			break
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending--
	if ss == nil { // the SDK has closed it already
		return nil
	}
	now := time.Now()
	e := &httpSession{id: id, ss: ss, started: now, last: now, inflight: 1}
	t.live[id] = e
	go t.watch(e)
	return e
}

// begin counts a POST of session id in flight, and returns the session,
// or nil when it is not open.
func (t *httpSessions) begin(id string) *httpSession {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.live[id]
	if e == nil {
		return nil
	}
	e.inflight++
	if e.timer != nil {
		e.timer.Stop()
	}
	return e
}

// end counts a request of e answered; with none left in flight, e is idle
// from now.
func (t *httpSessions) end(e *httpSession) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e.inflight--
	t.used(e)
}

// touch records a GET of session id as its activity; false when the
// session is not open.
func (t *httpSessions) touch(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.live[id]
	if e != nil {
		t.used(e)
	}
	return e != nil
}

// used marks e active now and, with no request of it in flight and e
// still open, starts its idle timeout afresh. t.mu is held.
func (t *httpSessions) used(e *httpSession) {
	t.seq++
	e.last, e.lastSeq = time.Now(), t.seq
	if e.inflight > 0 || t.live[e.id] != e || t.idle <= 0 {
		return
	}
	if e.timer == nil {
		e.timer = time.AfterFunc(t.idle, func() { t.expire(e) })
	} else {
		e.timer.Reset(t.idle)
	}
}

// expire ends e when its idle timeout has passed with no request.
func (t *httpSessions) expire(e *httpSession) {
	t.mu.Lock()
	if t.live[e.id] != e || e.inflight > 0 {
		t.mu.Unlock()
		return // ended already, or busy again: a request's end restarts the timer
	}
	if left := t.idle - time.Since(e.last); left > 0 {
		e.timer.Reset(left) // a request ended while this fired
		t.mu.Unlock()
		return
	}
	t.drop(e, endIdle)
	t.mu.Unlock()
	_ = e.ss.Close() // a session that fails to close cleanly has still ended
}

// deleted takes session id out of the table for the client's DELETE;
// false when it is not open.
func (t *httpSessions) deleted(id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.live[id]
	if e != nil {
		t.drop(e, endDelete)
	}
	return e != nil
}

// watch waits for e's MCP session to end, however it ends, then releases
// what the front holds for it and logs why it ended.
func (t *httpSessions) watch(e *httpSession) {
	_ = e.ss.Wait() // how the connection closed does not change what is released
	t.mu.Lock()
	if t.live[e.id] == e {
		reason := endClosed
		if e.ss.InitializeParams() == nil {
			reason = endNoInit
		}
		t.drop(e, reason)
	}
	reason, idle := e.reason, time.Since(e.last)
	t.mu.Unlock()
	t.srv.forgetBag(e.ss)
	t.srv.log.Info("MCP HTTP session ended", "session", e.id, "reason", reason,
		"age", time.Since(e.started).Round(time.Millisecond), "idle", idle.Round(time.Millisecond))
}

// notFound answers a request of a session that is not open: 404, as MCP
// prescribes, after which a client initializes again.
func (t *httpSessions) notFound(w http.ResponseWriter, r *http.Request, id string) {
	var rid []byte
	if r.Method == http.MethodPost {
		rid = lenientID(requestBody(r))
	}
	writeRPCError(w, http.StatusNotFound, invalidRequest(rid,
		"session %.80q not found: it has ended (idle longer than mcp.sessionIdleTimeout, ended at mcp.maxSessions, or closed) or never was; start a new one with an initialize request without Mcp-Session-Id (HTTP 404)", id))
}

// busy answers an initialize at max when every session has a request in
// flight: 503, with Retry-After.
func (t *httpSessions) busy(w http.ResponseWriter, body []byte) {
	secs := int(retryAfter / time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeRPCError(w, http.StatusServiceUnavailable, &frameError{code: codeServerBusy, id: lenientID(body), msg: fmt.Sprintf(
		"Server busy: %d MCP sessions are open, the most mcp.maxSessions allows, and every one has a request in flight, so none can be ended for a new one; retry in %d s (Retry-After), or end a session no longer needed (HTTP DELETE)", t.max, secs)})
}

// sessionStart is the response writer of an initialize: when the answer
// starts, its Mcp-Session-Id header names the session the SDK made, which
// goes in the table before the client can learn the id.
type sessionStart struct {
	http.ResponseWriter
	t       *httpSessions
	started bool
	e       *httpSession
}

func (w *sessionStart) start() {
	if w.started {
		return
	}
	if id := w.Header().Get(sessionHeader); id != "" {
		w.started = true
		w.e = w.t.register(id)
	}
}

func (w *sessionStart) WriteHeader(status int) {
	w.start()
	w.ResponseWriter.WriteHeader(status)
}

func (w *sessionStart) Write(b []byte) (int, error) {
	w.start()
	return w.ResponseWriter.Write(b)
}

// Flush passes flushes on: the SDK streams server-sent events.
func (w *sessionStart) Flush() {
	w.start()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *sessionStart) Unwrap() http.ResponseWriter { return w.ResponseWriter }
