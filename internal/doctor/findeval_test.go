package doctor

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/barrhawk/barrhawk/internal/intent"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/search"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// The evaluation of finding tools by asking: tool_search and intent
// analysis over requests written by people who saw only each tool's
// one-line purpose (testdata/findeval/README.md says who wrote which).
// The dev split is for tuning; the test split is frozen and is never read
// while the index, the phrases or the workflows change: its misses are
// not logged unless FINDEVAL_SHOW=test.

// searchCase is a request for one tool; Also are the tools a QA engineer
// would accept as well.
type searchCase struct {
	Q    string   `json:"q"`
	Tool string   `json:"tool"`
	Also []string `json:"also"`
}

// intentCase is a request of one or more steps and the tools it takes,
// in calling order: "a|b" is one need either meets, "?x" is acceptable
// but not needed.
type intentCase struct {
	Q        string   `json:"q"`
	Want     []string `json:"want"`
	Parallel *bool    `json:"parallel"`
}

// The floors each split is held to: a little under what was measured in
// 2026-11-30's eleventh session (search dev 0.934 / 0.987, test 0.906 /
// 0.974; intent dev with the rules alone 0.930 / 0.822, test 0.902 /
// 0.796; intent on the search's one-tool requests dev 0.956, test 0.937;
// the learned model on dev sets it was not trained on 0.948 / 0.817;
// docs/PERFORMANCE.md has the figures), so that a change that finds
// worse fails. They are not the goals: test top-1 0.90 and top-3 0.97,
// intent recall 0.9 and precision 0.75 (issue 31, DESIGN.md); raise a
// floor when the figure it guards rises. The test split's intent
// precision floor was lowered from 0.79 when the learned model traded
// 0.006 of it for 0.027 of recall; its recall floor leaves room for the
// few needs a retrained model moves (up to three on a set of 185).
var (
	searchFloor = map[string]struct{ top1, top3 float64 }{"dev": {0.925, 0.98}, "test": {0.895, 0.965}}
	intentFloor = map[string]struct{ recall, precision float64 }{"dev": {0.925, 0.815}, "test": {0.89, 0.78}}
	// modelFloor holds intent with the learned model on dev sets left
	// out of its training (TestIntentModel).
	modelFloor = struct{ recall, precision float64 }{0.94, 0.81}
	// oneToolFloor holds intent's recall on the search's one-tool
	// requests (dev 0.871, test 0.875 at the eighth session's start).
	oneToolFloor = map[string]float64{"dev": 0.945, "test": 0.93}
)

func loadSplit[T any](t testing.TB, kind, split string) []T {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "findeval", kind+"-"+split+"-*.json"))
	if len(files) == 0 {
		t.Fatalf("no %s %s split in testdata/findeval", kind, split)
	}
	var all []T
	for _, f := range files {
		all = append(all, loadFile[T](t, f)...)
	}
	return all
}

// loadFile reads one file of requests.
func loadFile[T any](t testing.TB, f string) []T {
	t.Helper()
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var cases []T
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	return cases
}

// splits are the splits to evaluate: both, or the one FINDEVAL_SPLIT
// names (dev while tuning, so that the test split's figures are not
// watched either).
func splits() []string {
	if s := os.Getenv("FINDEVAL_SPLIT"); s != "" {
		return []string{s}
	}
	return []string{"dev", "test"}
}

// showMisses says whether a split's misses may be logged.
func showMisses(split string) bool {
	return split == "dev" || os.Getenv("FINDEVAL_SHOW") == split
}

// searchScore is how a split fares: the share of requests whose first
// answer is right, whose first three hold a right one, and the mean
// reciprocal rank of the first right one (in the first ten).
type searchScore struct {
	n                int
	top1, top3, mrr  float64
	missed1, missed3 []string
}

func scoreSearch(t testing.TB, d *Doctor, cases []searchCase, rank func(q string) []string) searchScore {
	var s searchScore
	for _, c := range cases {
		ok := map[string]bool{c.Tool: true}
		for _, a := range append([]string{c.Tool}, c.Also...) {
			if _, found := d.Registry().Get(a); !found {
				t.Errorf("%q names %s, which is no tool", c.Q, a)
			}
			ok[a] = true
		}
		got := rank(c.Q)
		at := slices.IndexFunc(got, func(n string) bool { return ok[n] })
		s.n++
		if at >= 0 {
			s.mrr += 1 / float64(at+1)
		}
		if at == 0 {
			s.top1++
		} else {
			s.missed1 = append(s.missed1, fmt.Sprintf("%q: want %s, got %v", c.Q, c.Tool, got[:min(3, len(got))]))
		}
		if at >= 0 && at < 3 {
			s.top3++
		} else {
			s.missed3 = append(s.missed3, fmt.Sprintf("%q: want %s, got %v", c.Q, c.Tool, got[:min(3, len(got))]))
		}
	}
	s.top1 /= float64(max(1, s.n))
	s.top3 /= float64(max(1, s.n))
	s.mrr /= float64(max(1, s.n))
	return s
}

