package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lineClient speaks newline-delimited JSON-RPC to `barrhawk serve` on its
// stdio, sending exactly the bytes a test gives it: a hostile client.
type lineClient struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser

	mu      sync.Mutex
	byID    map[string]json.RawMessage // answers by raw id
	nullIDs []json.RawMessage          // answers with id null
	arrays  []json.RawMessage          // batch answers
	arrived chan struct{}
}

func startLines(t *testing.T, yaml string) *lineClient {
	t.Helper()
	home := t.TempDir()
	if yaml != "" {
		if err := os.WriteFile(filepath.Join(home, "barrhawk.yaml"), []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "HOME="+home, "BARRHAWK_HOME="+filepath.Join(home, ".barrhawk"), "BARRHAWK_LOG_LEVEL=error")
	cmd.Dir = home
	cmd.Stderr = testWriter{t}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &lineClient{t: t, cmd: cmd, in: in, byID: map[string]json.RawMessage{}, arrived: make(chan struct{}, 1)}
	go c.readLoop(out)
	t.Cleanup(func() {
		in.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve exited with %v after stdin closed", err)
			}
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			t.Error("serve did not exit within 15 s of stdin closing")
		}
	})
	return c
}

func (c *lineClient) readLoop(out io.Reader) {
	r := bufio.NewReaderSize(out, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			c.record(bytes.TrimSpace(line))
		}
		if err != nil {
			return
		}
	}
}

func (c *lineClient) record(line []byte) {
	c.mu.Lock()
	defer func() {
		c.mu.Unlock()
		select {
		case c.arrived <- struct{}{}:
		default:
		}
	}()
	if line[0] == '[' {
		c.arrays = append(c.arrays, line)
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		c.t.Errorf("the server wrote a line that is not JSON: %.200s", line)
		return
	}
	switch {
	case m.Method != "":
		// a request or notification from the server: not an answer
	case m.ID == nil || string(m.ID) == "null":
		c.nullIDs = append(c.nullIDs, line)
	default:
		c.byID[string(m.ID)] = line
	}
}

func (c *lineClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("writing to serve: %v", err)
	}
}

// await waits for the answer to id (raw JSON, such as `7` or `"a"`).
func (c *lineClient) await(id string) map[string]any {
	c.t.Helper()
	return c.awaitOne("an answer for id "+id, func() json.RawMessage {
		line, ok := c.byID[id]
		if ok {
			delete(c.byID, id)
		}
		return line
	})
}

// awaitNull waits for one answer with id null.
func (c *lineClient) awaitNull() map[string]any {
	c.t.Helper()
	return c.awaitOne("an answer with id null", func() json.RawMessage {
		if len(c.nullIDs) == 0 {
			return nil
		}
		line := c.nullIDs[0]
		c.nullIDs = c.nullIDs[1:]
		return line
	})
}

// awaitOne waits up to 30 s for take (called with c.mu held) to return an
// answer, and decodes it.
func (c *lineClient) awaitOne(what string, take func() json.RawMessage) map[string]any {
	c.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		c.mu.Lock()
		line := take()
		c.mu.Unlock()
		if line != nil {
			var v map[string]any
			if err := json.Unmarshal(line, &v); err != nil {
				c.t.Fatalf("%s: %v", what, err)
			}
			return v
		}
		select {
		case <-c.arrived:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			c.t.Fatalf("no %s within 30 s (the server may have stopped reading)", what)
		}
	}
}

