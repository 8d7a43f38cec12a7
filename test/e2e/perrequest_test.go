package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// perRequestMeta is the _meta of a 2026-07-28 request: no initialize, each
// request says who and what the client is.
const perRequestMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`

// A client of the 2026-07-28 per-request protocol, on raw lines: its first
// tools/call goes through the SDK, the next ones through the hot path, and
// both answer alike: the same result with the server's info in _meta and
// resultType "complete", the same refusals of a bad _meta, the same tool
// errors, and no answer to a cancelled call.
func TestPerRequestProtocolOnStdio(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "BARRHAWK_LOG_LEVEL=error")
	cmd.Dir = t.TempDir()
	in, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	out := bufio.NewReader(stdout)
	id := 0
	send := func(params string) {
		id++
		fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`+"\n", id, params)
	}
	read := func() (int, string) {
		var line string
		var m struct {
			ID     int    `json:"id"`
			Method string `json:"method"`
		}
		for m.ID == 0 { // notifications (list_changed) come too
			var err error
			if line, err = out.ReadString('\n'); err != nil {
				t.Fatalf("reading: %v", err)
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("not JSON: %s", line)
			}
		}
		// The rest of the line, without its id, to compare answers.
		return m.ID, strings.Replace(strings.TrimSpace(line), fmt.Sprintf(`"id":%d,`, m.ID), "", 1)
	}
	call := func(params string) string {
		send(params)
		got, line := read()
		if got != id {
			t.Fatalf("answer to %d, want %d: %s", got, id, line)
		}
		return line
	}
	hash := `{"name":"hash_text","arguments":{"text":"hello","algorithm":"sha256"},` + perRequestMeta + `}`
	first := call(hash) // the SDK's path: it records the session's parameters
	if !strings.Contains(first, `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"barrhawk"`) || !strings.HasSuffix(first, `"resultType":"complete"}}`) ||
		!strings.Contains(first, `"hash":"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"`) {
		t.Fatalf("the first per-request call: %s", first)
	}
	for range 3 { // the hot path's
		if again := call(hash); again != first {
			t.Fatalf("a later per-request call answers otherwise:\n got %s\nwant %s", again, first)
		}
	}
	// A tool error, an unknown tool, and _meta the SDK refuses.
	for _, c := range []struct{ params, want string }{
		{`{"name":"hash_text","arguments":{"text":5},` + perRequestMeta + `}`, `"isError":true,"resultType":"complete"}}`},
		{`{"name":"no_such_tool","arguments":{},` + perRequestMeta + `}`, `"code":-32602,"message":"UNKNOWN_TOOL: no tool named \"no_such_tool\"`},
		{`{"name":"hash_text","arguments":{"text":"a"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, `missing or invalid _meta field \"io.modelcontextprotocol/clientCapabilities\"`},
		{`{"name":"hash_text","arguments":{"text":"a"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":5}}}`, `missing or invalid _meta field \"io.modelcontextprotocol/clientCapabilities\"`},
		{`{"name":"hash_text","arguments":{"text":"a"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":null}}`, `invalid _meta field \"io.modelcontextprotocol/clientInfo\"`},
		{`{"name":"hash_text","arguments":{"text":"a"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}`, `"code":-32022,"message":"unsupported protocol version"`},
	} {
		if got := call(c.params); !strings.Contains(got, c.want) {
			t.Errorf("%s:\n got %s\nwant it to hold %s", c.params, got, c.want)
		}
	}
	// A cancelled call gets no answer; the next one does.
	send(`{"name":"wait_ms","arguments":{"ms":3000},` + perRequestMeta + `}`)
	fmt.Fprintf(in, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`+"\n", id)
	if got, line := func() (int, string) { send(hash); return read() }(); got != id {
		t.Fatalf("after the cancelled call %d, the answer is to %d: %s", id-1, got, line)
	}
}