func rankWith(ix *search.Index) func(string) []string {
	return func(q string) []string {
		var names []string
		for _, h := range ix.Search(q, 10, "") {
			names = append(names, h.Tool.Name)
		}
		return names
	}
}

// toolSearch ranks as the tool_search tool answers a client: the steps
// intent analysis finds for a task of several, then the index's best.
func toolSearch(t testing.TB, d *Doctor) func(string) []string {
	return func(q string) []string {
		args, _ := json.Marshal(map[string]any{"query": q, "limit": 10})
		r := d.Call(t.Context(), "tool_search", args)
		if r.Err != nil {
			t.Fatalf("tool_search %q: %v", q, r.Err)
		}
		var out struct {
			Results []struct {
				Name string `json:"name"`
			} `json:"results"`
		}
		if err := json.Unmarshal(r.Value, &out); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, h := range out.Results {
			names = append(names, h.Name)
		}
		return names
	}
}

// TestToolSearchEvaluation reports top-1, top-3 and MRR of tool_search
// on both splits and fails below their floors.
func TestToolSearchEvaluation(t *testing.T) {
	t.Parallel()
	d := newSearchDoctor(t)
	for _, split := range splits() {
		s := scoreSearch(t, d, loadSplit[searchCase](t, "search", split), toolSearch(t, d))
		t.Logf("tool_search, %s split: %d requests, top-1 %.3f, top-3 %.3f, MRR %.3f", split, s.n, s.top1, s.top3, s.mrr)
		if showMisses(split) {
			for _, m := range s.missed1 {
				t.Logf("  %s: not first: %s", split, m)
			}
		}
		if f := searchFloor[split]; s.top1 < f.top1 || s.top3 < f.top3 {
			t.Errorf("tool_search, %s split: top-1 %.3f (floor %.2f), top-3 %.3f (floor %.2f)", split, s.top1, f.top1, s.top3, f.top3)
		}
	}
}

// TestEveryToolIsFoundByItsWords: every tool of this server carries its
// phrases and is the one asked for by at least two requests of each
// split, so a new tool lands with both.
func TestEveryToolIsFoundByItsWords(t *testing.T) {
	t.Parallel()
	d := newSearchDoctor(t)
	for _, split := range []string{"dev", "test"} {
		asked := map[string]int{}
		for _, c := range loadSplit[searchCase](t, "search", split) {
			asked[c.Tool]++
		}
		for _, tl := range d.Registry().List() {
			if asked[tl.Name] < 2 {
				t.Errorf("%s: %d requests in the %s split, want at least 2", tl.Name, asked[tl.Name], split)
			}
		}
	}
	for _, tl := range d.Registry().List() {
		if len(tl.Phrases) == 0 {
			t.Errorf("%s has no phrases (tool.Def.WithPhrases)", tl.Name)
		}
	}
}

// TestSharedArgumentsDoNotRank: an argument every tool has (here one
// whose description speaks of flaky tests and containers) changes no
// ranking of the dev split.
func TestSharedArgumentsDoNotRank(t *testing.T) {
	t.Parallel()
	d := newSearchDoctor(t)
	tools := d.reg.List()
	widened := make([]*tool.Tool, len(tools))
	for i, tl := range tools {
		c := *tl
		in := *tl.Input
		in.Properties = maps.Clone(tl.Input.Properties)
		if in.Properties == nil {
			in.Properties = map[string]*jsonschema.Schema{}
		}
		in.Properties["testName"] = schema.String("testName", "The name the record of test runs keeps this check under, for flaky tests across containers and pull requests").Schema
		c.Input = &in
		widened[i] = &c
	}
	before, after := rankWith(search.New(tools)), rankWith(search.New(widened))
	for _, c := range loadSplit[searchCase](t, "search", "dev") {
		if b, a := before(c.Q), after(c.Q); !slices.Equal(b, a) {
			t.Errorf("%q: %v became %v", c.Q, b, a)
		}
	}
}

