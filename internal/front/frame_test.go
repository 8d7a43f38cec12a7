package front

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestCheckAndParseFrames(t *testing.T) {
	t.Parallel()
	deep := `{"jsonrpc":"2.0","id":3,"method":"x","params":{"a":` + strings.Repeat("[", 1200) + strings.Repeat("]", 1200) + `}}`
	for _, c := range []struct {
		name, in string
		code     int64  // 0: valid
		id       string // the id the error answers ("" for null)
		want     string // in the message
	}{
		{name: "request", in: `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{name: "notification", in: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{name: "string id and escaped method", in: `{"id":"a\"b","jsonrpc":"2.0","method":"tools\/list","params":{}}`},
		{name: "response", in: `{"jsonrpc":"2.0","id":7,"result":{}}`},
		{name: "error response with null id", in: `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}`},
		{name: "truncated", in: `{"jsonrpc":"2.0","id":1,`, code: -32700, want: "offset"},
		{name: "not UTF-8", in: "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"x\",\"params\":{\"s\":\"\xff\"}}", code: -32700, id: "2", want: "offset 52"},
		{name: "too deep", in: deep, code: -32600, id: "3", want: "1202 levels"},
		{name: "not an object", in: `"ping"`, code: -32600, want: "a string"},
		{name: "no jsonrpc", in: `{"id":4,"method":"ping"}`, code: -32600, id: "4", want: `no "jsonrpc"`},
		{name: "jsonrpc 1.0", in: `{"jsonrpc":"1.0","id":5,"method":"ping"}`, code: -32600, id: "5", want: `"1.0"`},
		{name: "object id", in: `{"jsonrpc":"2.0","id":{},"method":"ping"}`, code: -32600, want: "object"},
		{name: "array id", in: `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, code: -32600, want: "array"},
		{name: "bool id", in: `{"jsonrpc":"2.0","id":true,"method":"ping"}`, code: -32600, want: "true"},
		{name: "null id request", in: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, code: -32600, want: "null"},
		{name: "fraction id", in: `{"jsonrpc":"2.0","id":2.5,"method":"ping"}`, code: -32600, want: "integer"},
		{name: "huge id", in: `{"jsonrpc":"2.0","id":99999999999999999,"method":"ping"}`, code: -32600, want: "2^53"},
		{name: "no method", in: `{"jsonrpc":"2.0","id":6}`, code: -32600, id: "6", want: `no "method"`},
		{name: "number method", in: `{"jsonrpc":"2.0","id":7,"method":5}`, code: -32600, id: "7", want: "a number"},
		{name: "empty method", in: `{"jsonrpc":"2.0","id":8,"method":""}`, code: -32600, id: "8", want: "empty"},
		{name: "string params", in: `{"jsonrpc":"2.0","id":9,"method":"x","params":"p"}`, code: -32600, id: "9", want: "params"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := []byte(c.in)
			e := checkSyntax(in)
			var f *frame
			if e == nil {
				f, e = parseMessage(in)
			}
			if c.code == 0 {
				if e != nil {
					t.Fatalf("want valid, got %d %s", e.code, e.msg)
				}
				if f.hasMethod && f.request().Method == "" {
					t.Errorf("no method decoded")
				}
				return
			}
			if e == nil {
				t.Fatalf("want error %d, got a valid frame", c.code)
			}
			if e.code != c.code || string(e.id) != c.id || !strings.Contains(e.msg, c.want) {
				t.Errorf("want %d id %q containing %q, got %d id %q %q", c.code, c.id, c.want, e.code, e.id, e.msg)
			}
			var answer map[string]any
			if err := json.Unmarshal(errorLine(e), &answer); err != nil || answer["jsonrpc"] != "2.0" {
				t.Errorf("error line is not a JSON-RPC answer: %s", errorLine(e))
			}
		})
	}
}

func TestParseMessageDecodesFields(t *testing.T) {
	t.Parallel()
	f, e := parseMessage([]byte(` {"params":{"name":"a"},"method":"tools\/call","id":"x\u0041","jsonrpc":"2.0"} `))
	if e != nil {
		t.Fatal(e)
	}
	want, _ := jsonrpc.MakeID("xA")
	if f.method != "tools/call" || f.jid != want || string(f.params) != `{"name":"a"}` || !f.isCall() {
		t.Errorf("got method %q id %v params %s", f.method, f.jid, f.params)
	}
	if got := splitBatch([]byte(`[ {"a":[1,"]"]} , 2,"x" ]`)); len(got) != 3 || string(got[0]) != `{"a":[1,"]"]}` || string(got[2]) != `"x"` {
		t.Errorf("splitBatch: %q", got)
	}
	if id := lenientID([]byte(`{"jsonrpc":"2.0","id":"cut","method":"x","params":{"s":"abc`)); string(id) != `"cut"` {
		t.Errorf("lenientID of a cut message: %s", id)
	}
	if id := lenientID([]byte(`{"params":{"id":1},"id":{"x":1}}`)); id != nil {
		t.Errorf("lenientID must ignore nested and unusable ids, got %s", id)
	}
}

func TestAppendResultMatchesSDKEncoding(t *testing.T) {
	t.Parallel()
	for _, res := range []*mcp.CallToolResult{
		{Content: []mcp.Content{}},
		{Content: []mcp.Content{&mcp.TextContent{Text: `{"a":"<b>"}`}}, StructuredContent: json.RawMessage(`{"a":"<b>"}`)},
		{Content: []mcp.Content{&mcp.TextContent{Text: "INVALID_ARGS: x"}}, IsError: true},
		{Content: []mcp.Content{&mcp.TextContent{Text: "one"}, &mcp.TextContent{Text: "two"}}},
	} {
		got, ok := appendResult(nil, res)
		if !ok {
			t.Fatalf("appendResult refused %+v", res)
		}
		want, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		if json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil {
			t.Fatalf("invalid JSON: %s", got)
		}
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		if !bytes.Equal(gb, wb) {
			t.Errorf("appendResult wrote %s, the SDK %s", got, want)
		}
	}
	if _, ok := appendResult(nil, &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: []byte("x"), MIMEType: "image/png"}}}); ok {
		t.Error("appendResult must leave image content to json.Marshal")
	}
}

// FuzzFrames: any line is either refused with a JSON-RPC error or accepted
// as a message the SDK reads the same way (method, id).
func FuzzFrames(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"a"}]`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"\\u0070ing\"}",
		`{"id":{"a":[1,{"b":"}"}]},"method":"x"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if e := checkSyntax(line); e != nil {
			if !json.Valid(errorLine(e)) {
				t.Fatalf("error answer is not JSON: %s", errorLine(e))
			}
			return
		}
		if bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")) {
			splitBatch(line)
			return
		}
		fr, e := parseMessage(line)
		if e != nil {
			if !json.Valid(errorLine(e)) {
				t.Fatalf("error answer is not JSON: %s", errorLine(e))
			}
			return
		}
		if !fr.hasMethod {
			return
		}
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			t.Fatalf("accepted %s, which the SDK refuses: %v", line, err)
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || req.Method != fr.method || req.ID != fr.jid {
			t.Fatalf("read %q id %v, the SDK %+v", fr.method, fr.jid, msg)
		}
	})
}
