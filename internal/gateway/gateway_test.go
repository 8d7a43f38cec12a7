package gateway

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/lines"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestToolName(t *testing.T) {
	long := strings.Repeat("very_long_tool_name_", 5)
	for _, c := range []struct{ server, tool, want string }{
		{"everything", "echo", "everything__echo"},
		{"everything", "get-sum", "everything__get-sum"},
		{"pw", "browser_navigate", "pw__browser_navigate"},
		{"x", "dotted.name", "x__dotted_name_"},      // cleaned: a hash follows
		{"x", "dotted_name", "x__dotted_name"},       // and never equals the clean one
		{"srv", long, "srv__" + long[:64-5-9] + "_"}, // cut
	} {
		got := ToolName(c.server, c.tool)
		if !tool.GatewayNamePattern.MatchString(got) || !strings.HasPrefix(got, c.want) || strings.HasSuffix(c.want, "_") == (got == c.want) {
			t.Errorf("ToolName(%q, %q) = %q, want %q…", c.server, c.tool, got, c.want)
		}
		if again := ToolName(c.server, c.tool); again != got {
			t.Errorf("not stable: %q then %q", got, again)
		}
	}
	if ToolName("x", "a.b") == ToolName("x", "a/b") {
		t.Error("two tools that clean to the same name share it")
	}
}

func TestReadEndsFindsTheID(t *testing.T) {
	big := `{"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 300<<10) + `"}]},"jsonrpc":"2.0","id":42}`
	in := "short line\r\n" + big + "\n" + "last"
	r := bufio.NewReaderSize(strings.NewReader(in), 4096)
	line, size, tail, err := lines.ReadEnds(r, 1000, keepEnds)
	if string(line) != "short line" || size != 10 || tail != nil || err != nil {
		t.Errorf("short: %q %d %q %v", line, size, tail, err)
	}
	line, size, tail, err = lines.ReadEnds(r, 1000, keepEnds)
	if size != len(big)+1 || len(line) > keepEnds || !strings.HasPrefix(big, string(line)) || !strings.HasSuffix(big, string(tail)) || err != nil {
		t.Errorf("long: size %d (want %d), head %d bytes, tail %.40q, %v", size, len(big)+1, len(line), tail, err)
	}
	if id, ok := answerID(line, tail); !ok || id != mustID(t, float64(42)) {
		t.Errorf("id of a TypeScript answer: %v %v", id, ok)
	}
	line, _, _, err = lines.ReadEnds(r, 1000, keepEnds)
	if string(line) != "last" || err != io.EOF {
		t.Errorf("last: %q %v", line, err)
	}
	if id, ok := answerID([]byte(`{"jsonrpc":"2.0","id":"abc","result":{"x":"`), nil); !ok || id != mustID(t, "abc") {
		t.Errorf("id of a Go answer: %v %v", id, ok)
	}
}

func mustID(t *testing.T, v any) jsonrpc.ID {
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// The stdio connection skips lines that are not messages and answers a
// request whose answer was too long with codeTooLarge.
func TestStdioConnBounds(t *testing.T) {
	upR, upW := io.Pipe()     // what the upstream writes
	downR, downW := io.Pipe() // what we write to it
	go io.Copy(io.Discard, downR)
	c := newStdioConn(upR, downW, 1000, slog.New(slog.DiscardHandler))
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, id := range []float64{1, 2} {
		if err := c.Write(ctx, &jsonrpc.Request{ID: mustID(t, id), Method: "tools/call"}); err != nil {
			t.Fatal(err)
		}
	}
	go fmt.Fprintf(upW, "not json\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"result\":{\"t\":\"%s\"},\"jsonrpc\":\"2.0\",\"id\":2}\n", strings.Repeat("y", 5000))
	m, err := c.Read(ctx)
	if r, ok := m.(*jsonrpc.Response); err != nil || !ok || r.ID != mustID(t, float64(1)) || r.Error != nil {
		t.Fatalf("first answer: %#v %v", m, err)
	}
	m, err = c.Read(ctx)
	r, ok := m.(*jsonrpc.Response)
	if err != nil || !ok || r.ID != mustID(t, float64(2)) {
		t.Fatalf("the too-long answer: %#v %v", m, err)
	}
	if we, ok := r.Error.(*jsonrpc.Error); !ok || we.Code != codeTooLarge || !strings.Contains(we.Message, "over the 1000 the gateway reads") {
		t.Errorf("its error: %v", r.Error)
	}
	upW.Close()
	if _, err := c.Read(ctx); err != io.EOF {
		t.Errorf("after the upstream's output ends: %v", err)
	}
}

func TestToContent(t *testing.T) {
	v, err := toContent(&mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "hi"}, &mcp.ImageContent{Data: []byte{1, 2}, MIMEType: "image/png"},
		&mcp.ResourceLink{URI: "file:///a.txt", Name: "a"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "x:1", Blob: []byte("zz"), MIMEType: "application/zip"}},
	}})
	c, ok := v.(*tool.Content)
	if err != nil || !ok || len(c.Parts) != 4 || c.Parts[0].Text != "hi" || c.Parts[1].Type != "image" ||
		!strings.Contains(c.Parts[2].Text, "file:///a.txt") || !strings.Contains(c.Parts[3].Text, "2 bytes, application/zip") {
		t.Errorf("content: %+v %v", v, err)
	}
	_, err = toContent(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "bad input"}}})
	if te := tool.AsError(err); te.Code != tool.CodeToolError || te.Message != "bad input" {
		t.Errorf("isError: %v", err)
	}
	v, err = toContent(&mcp.CallToolResult{StructuredContent: map[string]any{"n": 1}})
	if fmt.Sprintf("%s", v) != `{"n":1}` || err != nil {
		t.Errorf("structured: %s %v", v, err)
	}
}

func TestServerNameFor(t *testing.T) {
	for in, want := range map[string]string{
		"everything": "everything", "my_server": "my_server", "github.com": "github-com", "a__b": "a--b",
		"Files (local)": "Files--local", "_x_": "x", "": "server", strings.Repeat("long", 10): "longlonglonglonglonglong",
	} {
		if got := ServerNameFor(in); got != want {
			t.Errorf("ServerNameFor(%q) = %q, want %q", in, got, want)
		}
	}
}