func (c *lineClient) initialize(protocol string) {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + protocol + `","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`)
	if r := c.await(`"init"`); r["result"] == nil {
		c.t.Fatalf("initialize failed: %v", r)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// ping checks the session still answers.
func (c *lineClient) ping(n int) {
	c.t.Helper()
	id := fmt.Sprintf(`"ping-%d"`, n)
	c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
	if r := c.await(id); r["result"] == nil {
		c.t.Fatalf("ping after the bad input: %v", r)
	}
}

// rpcError returns the code and message of an error answer.
func rpcError(t *testing.T, what string, r map[string]any) (int, string) {
	t.Helper()
	e, ok := r["error"].(map[string]any)
	if !ok {
		t.Fatalf("%s: want a JSON-RPC error, got %v", what, r)
	}
	return int(e["code"].(float64)), e["message"].(string)
}

// toolText returns the text and isError of a tools/call answer.
func toolText(t *testing.T, what string, r map[string]any) (string, bool) {
	t.Helper()
	res, ok := r["result"].(map[string]any)
	if !ok {
		t.Fatalf("%s: want a result, got %v", what, r)
	}
	var b strings.Builder
	for _, c := range res["content"].([]any) {
		b.WriteString(c.(map[string]any)["text"].(string))
	}
	isErr, _ := res["isError"].(bool)
	return b.String(), isErr
}

func deepArgs(levels int) string {
	return `{"text":"x","nested":` + strings.Repeat("[", levels) + strings.Repeat("]", levels) + `}`
}

// badCase is one hostile input and what its answer must be.
type badCase struct {
	name string
	send string
	id   string // the raw id of the expected answer; "null" for id null; "" for no answer
	code int    // the JSON-RPC error code expected; 0: a tools/call result
	want string // a text the error message or result text must contain
	// isError: the result must be a tool error.
	isError bool
}

func badCases() []badCase {
	big := strings.Repeat("a", 5<<20)
	return []badCase{
		{name: "invalid JSON", send: `{"jsonrpc":"2.0","id":1,"method":"ping"`, id: "null", code: -32700, want: "not valid JSON"},
		{name: "a batch", send: `[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`, id: "null", code: -32600, want: "no batches"},
		{name: "an object id", send: `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, id: "null", code: -32600, want: "id is an object"},
		{name: "a fractional id", send: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, id: "null", code: -32600, want: "not an integer"},
		{name: "a wrong jsonrpc version", send: `{"jsonrpc":"1.0","id":4,"method":"ping"}`, id: "4", code: -32600, want: `"2.0"`},
		{name: "a missing method", send: `{"jsonrpc":"2.0","id":5,"params":{}}`, id: "5", code: -32600, want: `no "method"`},
		{name: "an empty method", send: `{"jsonrpc":"2.0","id":6,"method":""}`, id: "6", code: -32600, want: "empty"},
		{name: "an unknown method", send: `{"jsonrpc":"2.0","id":7,"method":"no/such-method"}`, id: "7", code: -32601, want: "no/such-method"},
		{name: "an unknown tool", send: `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"hash_txt","arguments":{}}}`, id: "8", code: -32602, want: "hash_text"},
		{name: "wrong argument types", send: `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"hash_text","arguments":{"text":42}}}`, id: "9", isError: true, want: `argument "text": expected string, got number`},
		{name: "a 5 MB string argument", send: `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"hash_text","arguments":{"text":"` + big + `","algorithm":"md5"}}}`, id: "10", want: `"hash"`},
		{name: "10,000 levels of nesting", send: `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"hash_text","arguments":` + deepArgs(10000) + `}}`, id: "11", code: -32600, want: "levels deep"},
		{name: "invalid UTF-8", send: "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\",\"params\":{\"name\":\"hash_text\",\"arguments\":{\"text\":\"\xff\xfe\xc3\x28\"}}}", id: "12", code: -32700, want: "UTF-8"},
		{name: "a cancellation for an unknown id", send: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"never-sent"}}`},
		{name: "a response nobody asked for", send: `{"jsonrpc":"2.0","id":"nobody","result":{}}`},
		{name: "not an object", send: `42`, id: "null", code: -32600, want: "JSON object"},
	}
}

// TestStdioMalformedInputBattery: each hostile line gets the answer
// JSON-RPC prescribes and the session goes on answering.
func TestStdioMalformedInputBattery(t *testing.T) {
	t.Parallel()
	c := startLines(t, "")
	c.initialize("2025-06-18")
	for i, bc := range badCases() {
		c.send(bc.send)
		c.ping(i)
		checkAnswer(t, bc, func() map[string]any {
			if bc.id == "null" {
				return c.awaitNull()
			}
			return c.await(bc.id)
		})
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.nullIDs) > 0 || len(c.arrays) > 0 {
		t.Errorf("unexpected answers: %s %s", c.nullIDs, c.arrays)
	}
}

func checkAnswer(t *testing.T, bc badCase, get func() map[string]any) {
	t.Helper()
	if bc.id == "" {
		return
	}
	r := get()
	if bc.code == 0 {
		text, isErr := toolText(t, bc.name, r)
		if isErr != bc.isError || !strings.Contains(text, bc.want) {
			t.Errorf("%s: want isError=%v and %q, got isError=%v %.300s", bc.name, bc.isError, bc.want, isErr, text)
		}
		return
	}
	code, msg := rpcError(t, bc.name, r)
	if code != bc.code || !strings.Contains(msg, bc.want) {
		t.Errorf("%s: want error %d containing %q, got %d %q", bc.name, bc.code, bc.want, code, msg)
	}
}

