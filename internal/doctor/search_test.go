package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/queue"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/search"
	"github.com/barrhawk/barrhawk/internal/spawn"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tools/builtin"
)

func newSearchDoctor(t testing.TB) *Doctor {
	t.Helper()
	// The tools serve registers: the built-in ones and the front's own
	// sub-agent tools.
	tools := append(builtin.Tools(), spawn.NewService(spawn.Config{Dir: t.TempDir()}).Tools()...)
	tools = append(tools, queue.NewService(queue.Config{DB: filepath.Join(t.TempDir(), "queue.db")}).Tools()...)
	return newDoctorWith(t, searchConfig(t), tools)
}

// searchConfig is the configuration of a Doctor that finds tools: a home
// of the test's own and no directories of dynamic tools.
func searchConfig(t testing.TB) config.Config {
	cfg := config.Default()
	cfg.Home = t.TempDir()
	cfg.Tools.DynamicDir, cfg.Tools.SnapshotsDir, cfg.Tools.FSRoot = "", "", ""
	return cfg
}

// newDoctorWith is a Doctor of cfg and tools, closed when the test ends.
func newDoctorWith(t testing.TB, cfg config.Config, tools []tool.Tool) *Doctor {
	t.Helper()
	d, err := New(Options{Config: cfg, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

func TestToolSearchAndToolCall(t *testing.T) {
	t.Parallel()
	d := newSearchDoctor(t)
	ctx := context.Background()
	r := d.Call(ctx, "tool_search", json.RawMessage(`{"query":"checksum of a text","limit":2}`))
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	var out struct {
		Results []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"results"`
	}
	if err := json.Unmarshal(r.Value, &out); err != nil || len(out.Results) == 0 || len(out.Results) > 2 ||
		out.Results[0].Name != "hash_text" || !strings.Contains(string(out.Results[0].InputSchema), `"algorithm"`) {
		t.Fatalf("tool_search: %s", r.Value)
	}
	r = d.Call(ctx, "tool_search", json.RawMessage(`{"query":"status","category":"meta"}`))
	if r.Err != nil || strings.Contains(string(r.Value), "http_status_info") || !strings.Contains(string(r.Value), "worker_status") {
		t.Errorf("a category filter: %s %v", r.Value, r.Err)
	}
	// tool_call reaches a front tool through the same validation.
	r = d.Call(ctx, "tool_call", json.RawMessage(`{"name":"tool_search","arguments":{"query":"flaky tests"}}`))
	if r.Err != nil || !strings.Contains(string(r.Value), "test_flaky_detect") {
		t.Errorf("tool_call of tool_search: %s %v", r.Value, r.Err)
	}
	r = d.Call(ctx, "tool_call", json.RawMessage(`{"name":"tool_search","arguments":{"query":5}}`))
	if r.Err == nil || r.Err.Code != "INVALID_ARGS" || !strings.Contains(r.Err.Message, `"query"`) {
		t.Errorf("tool_call with wrong arguments: want INVALID_ARGS naming the field, got %v", r.Err)
	}
	for name, want := range map[string]string{
		"hash_txt":        "did you mean hash_text",
		"make_fake_users": "data_generate",
		"tool_call":       "cannot call itself",
	} {
		r = d.Call(ctx, "tool_call", json.RawMessage(`{"name":"`+name+`","arguments":{}}`))
		if r.Err == nil || !strings.Contains(r.Err.Message, want) {
			t.Errorf("tool_call %s: want an error mentioning %q, got %v", name, want, r.Err)
		}
	}
}

// BenchmarkToolSearch times one query over this server's tools and 500
// hosted ones, as a gateway with several MCP servers behind it has.
func BenchmarkToolSearch(b *testing.B) {
	d := newSearchDoctor(b)
	tools := append(d.reg.List(), hostedTools(500)...)
	ix := search.New(tools)
	queries := []string{"generate fake users for a signup form", "which containers are up right now", "open pull requests waiting for review",
		"find flaky tests from the last CI runs", "take a screenshot of the checkout page", "read a key from redis"}
	b.ReportMetric(float64(len(tools)), "tools")
	i := 0
	for b.Loop() {
		ix.Search(queries[i%len(queries)], 5, "")
		i++
	}
}

// hostedTools are n tools as MCP servers behind the gateway declare them:
// server__verb_noun, a sentence of description, two arguments.
func hostedTools(n int) []*tool.Tool {
	verbs := []string{"get", "list", "create", "update", "delete", "search", "export", "import", "sync", "validate", "render", "send"}
	nouns := []string{"invoice", "customer", "ticket", "document", "page", "event", "metric", "alert", "deployment", "secret", "channel", "message", "order", "shipment", "report", "dashboard", "schedule", "note", "comment", "calendar"}
	var out []*tool.Tool
	for i := range n {
		v, o := verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)]
		srv := fmt.Sprintf("srv%02d", i%37)
		out = append(out, &tool.Tool{Def: tool.Def{
			Name:        fmt.Sprintf("%s__%s_%s_%d", srv, v, o, i),
			Description: fmt.Sprintf("%s a %s in the %s service, returning the %s as JSON. Requires an API key.", strings.ToUpper(v[:1])+v[1:], o, srv, o),
			Group:       "Hosted: " + srv, Category: tool.CategoryGateway,
			Input: schema.Object(schema.String("id", "The "+o+"'s id"), schema.String("query", "Free text to match")),
		}})
	}
	return out
}
