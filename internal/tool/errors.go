package tool

import (
	"errors"
	"fmt"
)

// Error codes: stable strings that agents and tests match on. This is the one
// place they are defined; docs/ERRORS.md lists them for users.
const (
	// CodeInvalidArgs: the arguments do not match the tool's input schema, or
	// a value is outside what the tool accepts; the message names the field
	// and what it expects.
	CodeInvalidArgs = "INVALID_ARGS"
	// CodeUnknownTool: no tool of that name is registered; the message
	// suggests the closest names.
	CodeUnknownTool = "UNKNOWN_TOOL"
	// CodeTimeout: the call ran past its timeout.
	CodeTimeout = "TIMEOUT"
	// CodeWorkerDied: the Igor running the call died, and so did the retry
	// (or the tool is not safe to run twice, and was not retried); or the
	// upstream MCP server running a gateway call died during it (not
	// retried: the next call goes to its restarted process).
	CodeWorkerDied = "WORKER_DIED"
	// CodeWorkerUnavailable: no Igor could be started, or none became free
	// in time.
	CodeWorkerUnavailable = "WORKER_UNAVAILABLE"
	// CodeToolPanic: the tool's code panicked (stack trace included); the
	// Igor survived.
	CodeToolPanic = "TOOL_PANIC"
	// CodeToolError: the tool failed for a reason of its own.
	CodeToolError = "TOOL_ERROR"
	// CodeNotFound: a named thing (file, snapshot, alias) does not exist.
	CodeNotFound = "NOT_FOUND"
	// CodeForbidden: the request is understood but refused (path traversal,
	// a path outside the allowed roots, a protected tool, a missing
	// permission).
	CodeForbidden = "FORBIDDEN"
	// CodeElementNotFound: a browser selector matched nothing in time; the
	// message names the selector and the closest candidates.
	CodeElementNotFound = "ELEMENT_NOT_FOUND"
	// CodeCancelled: the caller cancelled the call, or the server is stopping.
	CodeCancelled = "CANCELLED"
	// CodeMemoryLimit: the Igor running the call went over its memory limit
	// (igors.memoryLimit) and was replaced; the call is not retried.
	CodeMemoryLimit = "MEMORY_LIMIT"
	// CodeResultTooLarge: the result was over the hard bound
	// (tools.maxResultHardBytes) and was not sent; the message says how to
	// ask for less.
	CodeResultTooLarge = "RESULT_TOO_LARGE"
	// CodeConnectionFailed: a server (database, cache) could not be reached
	// or dropped the connection; the message says which and why, with
	// credentials removed. A later call reconnects once it is back.
	CodeConnectionFailed = "CONNECTION_FAILED"
	// CodeQueryError: the server refused a statement (syntax, a missing
	// table, a constraint); the message gives its error code and, for a
	// syntax error, the line and column with the text around them.
	CodeQueryError = "QUERY_ERROR"
	// CodeUpstreamError: another MCP server hosted by the gateway (mcp_*)
	// could not be started, or answered a JSON-RPC error; the message says
	// which server and what it said, with its secrets masked.
	CodeUpstreamError = "UPSTREAM_ERROR"
	// CodeRateLimited: a service's rate limit is spent (GitHub's, for the
	// gh_* tools); the message says when it resets or how long to wait,
	// and a secondary limit that named a short wait was retried once.
	CodeRateLimited = "RATE_LIMITED"
	// CodeInternal: a fault of BarrHawk itself; please report it.
	CodeInternal = "INTERNAL"
)

// Error is a tool failure with a stable code.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Stack   string `json:"stack,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// maxStack caps the stack trace Text includes.
const maxStack = 4 << 10

// Text formats the error for people and agents: "CODE: message", then the
// stack trace (capped at 4 KiB) when there is one.
func (e *Error) Text() string {
	text := e.Code + ": " + e.Message
	if e.Stack != "" {
		st := e.Stack
		if len(st) > maxStack {
			st = st[:maxStack] + "\n..."
		}
		text += "\n\nStack trace:\n" + st
	}
	return text
}

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// AsError converts any error to an *Error, keeping the code of a wrapped
// *Error and using CodeToolError otherwise.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var te *Error
	if errors.As(err, &te) {
		if te.Message == err.Error() || te.Error() == err.Error() {
			return te
		}
		return &Error{Code: te.Code, Message: err.Error(), Stack: te.Stack}
	}
	return &Error{Code: CodeToolError, Message: err.Error()}
}