// TestStdioSessionRules: requests before initialize, duplicate ids,
// cancellation, oversized lines, batches under an older protocol, and
// answers to piped requests at the end of input.
func TestStdioSessionRules(t *testing.T) {
	t.Parallel()
	t.Run("before initialize", func(t *testing.T) {
		t.Parallel()
		c := startLines(t, "")
		c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		code, msg := rpcError(t, "tools/list before initialize", c.await("1"))
		if code != -32600 || !strings.Contains(msg, "initialize") {
			t.Errorf("want -32600 naming initialize, got %d %q", code, msg)
		}
		c.ping(0) // ping is allowed before initialize
		c.initialize("2025-06-18")
		c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hash_text","arguments":{"text":"a"}}}`)
		if text, isErr := toolText(t, "call after initialize", c.await("2")); isErr {
			t.Errorf("call after initialize failed: %s", text)
		}
	})
	// What the capabilities do not list is not found (it was an empty
	// list), and tools/list, which each session's list bag shapes, is not
	// for a shared cache.
	t.Run("only what is advertised", func(t *testing.T) {
		t.Parallel()
		for _, c := range []struct{ yaml, method string }{
			{"", "prompts/list"}, {"", "prompts/get"}, {"tools:\n  enableDynamic: false\n", "resources/list"},
		} {
			lc := startLines(t, c.yaml)
			lc.initialize("2025-06-18")
			lc.send(`{"jsonrpc":"2.0","id":10,"method":"` + c.method + `","params":{"name":"x"}}`)
			if code, msg := rpcError(t, c.method, lc.await("10")); code != -32601 {
				t.Errorf("%s: want -32601, got %d %q", c.method, code, msg)
			}
			lc.send(`{"jsonrpc":"2.0","id":20,"method":"tools/list"}`)
			if r, _ := lc.await("20")["result"].(map[string]any); r["cacheScope"] != "private" || r["tools"] == nil {
				t.Errorf("tools/list: cacheScope %v", r["cacheScope"])
			}
		}
	})
	t.Run("duplicate id", func(t *testing.T) {
		t.Parallel()
		c := startLines(t, "")
		c.initialize("2025-06-18")
		c.send(`{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":"wait_ms","arguments":{"ms":1500}}}`)
		c.send(`{"jsonrpc":"2.0","id":"d","method":"ping"}`)
		code, msg := rpcError(t, "duplicate id", c.await(`"d"`))
		if code != -32600 || !strings.Contains(msg, "in flight") {
			t.Errorf("want -32600 about the id in flight, got %d %q", code, msg)
		}
		if text, isErr := toolText(t, "the first call", c.await(`"d"`)); isErr {
			t.Errorf("the first call with the id failed: %s", text)
		}
		c.ping(1)
	})
	t.Run("cancellation", func(t *testing.T) {
		t.Parallel()
		c := startLines(t, "")
		c.initialize("2025-06-18")
		c.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"wait_ms","arguments":{"ms":3000}}}`)
		time.Sleep(200 * time.Millisecond)
		c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"changed my mind"}}`)
		c.ping(0)
		time.Sleep(3500 * time.Millisecond)
		c.mu.Lock()
		_, answered := c.byID[`"slow"`]
		c.mu.Unlock()
		if answered {
			t.Error("a cancelled request was answered (MCP: the receiver should not answer it)")
		}
		c.send(`{"jsonrpc":"2.0","id":"slow","method":"ping"}`) // the id is free again
		if r := c.await(`"slow"`); r["result"] == nil {
			t.Errorf("reusing a cancelled request's id: %v", r)
		}
	})
	t.Run("end of input does not wait for cancelled calls or a listen", func(t *testing.T) {
		t.Parallel()
		// 2026-07-28 requests (per-request _meta) go to the SDK, which
		// never answers a cancelled call and keeps a listen open.
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"e2e","version":"1"}}`
		in := strings.Join([]string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait_ms","arguments":{"ms":20000},` + meta + `}}`,
			`{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + meta + `}}`,
			`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		}, "\n") + "\n"
		cmd := exec.Command(bin, "serve")
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "BARRHAWK_LOG_LEVEL=error")
		stdin, _ := cmd.StdinPipe()
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		io.WriteString(stdin, in)
		time.Sleep(300 * time.Millisecond)
		io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`+"\n")
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("serve: %v", err)
			}
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatal("serve waited for a cancelled call or a listen after its input ended")
		}
		if strings.Contains(out.String(), `"id":1,`) {
			t.Errorf("the cancelled call was answered: %s", out.String())
		}
		if !strings.Contains(out.String(), `"id":3,"result"`) {
			t.Errorf("the ping was not answered: %s", out.String())
		}
	})
	t.Run("oversized line", func(t *testing.T) {
		t.Parallel()
		c := startLines(t, "mcp:\n  maxMessageBytes: 64KiB\n")
		c.initialize("2025-06-18")
		c.send(`{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"hash_text","arguments":{"text":"` + strings.Repeat("b", 200<<10) + `"}}}`)
		code, msg := rpcError(t, "oversized line", c.await(`"big"`))
		if code != -32600 || !strings.Contains(msg, "65536 bytes") || !strings.Contains(msg, "mcp.maxMessageBytes") {
			t.Errorf("want -32600 naming the bound and its key, got %d %q", code, msg)
		}
		c.ping(0)
	})
	t.Run("batch under 2025-03-26", func(t *testing.T) {
		t.Parallel()
		c := startLines(t, "")
		c.initialize("2025-03-26")
		c.send(`[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","id":"b2","method":"tools/call","params":{"name":"hash_text","arguments":{"text":"a"}}},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}]`)
		c.ping(0)
		deadline := time.Now().Add(30 * time.Second)
		for {
			c.mu.Lock()
			n := len(c.arrays)
			c.mu.Unlock()
			if n > 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.arrays) != 1 {
			t.Fatalf("want one array answer, got %d", len(c.arrays))
		}
		var answers []map[string]any
		if err := json.Unmarshal(c.arrays[0], &answers); err != nil {
			t.Fatal(err)
		}
		ids := map[any]bool{}
		for _, a := range answers {
			ids[a["id"]] = true
		}
		if len(answers) != 3 || !ids["b1"] || !ids["b2"] || !ids[nil] {
			t.Errorf("want answers for b1, b2 and the bad element (id null), got %s", c.arrays[0])
		}
	})
}

