package front

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/barrhawk/barrhawk/internal/rawjson"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A frame is one JSON-RPC message as it arrives, checked before anything
// else reads it: every transport runs it through checkSyntax and
// parseMessage first, so malformed input gets the JSON-RPC answer it calls
// for (and the session goes on) instead of reaching the SDK, whose stdio
// reader cannot resynchronise after a bad line (go-sdk issue 1209).
type frame struct {
	// raw is the whole message.
	raw []byte
	// id is the raw "id" member (nil when absent); jid is its parsed form.
	id  json.RawMessage
	jid jsonrpc.ID
	// method is the decoded "method"; hasMethod tells a request or
	// notification from a response.
	method    string
	hasMethod bool
	// params is the raw "params" member, nil when absent.
	params json.RawMessage
	// response is set for a message with a "result" or an "error".
	response bool
}

// isCall reports whether the frame is a request that expects an answer.
func (f *frame) isCall() bool { return f.hasMethod && f.id != nil }

// frameError is a malformed message's JSON-RPC error, with the id to
// answer (nil: answer with id null).
type frameError struct {
	code int64
	msg  string
	id   json.RawMessage
}

func (e *frameError) Error() string { return e.msg }

// maxDepth bounds how deeply a message may nest: the SDK refuses more than
// 1000 levels, and no MCP message needs a tenth of that.
const maxDepth = 1000

func parseError(msg string, args ...any) *frameError {
	return &frameError{code: jsonrpc.CodeParseError, msg: "Parse error: " + fmt.Sprintf(msg, args...)}
}

func invalidRequest(id json.RawMessage, msg string, args ...any) *frameError {
	return &frameError{code: jsonrpc.CodeInvalidRequest, id: id, msg: "Invalid Request: " + fmt.Sprintf(msg, args...)}
}

// checkSyntax checks that b is one JSON value in UTF-8, nested at most
// maxDepth levels. Its errors say where the fault is; for text that is
// JSON in all but its encoding or depth, they carry the id when the
// message's top level gives one, so the client learns which request failed.
func checkSyntax(b []byte) *frameError {
	if !utf8.Valid(b) {
		off := invalidUTF8At(b)
		e := parseError("the message is not valid UTF-8 (first bad byte at offset %d); JSON text must be UTF-8", off)
		e.id = lenientID(b)
		return e
	}
	if d := rawjson.Depth(b); d > maxDepth {
		e := invalidRequest(nil, "the message nests %d levels deep; at most %d levels are accepted", d, maxDepth)
		e.id = lenientID(b)
		return e
	}
	if !json.Valid(b) {
		var v json.RawMessage
		err := json.Unmarshal(b, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return parseError("not valid JSON at offset %d: %s", se.Offset, se.Error())
		}
		return parseError("not valid JSON")
	}
	return nil
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// lenientID finds a usable top-level id in a message that is not valid as
// a whole (bad UTF-8 elsewhere, too deep, or only its first bytes), or
// returns nil.
func lenientID(b []byte) json.RawMessage {
	b = b[rawjson.SkipSpace(b, 0):]
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	var id json.RawMessage
	rawjson.Members(b, func(key, value []byte) bool {
		if string(key) == "id" {
			// parseID accepts what ParseInt does ("00", "+1"); the id is
			// echoed as it came, so it must be valid JSON on its own.
			if _, err := parseID(value); err == nil && string(value) != "null" && json.Valid(value) {
				id = bytes.Clone(value)
			}
			return false
		}
		return true
	})
	return id
}

// maxSafeInt is the largest integer a JSON number holds exactly
// everywhere (2^53).
const maxSafeInt = 1 << 53

// parseID turns a raw id into the SDK's form. MCP ids are strings or
// integers.
func parseID(raw []byte) (jsonrpc.ID, error) {
	switch {
	case len(raw) == 0:
		return jsonrpc.ID{}, errors.New("empty id")
	case raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return jsonrpc.ID{}, err
		}
		return jsonrpc.MakeID(s)
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return jsonrpc.ID{}, fmt.Errorf("the id %s is not an integer", raw)
		}
		if n > maxSafeInt || n < -maxSafeInt {
			return jsonrpc.ID{}, fmt.Errorf("the id %s is larger than 2^53", raw)
		}
		return jsonrpc.MakeID(float64(n))
	case string(raw) == "null":
		return jsonrpc.ID{}, errors.New("the id is null")
	case raw[0] == '{':
		return jsonrpc.ID{}, errors.New("the id is an object")
	case raw[0] == '[':
		return jsonrpc.ID{}, errors.New("the id is an array")
	}
	return jsonrpc.ID{}, fmt.Errorf("the id is %s", raw)
}

