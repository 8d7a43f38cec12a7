package front

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"github.com/barrhawk/barrhawk/internal/doctor"
	"github.com/barrhawk/barrhawk/internal/rawjson"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The hot path. Most of what an agent sends is tools/call, and the SDK's
// generic request path spent more CPU on one than the whole call takes
// elsewhere (docs/PERFORMANCE.md: a 32 KiB decoder per unmarshal, about
// three unmarshals per request, goroutine hand-offs). On stdio, once the
// session is initialized, lineConn sends a tools/call here instead: the
// params are read once, and the very mcp.ToolHandler the SDK would call
// (Server.toolHandler) answers it, so a tool call has one code path on
// every transport. A quick tool's call (tool.Def.Quick) skips the handler's
// goroutine: Doctor.CallNow runs it and the handler's last step
// (Server.toolResult) answers it on the goroutine reading its Igor; it
// needs none of what the handler puts in the call's context first (roots,
// the session's bag, progress, questions to the user). What the SDK's path
// adds is kept: an unknown tool is
// answered -32602 with the closest names (the same text as suggestTools),
// nil content becomes [], a cancelled call gets no answer. A request with
// the 2026-07-28 per-request metadata takes it once the SDK has seen the
// session's first (perrequest.go).
//
// Put per-call behaviour in the tool handler, not in SDK middleware: a
// receiving middleware does not see hot-path calls.

// callHot answers one tools/call frame: answer gets the whole response
// line, or nil if the call was cancelled. A quick tool's call that an Igor
// can take at once is answered without a goroutine of its own, on the
// goroutine reading that Igor's replies (callNow); any other runs on a
// goroutine of the calls pool. perRequest: the frame is of the 2026-07-28
// per-request protocol, whose result carries the server's info and its
// resultType.
func (s *Server) callHot(ctx context.Context, ss *mcp.ServerSession, f *frame, perRequest bool, answer func([]byte)) {
	if len(f.params) == 0 || f.params[0] != '{' {
		answer(errorLine(&frameError{code: jsonrpc.CodeInvalidParams, id: f.id, msg: `tools/call needs params {"name": TOOL, "arguments": {...}}`}))
		return
	}
	p, err := parseCallParams(f.params)
	if err != nil {
		answer(errorLine(&frameError{code: jsonrpc.CodeInvalidParams, id: f.id, msg: "tools/call params: " + err.Error()}))
		return
	}
	if p.Name == "" {
		answer(errorLine(&frameError{code: jsonrpc.CodeInvalidParams, id: f.id, msg: `tools/call needs "name": the tool to call (tools/list names them)`}))
		return
	}
	req := callRequest(ss, &p)
	if s.callNow(ctx, f, req, perRequest, answer) {
		return
	}
	calls.Go(func() { answer(s.callWait(ctx, f, req, perRequest)) })
}

// callRequest is the request the tool handler gets for a hot-path call.
func callRequest(ss *mcp.ServerSession, p *callParams) *mcp.CallToolRequest {
	var meta mcp.Meta
	if p.Meta.ProgressToken != nil {
		meta = mcp.Meta{"progressToken": p.Meta.ProgressToken}
	}
	return &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Meta: meta, Name: p.Name, Arguments: p.Arguments}}
}

// callNow answers a quick tool's call when an Igor can take it at once
// (Doctor.CallNow), doing what the tool handler does for such a call: it
// records the call and turns its result into the response line. It reports
// false, having done nothing, otherwise.
func (s *Server) callNow(ctx context.Context, f *frame, req *mcp.CallToolRequest, perRequest bool, answer func([]byte)) bool {
	name, start := req.Params.Name, time.Now()
	return s.doctor.CallNow(ctx, name, req.Params.Arguments, func(r doctor.Result) {
		res := s.toolResult(start, req, name, r)
		if ctx.Err() != nil {
			answer(nil)
			return
		}
		answer(s.responseLine(f, name, res, nil, perRequest))
	})
}

// callWait runs a call through its tool handler on this goroutine and
// returns the response line (nil: cancelled).
func (s *Server) callWait(ctx context.Context, f *frame, req *mcp.CallToolRequest, perRequest bool) []byte {
	name := req.Params.Name
	h := s.toolHandler(name)
	if h == nil && s.doctor.AwaitTool(ctx, name) {
		h = s.toolHandler(name)
	}
	if h == nil {
		return errorLine(&frameError{code: jsonrpc.CodeInvalidParams, id: f.id, msg: s.doctor.UnknownTool(name).Error()})
	}
	res, err := h(ctx, req)
	if ctx.Err() != nil {
		return nil
	}
	return s.responseLine(f, name, res, err, perRequest)
}

