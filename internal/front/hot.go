package front

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"

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
// every transport. What the SDK's path adds is kept: an unknown tool is
// answered -32602 with the closest names (the same text as suggestTools),
// nil content becomes [], a cancelled call gets no answer. A request with
// the 2026-07-28 per-request metadata takes it once the SDK has seen the
// session's first (perrequest.go).
//
// Put per-call behaviour in the tool handler, not in SDK middleware: a
// receiving middleware does not see hot-path calls.

// callHot answers one tools/call frame with a whole response line, or nil
// if the call was cancelled. perRequest: the frame is of the 2026-07-28
// per-request protocol, whose result carries the server's info and its
// resultType.
func (s *Server) callHot(ctx context.Context, ss *mcp.ServerSession, f *frame, perRequest bool) []byte {
	if len(f.params) == 0 || f.params[0] != '{' {
		return errorLine(&frameError{code: jsonrpc.CodeInvalidParams, id: f.id, msg: `tools/call needs params {"name": TOOL, "arguments": {...}}`})
	}
	p, err := parseCallParams(f.params)
	if err != nil {
		return errorLine(&frameError{code: jsonrpc.CodeInvalidParams, id: f.id, msg: "tools/call params: " + err.Error()})
	}
	if p.Name == "" {
		return errorLine(&frameError{code: jsonrpc.CodeInvalidParams, id: f.id, msg: `tools/call needs "name": the tool to call (tools/list names them)`})
	}
	h := s.toolHandler(p.Name)
	if h == nil && s.doctor.AwaitTool(ctx, p.Name) {
		h = s.toolHandler(p.Name)
	}
	if h == nil {
		return errorLine(&frameError{code: jsonrpc.CodeInvalidParams, id: f.id, msg: s.doctor.UnknownTool(p.Name).Error()})
	}
	var meta mcp.Meta
	if p.Meta.ProgressToken != nil {
		meta = mcp.Meta{"progressToken": p.Meta.ProgressToken}
	}
	res, err := h(ctx, &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Meta: meta, Name: p.Name, Arguments: p.Arguments}})
	if ctx.Err() != nil {
		return nil
	}
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
			return errorLine(&frameError{code: jsonrpc.CodeInternalError, id: f.id, msg: "encoding the result of " + strconv.Quote(p.Name) + ": " + err.Error()})
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
// valid JSON and valid UTF-8 (checkSyntax). The common shape (a plain string name, raw arguments, a
// _meta object without a progress token) is read from the bytes; anything
// else is left to encoding/json, whose verdicts and messages stand:
// json.Unmarshal took a sixth of the hot path's own CPU.
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