// parseMessage checks one message that is valid JSON (checkSyntax passed):
// a JSON object with "jsonrpc":"2.0", a string or integer id, and either
// a non-empty method (request, notification) or a result or error
// (response).
func parseMessage(b []byte) (*frame, *frameError) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return nil, invalidRequest(nil, "a message must be a JSON object, not %s", rawjson.Kind(b))
	}
	f := &frame{raw: b}
	var version, method []byte
	rawjson.Members(b, func(key, value []byte) bool {
		switch string(key) {
		case "jsonrpc":
			version = value
		case "id":
			f.id = value
		case "method":
			method = value
			f.hasMethod = true
		case "params":
			f.params = value
		case "result", "error":
			f.response = true
		}
		return true
	})
	var idErr error
	if f.id != nil {
		f.jid, idErr = parseID(f.id)
	}
	answerID := f.id
	if idErr != nil {
		answerID = nil
	}
	if string(version) != `"2.0"` {
		if version == nil {
			return nil, invalidRequest(answerID, `the message has no "jsonrpc" member; it must be "jsonrpc":"2.0"`)
		}
		return nil, invalidRequest(answerID, `"jsonrpc" is %s; it must be "2.0"`, version)
	}
	if idErr != nil && !(string(f.id) == "null" && f.response) {
		return nil, invalidRequest(nil, "%v; an id must be a string or an integer", idErr)
	}
	if !f.hasMethod {
		if f.response {
			return f, nil
		}
		return nil, invalidRequest(answerID, `the message has no "method"; a request needs a non-empty "method" string`)
	}
	if len(method) == 0 || method[0] != '"' {
		return nil, invalidRequest(answerID, `"method" is %s; it must be a non-empty string`, rawjson.Kind(method))
	}
	if bytes.IndexByte(method, '\\') < 0 {
		f.method = methodName(method[1 : len(method)-1])
	} else if err := json.Unmarshal(method, &f.method); err != nil {
		return nil, invalidRequest(answerID, `"method" is not a valid string: %v`, err)
	}
	if f.method == "" {
		return nil, invalidRequest(answerID, `"method" is empty; it must name a method`)
	}
	if f.params != nil && f.params[0] != '{' && f.params[0] != '[' && string(f.params) != "null" {
		return nil, invalidRequest(answerID, `"params" is %s; it must be an object`, rawjson.Kind(f.params))
	}
	return f, nil
}

// splitBatch returns the raw elements of a JSON array that is valid JSON.
func splitBatch(b []byte) [][]byte {
	var out [][]byte
	i := rawjson.SkipSpace(b, 1)
	for i < len(b) && b[i] != ']' {
		end := rawjson.SkipValue(b, i)
		out = append(out, b[i:end])
		i = rawjson.SkipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = rawjson.SkipSpace(b, i+1)
		}
	}
	return out
}

// request is the SDK's form of a request or notification frame.
func (f *frame) request() *jsonrpc.Request {
	var params json.RawMessage
	if len(f.params) > 0 && string(f.params) != "null" {
		params = f.params
	}
	return &jsonrpc.Request{ID: f.jid, Method: f.method, Params: params}
}

// errorLine encodes a JSON-RPC error response for e.
func errorLine(e *frameError) []byte {
	id := e.id
	if id == nil {
		id = json.RawMessage("null")
	}
	msg, _ := json.Marshal(e.msg) // a string always marshals
	b := make([]byte, 0, len(msg)+len(id)+64)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, e.code, 10)
	b = append(b, `,"message":`...)
	b = append(b, msg...)
	b = append(b, "}}"...)
	return b
}

// methodName is name as a string, without allocating one for the methods
// a session sends most.
func methodName(name []byte) string {
	switch string(name) {
	case "tools/call":
		return "tools/call"
	case "notifications/cancelled":
		return "notifications/cancelled"
	case "notifications/progress":
		return "notifications/progress"
	case "tools/list":
		return "tools/list"
	case "ping":
		return "ping"
	}
	return string(name)
}