// responseLine is the response to f, a call of tool name, of its result or
// its handler's error.
func (s *Server) responseLine(f *frame, name string, res *mcp.CallToolResult, err error, perRequest bool) []byte {
	if err != nil {
		code := int64(jsonrpc.CodeInternalError)
		var we *jsonrpc.Error
		if errors.As(err, &we) && we.Code != 0 {
			code = we.Code
		}
		return errorLine(&frameError{code: code, id: f.id, msg: err.Error()})
	}
	if res.Content == nil {
		res.Content = []mcp.Content{}
	}
	line := make([]byte, 0, resultSize(res)+len(f.id)+64)
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = append(line, f.id...)
	line = append(line, `,"result":`...)
	start := len(line)
	if more, ok := appendResult(line, res); ok {
		line = more
	} else {
		body, err := json.Marshal(res)
		if err != nil {
			return errorLine(&frameError{code: jsonrpc.CodeInternalError, id: f.id, msg: "encoding the result of " + strconv.Quote(name) + ": " + err.Error()})
		}
		line = append(line, body...)
	}
	if perRequest {
		line = append(line[:start], perRequestResult(line[start:], s.serverInfo)...)
	}
	return append(line, '}')
}

// callParams are the params of a tools/call that the hot path reads. Of
// _meta, the handler reads only the progress token: its other members (the
// per-request protocol's, say) are skipped, not decoded into maps.
type callParams struct {
	Meta struct {
		ProgressToken any `json:"progressToken"`
	} `json:"_meta"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// parseCallParams reads the params of a tools/call, an object known to be
// valid JSON and valid UTF-8 (checkSyntax). The common shape (a plain
// string name, raw arguments, a _meta object without a progress token) is
// read from the bytes; anything else is left to encoding/json, whose
// verdicts and messages stand: json.Unmarshal took a sixth of the hot
// path's own CPU.
func parseCallParams(params []byte) (callParams, error) {
	var p callParams
	plain := true
	rawjson.Members(params, func(key, value []byte) bool {
		switch string(key) {
		case "name":
			if len(value) < 2 || value[0] != '"' || bytes.IndexByte(value, '\\') >= 0 {
				plain = false
				return false
			}
			p.Name = string(value[1 : len(value)-1])
		case "arguments":
			p.Arguments = value
		case "_meta":
			plain = value[0] == '{' && !bytes.Contains(value, []byte(`"progressToken"`))
		default:
			// encoding/json matches keys without regard to case.
			plain = !bytes.EqualFold(key, []byte("name")) && !bytes.EqualFold(key, []byte("arguments")) && !bytes.EqualFold(key, []byte("_meta")) && bytes.IndexByte(key, '\\') < 0
		}
		return plain
	})
	if plain {
		return p, nil
	}
	var slow callParams // apart from p, which then stays off the heap
	err := json.Unmarshal(params, &slow)
	return slow, err
}

// resultSize estimates the encoded size of res, to allocate once.
func resultSize(res *mcp.CallToolResult) int {
	n := 64
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			n += len(t.Text) + len(t.Text)/8 + 32
		}
	}
	if raw, ok := res.StructuredContent.(json.RawMessage); ok {
		n += len(raw) + 24
	}
	return n
}

// appendResult appends the JSON of res, for the shapes the tool handlers
// build (text content, raw structured content, isError), as json.Marshal
// would write it; it reports false for any other shape, which the caller
// leaves to json.Marshal. The reflection-driven encoder cost a tenth of the
// front's CPU per call.
func appendResult(b []byte, res *mcp.CallToolResult) ([]byte, bool) {
	if res.Meta != nil || res.InputRequests != nil || res.RequestState != "" || res.NeedsInput() {
		return b, false
	}
	b = append(b, `{"content":[`...)
	for i, c := range res.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok || t.Meta != nil || t.Annotations != nil {
			return b, false
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"text","text":`...)
		b = rawjson.AppendString(b, t.Text)
		b = append(b, '}')
	}
	b = append(b, ']')
	switch sc := res.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		b = append(b, `,"structuredContent":`...)
		b = append(b, sc...)
	default:
		return b, false
	}
	if res.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}'), true
}