// TestHTTPMalformedInputBattery: the same hostile messages as POST bodies
// get JSON-RPC error bodies with a 4xx status, or the SDK's answer, and
// the session goes on.
func TestHTTPMalformedInputBattery(t *testing.T) {
	t.Parallel()
	addr := freePort(t)
	home := t.TempDir()
	cmd := exec.Command(bin, "serve", "--http", addr, "--stdio=false")
	cmd.Env = append(os.Environ(), "HOME="+home, "BARRHAWK_HOME="+filepath.Join(home, ".barrhawk"), "BARRHAWK_LOG_LEVEL=error")
	cmd.Stderr = testWriter{t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait() })
	url := "http://" + addr + "/"
	post := func(session, body string) (int, map[string]any, string) {
		t.Helper()
		resp := doUntilUp(t, func() *http.Request {
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if session != "" {
				req.Header.Set("Mcp-Session-Id", session)
				req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
			}
			return req
		})
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		payload := raw
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			for _, l := range strings.Split(string(raw), "\n") {
				if d, ok := strings.CutPrefix(l, "data: "); ok {
					payload = []byte(d)
				}
			}
		}
		var v map[string]any
		if len(bytes.TrimSpace(payload)) > 0 {
			if err := json.Unmarshal(payload, &v); err != nil {
				t.Fatalf("answer body is not JSON (status %d): %.300s", resp.StatusCode, raw)
			}
		}
		return resp.StatusCode, v, resp.Header.Get("Mcp-Session-Id")
	}
	status, r, _ := post("", `{"jsonrpc":"2.0","id":0,"method":"tools/list"}`)
	if code, msg := rpcError(t, "before initialize", r); status != http.StatusBadRequest || code != -32600 || !strings.Contains(msg, "initialize") {
		t.Errorf("tools/list before initialize: want 400 and -32600 naming initialize, got %d %d %q", status, code, msg)
	}
	_, r, session := post("", `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`)
	if r["result"] == nil || session == "" {
		t.Fatalf("initialize: %v (session %q)", r, session)
	}
	post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, bc := range badCases() {
		status, r, _ := post(session, bc.send)
		switch {
		case bc.id == "":
			if status >= 300 {
				t.Errorf("%s: status %d", bc.name, status)
			}
		case bc.code == -32601: // the SDK answers an unknown method over HTTP with status 400
			if status != http.StatusOK && status != http.StatusBadRequest {
				t.Errorf("%s: want status 200 or 400, got %d", bc.name, status)
			}
			checkAnswer(t, bc, func() map[string]any { return r })
		case bc.code == 0 || bc.code == -32602:
			if status != http.StatusOK {
				t.Errorf("%s: want status 200 with the answer, got %d", bc.name, status)
			}
			checkAnswer(t, bc, func() map[string]any { return r })
		default:
			if status != http.StatusBadRequest {
				t.Errorf("%s: want status 400, got %d", bc.name, status)
			}
			checkAnswer(t, bc, func() map[string]any { return r })
		}
		if _, pr, _ := post(session, fmt.Sprintf(`{"jsonrpc":"2.0","id":"ping-%d","method":"ping"}`, i)); pr["result"] == nil {
			t.Fatalf("ping after %s: %v", bc.name, pr)
		}
	}
	status, r, _ = post(session, `{"jsonrpc":"2.0","id":"huge","method":"ping","params":{"pad":"`+strings.Repeat("x", 17<<20)+`"}}`)
	if code, msg := rpcError(t, "17 MiB body", r); status != http.StatusRequestEntityTooLarge || code != -32600 || !strings.Contains(msg, "mcp.maxMessageBytes") {
		t.Errorf("17 MiB body: want 413 and -32600 naming mcp.maxMessageBytes, got %d %d %q", status, code, msg)
	}
}
