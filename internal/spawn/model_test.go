package spawn

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// fakeModel stands in for the model behind Claude Code, the one part of a
// spawn that cannot run here: an Anthropic Messages API endpoint (POST
// /v1/messages, answered as the documented stream of server-sent events)
// that plays a fixed script, so the real CLI runs its real tools, flags and
// permission checks. Each conversation (an attempt of the spawn) makes the
// script's tool calls one by one, then ends with a final text.
type fakeModel struct {
	srv *httptest.Server
	// script gives the tool calls for a working directory; by default,
	// write hello.txt there, then run `go version` with Bash.
	script func(dir string) []call

	mu sync.Mutex
	// results are the results of the script's calls, for each
	// conversation that reached its end, in order.
	results []toolResult
}

// call is one tool call of the script.
type call struct {
	tool  string
	input map[string]any
}

func defaultScript(dir string) []call {
	return []call{
		{"Write", map[string]any{"file_path": dir + "/hello.txt", "content": "hello from the model\n"}},
		{"Bash", map[string]any{"command": "go version", "description": "Show the Go version"}},
	}
}

type toolResult struct {
	Content string
	IsError bool
}

// The final words of the script: the spawn's summary.
const modelFinal = "Wrote hello.txt and ran go version."

var workDir = regexp.MustCompile(`Primary working directory: ([^\n]+)`)

func newFakeModel(t *testing.T) *fakeModel {
	m := &fakeModel{}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"not here"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Tools    []any `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	if len(req.Tools) == 0 { // a side request of the CLI's (a title, a summary)
		m.stream(w, text("ok"))
		return
	}
	// Where the conversation is: which of the script's tool calls it
	// holds (the CLI merges consecutive assistant turns, so they are told
	// by id), and their results.
	calls := map[string]bool{}
	results := map[string]toolResult{}
	for _, msg := range req.Messages {
		var blocks []struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
			IsError   bool            `json:"is_error"`
		}
		_ = json.Unmarshal(msg.Content, &blocks)
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				calls[b.ID] = true
			case "tool_result":
				results[b.ToolUseID] = toolResult{Content: contentText(b.Content), IsError: b.IsError}
			}
		}
	}
	dir := ""
	if sm := workDir.FindStringSubmatch(allText(body)); sm != nil {
		dir = strings.TrimSpace(sm[1])
	}
	script := defaultScript
	if m.script != nil {
		script = m.script
	}
	steps := script(dir)
	for i, c := range steps {
		id := fmt.Sprintf("toolu_%d", i)
		if !calls[id] {
			m.stream(w, toolUse(id, c.tool, c.input))
			return
		}
	}
	m.mu.Lock()
	for i := range steps {
		m.results = append(m.results, results[fmt.Sprintf("toolu_%d", i)])
	}
	m.mu.Unlock()
	m.stream(w, text(modelFinal))
}

// A block of the answer: its content_block_start, its deltas, and the
// stop reason it leads to.
type answer struct {
	start  string
	deltas []string
	stop   string
}

func text(s string) answer {
	d, _ := json.Marshal(map[string]any{"type": "text_delta", "text": s})
	return answer{start: `{"type":"text","text":""}`, deltas: []string{string(d)}, stop: "end_turn"}
}

func toolUse(id, name string, input map[string]any) answer {
	in, _ := json.Marshal(input)
	d, _ := json.Marshal(map[string]any{"type": "input_json_delta", "partial_json": string(in)})
	return answer{start: fmt.Sprintf(`{"type":"tool_use","id":%q,"name":%q,"input":{}}`, id, name), deltas: []string{string(d)}, stop: "tool_use"}
}

// stream writes one message as the Messages API streams it.
func (m *fakeModel) stream(w http.ResponseWriter, b answer) {
	ev := func(name, data string) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data) }
	ev("message_start", `{"type":"message_start","message":{"id":"msg_fake","type":"message","role":"assistant","model":"claude-fake","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1}}}`)
	ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":`+b.start+`}`)
	for _, d := range b.deltas {
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":`+d+`}`)
	}
	ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
	ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+b.stop+`","stop_sequence":null},"usage":{"output_tokens":7}}`)
	ev("message_stop", `{"type":"message_stop"}`)
}

// allText is every string in a JSON value, joined.
func allText(raw json.RawMessage) string {
	var v any
	_ = json.Unmarshal(raw, &v)
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x + "\n")
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

// contentText is a tool result's content, a string or text blocks.
func contentText(raw json.RawMessage) string { return strings.TrimSpace(allText(raw)) }

func (m *fakeModel) seen() []toolResult {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]toolResult(nil), m.results...)
}

// fakeGemini is the Gemini API (generativelanguage v1beta, what Gemini CLI
// calls: :streamGenerateContent?alt=sse for the conversation,
// :generateContent for its model router) playing the same kind of script
// as fakeModel, with Gemini CLI's tool names.
type fakeGemini struct {
	srv    *httptest.Server
	script func(dir string) []call

	mu      sync.Mutex
	results []toolResult
}

func newFakeGemini(t *testing.T) *fakeGemini {
	g := &fakeGemini{}
	g.srv = httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.srv.Close)
	return g
}

// geminiDir finds the worktree Gemini CLI names in its context (its
// workspace directories).
var geminiDir = regexp.MustCompile(`(/[^\s"'\\]*/\.barrhawk/worktrees/spawn-[a-z0-9-]+)`)

func (g *fakeGemini) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if strings.HasSuffix(r.URL.Path, ":generateContent") { // the model router
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"candidates":[{"content":{"role":"model","parts":[{"text":"{\"complexity_reasoning\":\"small\",\"complexity_score\":10}"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":5,"totalTokenCount":10}}`)
		return
	}
	if !strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
		http.Error(w, `{"error":{"code":404,"message":"not here","status":"NOT_FOUND"}}`, http.StatusNotFound)
		return
	}
	var req struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				FunctionCall     *struct{ Name string } `json:"functionCall"`
				FunctionResponse *struct {
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var called []string
	var responses []toolResult
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				called = append(called, p.FunctionCall.Name)
			}
			if p.FunctionResponse != nil {
				var resp map[string]json.RawMessage
				_ = json.Unmarshal(p.FunctionResponse.Response, &resp)
				_, failed := resp["error"]
				responses = append(responses, toolResult{Content: contentText(p.FunctionResponse.Response), IsError: failed})
			}
		}
	}
	dir := ""
	if m := geminiDir.FindStringSubmatch(allText(body)); m != nil {
		dir = m[1]
	}
	steps := g.script(dir)
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(parts string, finish string) {
		fmt.Fprintf(w, "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[%s]},\"finishReason\":%q,\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":12,\"candidatesTokenCount\":7,\"totalTokenCount\":19}}\r\n\r\n", parts, finish)
	}
	if len(called) < len(steps) {
		c := steps[len(called)]
		args, _ := json.Marshal(c.input)
		chunk(fmt.Sprintf(`{"functionCall":{"name":%q,"args":%s}}`, c.tool, args), "STOP")
		return
	}
	g.mu.Lock()
	g.results = append(g.results, responses...)
	g.mu.Unlock()
	t, _ := json.Marshal(modelFinal)
	chunk(`{"text":`+string(t)+`}`, "STOP")
}

func (g *fakeGemini) seen() []toolResult {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]toolResult(nil), g.results...)
}
