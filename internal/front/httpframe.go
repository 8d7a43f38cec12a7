package front

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// checkFrames puts the stdio transport's frame rules in front of the SDK's
// streamable HTTP handler: a POST body over maxBytes is answered 413, a
// body that is not a JSON-RPC message (or, where the protocol has none, a
// batch) 400, each with a JSON-RPC error body naming what was wrong; the
// SDK sees only what passed. Errors the SDK itself answers in plain text
// (no session, wrong method, ...) are turned into JSON-RPC error bodies
// too, keeping their status.
func checkFrames(next http.Handler, maxBytes int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var id json.RawMessage
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(maxBytes)))
			if err != nil {
				var tooBig *http.MaxBytesError
				if errors.As(err, &tooBig) {
					writeRPCError(w, http.StatusRequestEntityTooLarge, invalidRequest(nil, "the message is over %d bytes, the most accepted (config mcp.maxMessageBytes)", maxBytes))
					return
				}
				writeRPCError(w, http.StatusBadRequest, parseError("reading the request body: %v", err))
				return
			}
			msg := bytes.TrimSpace(body)
			e := checkHTTPMessage(msg, r.Header.Get("Mcp-Protocol-Version"))
			if e == nil && r.Header.Get("Mcp-Session-Id") == "" {
				e = beforeInitialize(msg)
			}
			if e != nil {
				writeRPCError(w, http.StatusBadRequest, e)
				return
			}
			if msg[0] == '{' {
				id = lenientID(msg)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		rw := &rpcErrorWriter{ResponseWriter: w, id: id}
		next.ServeHTTP(rw, r)
		rw.finish()
	})
}

// checkHTTPMessage applies the frame rules to one POST body. Batches pass
// only under a protocol that has them (before 2025-06-18, named by the
// Mcp-Protocol-Version header), each of their elements checked.
func checkHTTPMessage(msg []byte, protocol string) *frameError {
	if len(msg) == 0 {
		return parseError("the request body is empty; it must hold one JSON-RPC message")
	}
	if e := checkSyntax(msg); e != nil {
		return e
	}
	if msg[0] != '[' {
		_, e := parseMessage(msg)
		return e
	}
	if protocol == "" || protocol >= "2025-06-18" {
		p := protocol
		if p == "" {
			p = "2025-06-18 and later"
		}
		return invalidRequest(nil, "a batch (JSON array), but protocol %s has no batches (they were removed in 2025-06-18); send one message per request", p)
	}
	elems := splitBatch(msg)
	if len(elems) == 0 {
		return invalidRequest(nil, "an empty batch")
	}
	for i, el := range elems {
		if _, e := parseMessage(el); e != nil {
			e.msg = fmt.Sprintf("batch element %d: %s", i, e.msg)
			return e
		}
	}
	return nil
}

// beforeInitialize refuses a request sent without a session before the
// session's initialize (the SDK would answer it with an error that has no
// JSON-RPC code). Requests of the 2026-07-28 sessionless protocol pass.
func beforeInitialize(msg []byte) *frameError {
	if msg[0] != '{' {
		return nil
	}
	f, e := parseMessage(msg)
	if e != nil || !f.isCall() || beforeInit[f.method] || newProtocol(f.params) {
		return nil
	}
	return invalidRequest(f.id, "%s before initialize: start with an initialize request, then send its Mcp-Session-Id header with every request", f.method)
}

func writeRPCError(w http.ResponseWriter, status int, e *frameError) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(errorLine(e), '\n')) // the client has gone if this fails
}

// rpcErrorWriter turns an error status answered in plain text into the
// same status with a JSON-RPC error body.
type rpcErrorWriter struct {
	http.ResponseWriter
	id      json.RawMessage
	status  int
	text    bytes.Buffer
	capture bool
}

func (w *rpcErrorWriter) WriteHeader(status int) {
	ct := w.Header().Get("Content-Type")
	if status >= 400 && !strings.Contains(ct, "json") && !strings.Contains(ct, "event-stream") {
		w.capture, w.status = true, status
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *rpcErrorWriter) Write(b []byte) (int, error) {
	if w.capture {
		if w.text.Len() < 4<<10 {
			w.text.Write(b)
		}
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Flush passes flushes on: the SDK streams server-sent events.
func (w *rpcErrorWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.capture {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *rpcErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish writes the captured error, if any.
func (w *rpcErrorWriter) finish() {
	if !w.capture {
		return
	}
	msg := strings.TrimSpace(w.text.String())
	if msg == "" {
		msg = http.StatusText(w.status)
	}
	w.Header().Del("Content-Length")
	e := invalidRequest(w.id, "%s (HTTP %d)", msg, w.status)
	if strings.Contains(msg, "not handled") { // the SDK's words for an unknown method
		e = &frameError{code: jsonrpc.CodeMethodNotFound, id: w.id, msg: fmt.Sprintf("Method not found: %s", msg)}
	}
	writeRPCError(w.ResponseWriter, w.status, e)
}
