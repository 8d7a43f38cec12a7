package doctor

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/barrhawk/barrhawk/internal/intent"
	"github.com/barrhawk/barrhawk/internal/tool"
)

func TestIntentAnalysis(t *testing.T) {
	t.Parallel()
	d := newSearchDoctor(t)
	a := d.intent
	// The seed's compound example.
	r := a.Call("test_login_flow", json.RawMessage(`{"url":"https://app.com"}`))
	if r.PrimaryDomain != tool.CategoryBrowser || r.Complexity != intent.Compound || r.EstimatedSteps != 7 ||
		!slices.Equal(r.SuggestedTools[:2], []string{"browser_launch", "browser_navigate"}) || r.Parallelizable {
		t.Errorf("test_login_flow: %+v", r)
	}
	// A known tool is one simple step in its own domain.
	if r := a.Call("hash_text", json.RawMessage(`{"text":"a"}`)); r.Complexity != intent.Simple || r.PrimaryDomain != tool.CategoryUtility || !slices.Equal(r.SuggestedTools, []string{"hash_text"}) {
		t.Errorf("hash_text: %+v", r)
	}
	// Words joined by "and then" are steps.
	if r := a.Text("generate fake users and then check the API returns them"); r.Complexity != intent.Compound || r.SuggestedTools[0] != "data_generate" || !slices.Contains(r.SuggestedTools, "http_request") {
		t.Errorf("compound text: %+v", r)
	}
	// The same work over many items is a swarm.
	if r := a.Text("fetch all 20 URLs and summarize the results"); r.Complexity != intent.Swarm || !r.Parallelizable || !slices.Contains(r.SuggestedTools, "http_request") {
		t.Errorf("swarm text: %+v", r)
	}
	if r := a.Call("swarm_run", json.RawMessage(`{"map":{"tool":"http_request","items":[1,2,3]}}`)); r.Complexity != intent.Swarm || r.EstimatedSteps != 4 || r.PrimaryDomain != tool.CategoryOrchestration {
		t.Errorf("swarm_run: %+v", r)
	}
	// The tool answers the same.
	res := d.Call(t.Context(), "intent_analyze", json.RawMessage(`{"text":"checksum of a string"}`))
	if res.Err != nil || string(res.Value) == "" {
		t.Fatal(res.Err)
	}
	if res := d.Call(t.Context(), "intent_analyze", json.RawMessage(`{}`)); res.Err == nil || res.Err.Code != tool.CodeInvalidArgs {
		t.Errorf("nothing to analyse: %v", res.Err)
	}
}

func BenchmarkIntentCached(b *testing.B) {
	d := newSearchDoctor(b)
	args := json.RawMessage(`{"url":"https://app.com"}`)
	d.intent.Call("test_login_flow", args)
	for b.Loop() {
		d.intent.Call("test_login_flow", args)
	}
}

func BenchmarkIntentUncached(b *testing.B) {
	d := newSearchDoctor(b)
	d.intent.Cache = false
	for b.Loop() {
		d.intent.Text("generate fake users and then check the API returns them")
	}
}