// intentScore is how intent analysis fares on a split: recall (needs
// met), precision (suggestions acceptable), parallelizable as judged.
type intentScore struct {
	requests, needs, met, suggested, right, parJudged, parRight int
	misses                                                      []string
}

func (s intentScore) recall() float64    { return float64(s.met) / float64(max(1, s.needs)) }
func (s intentScore) precision() float64 { return float64(s.right) / float64(max(1, s.suggested)) }

// add scores one request: the tools wanted ("a|b" either, "?x"
// acceptable) against those suggested.
func (s *intentScore) add(want, got []string) (missed, wrong []string) {
	s.requests++
	ok := map[string]bool{}
	for _, w := range want {
		if name, optional := strings.CutPrefix(w, "?"); optional {
			ok[name] = true
			continue
		}
		s.needs++
		hit := false
		for _, alt := range strings.Split(w, "|") {
			ok[alt] = true
			hit = hit || slices.Contains(got, alt)
		}
		if hit {
			s.met++
		} else {
			missed = append(missed, w)
		}
	}
	for _, g := range got {
		s.suggested++
		if ok[g] {
			s.right++
		} else {
			wrong = append(wrong, g)
		}
	}
	return missed, wrong
}

// scoreIntent asks a the cases.
func scoreIntent(t testing.TB, d *Doctor, a *intent.Analyzer, cases []intentCase) intentScore {
	var s intentScore
	for _, c := range cases {
		for _, w := range c.Want {
			for _, alt := range strings.Split(strings.TrimPrefix(w, "?"), "|") {
				if _, found := d.Registry().Get(alt); !found {
					t.Errorf("%q names %s, which is no tool", c.Q, alt)
				}
			}
		}
		r := a.Text(c.Q)
		got := r.SuggestedTools
		missed, wrong := s.add(c.Want, got)
		if c.Parallel != nil {
			s.parJudged++
			if r.Parallelizable == *c.Parallel {
				s.parRight++
			}
		}
		if len(missed) > 0 || len(wrong) > 0 {
			s.misses = append(s.misses, fmt.Sprintf("%q\n\tmissed %v, beside the point %v (suggested %v)", c.Q, missed, wrong, got))
		}
	}
	return s
}

// TestIntentEvaluation reports intent analysis's recall and precision on
// both splits and fails below their floors.
func TestIntentEvaluation(t *testing.T) {
	t.Parallel()
	d := newSearchDoctor(t)
	d.intent.Cache = false
	for _, split := range splits() {
		// The learned model is trained on the dev split, so dev is asked
		// of the rules alone (TestIntentModel reports the model on dev
		// sets it was not trained on); the other splits of the whole.
		a, whose := d.intent, ""
		if split == "dev" {
			a, whose = rulesOnly(d), " (rules alone)"
		}
		s := scoreIntent(t, d, a, loadSplit[intentCase](t, "intent", split))
		t.Logf("intent_analyze, %s split%s: %d requests, recall %.3f (%d of %d needs), precision %.3f (%d of %d suggestions), parallelizable %d of %d",
			split, whose, s.requests, s.recall(), s.met, s.needs, s.precision(), s.right, s.suggested, s.parRight, s.parJudged)
		if showMisses(split) {
			for _, m := range s.misses {
				t.Logf("  %s: %s", split, m)
			}
		}
		if f := intentFloor[split]; s.recall() < f.recall || s.precision() < f.precision {
			t.Errorf("intent_analyze, %s split: recall %.3f (floor %.2f), precision %.3f (floor %.2f)", split, s.recall(), f.recall, s.precision(), f.precision)
		}
		// The search's requests are each for one tool: intent should
		// find it too (its extra tools are not counted against it here,
		// the request's implied steps being unlabelled).
		one := scoreIntent(t, d, d.intent, oneToolCases(loadSplit[searchCase](t, "search", split)))
		t.Logf("intent_analyze, %s split of the search's one-tool requests: %d requests, recall %.3f", split, one.requests, one.recall())
		if f := oneToolFloor[split]; one.recall() < f {
			t.Errorf("intent_analyze, %s split of one-tool requests: recall %.3f (floor %.2f)", split, one.recall(), f)
		}
	}
}

// oneToolCases reads the search's requests as intent cases of one need.
func oneToolCases(cases []searchCase) []intentCase {
	out := make([]intentCase, 0, len(cases))
	for _, c := range cases {
		out = append(out, intentCase{Q: c.Q, Want: []string{strings.Join(append([]string{c.Tool}, c.Also...), "|")}})
	}
	return out
}
