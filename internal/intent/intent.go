// Package intent says what a call or a request in words is after
// (doctor-spec.md, Intent Analysis): its primary and secondary domains,
// whether it is one simple step, a compound of several or a swarm (the
// same work over several independent items), the tools that would do it
// in calling order with the arguments the words give, and whether it can
// be split across Igors. A request is read as a QA engineer reads it: cut
// into steps (request.go), each step given the tools its kind of work
// takes (workflows.go, text.go), and hints found in its words (hints.go);
// a compound tool name such as test_login_flow stands for a recipe.
// Then a small model learned from labelled requests (package learned)
// adds the tools such requests usually need that no rule read: the page
// opened before a form, the list before a review. It reads only the
// registry, the tool search and that model; no language model is asked,
// and the same words always give the same answer.
package intent

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/barrhawk/barrhawk/internal/intent/learned"
	"github.com/barrhawk/barrhawk/internal/search"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Complexities.
const (
	Simple   = "simple"
	Compound = "compound"
	Swarm    = "swarm"
)

// Analysis is the seed's IntentAnalysis.
type Analysis struct {
	PrimaryDomain    tool.Category   `json:"primaryDomain"`
	SecondaryDomains []tool.Category `json:"secondaryDomains"`
	Complexity       string          `json:"complexity"`
	SuggestedTools   []string        `json:"suggestedTools"`
	// Missing are suggested tools this server does not have (yet).
	Missing        []string `json:"missing,omitempty"`
	Parallelizable bool     `json:"parallelizable"`
	EstimatedSteps int      `json:"estimatedSteps"`
	// Steps are the suggested tools in calling order, each with the words
	// of the request it does and the arguments found there.
	Steps []Step `json:"steps"`
	// Read are the words of a request in words read as its work, without
	// what it says is no step (a purpose, what not to do, what the user
	// does, the text of an issue it files): what the learned model reads.
	Read string `json:"-"`
}

// Step is one suggested call.
type Step struct {
	Tool string `json:"tool"`
	// Words are the request's words this step does.
	Words string `json:"words"`
	// Args are argument hints found in the words (a URL, a selector, a
	// count, a file), by the tool's argument names.
	Args map[string]any `json:"args,omitempty"`
	// Each, when set, are the items the step repeats over, one argument
	// set each (several URLs, several window sizes).
	Each []map[string]any `json:"each,omitempty"`
	// Likely, when set, is a step no words of the request name: the
	// learned model's probability that requests like this one need the
	// tool (package learned); such a step has no words or arguments.
	Likely float64 `json:"likely,omitempty"`
}

// Analyzer analyses with a registry's tools; safe for concurrent use. Its
// cache is keyed by the whole input and dropped when it holds cacheSize
// entries or the tools change (Reset).
type Analyzer struct {
	Tools  func() []*tool.Tool
	Search func(query string, limit int) []search.Hit
	// Own, when set, tells the tools no workflow knows, which the search
	// may pick for any step: the agent's dynamic tools, a hosted MCP
	// server's.
	Own func(*tool.Tool) bool
	// Learned, when set, gives the model that adds the tools it finds a
	// request likely needs and the rules did not give (package learned);
	// nil, or a nil model, gives the rules' answer alone. It is asked at
	// each request (the Doctor's decodes its model once, at the first).
	Learned func() *learned.Model
	Cache   bool

	mu    sync.Mutex
	cache map[string]Analysis
}

const cacheSize = 4096

// Reset drops the cache (the tools changed).
func (a *Analyzer) Reset() {
	a.mu.Lock()
	a.cache = nil
	a.mu.Unlock()
}

// recipes are the steps a compound tool name stands for: the seed's
// test_login_flow and its like. A request in words is read step by step
// instead (text.go).
var recipes = map[string][]string{
	"login":    {"browser_launch", "browser_navigate", "browser_type", "browser_click", "browser_screenshot", "assert_visible", "assert_url"},
	"signup":   {"data_generate", "browser_launch", "browser_navigate", "browser_fill_form", "browser_click", "assert_visible", "assert_url"},
	"checkout": {"browser_launch", "browser_navigate", "browser_click", "browser_fill_form", "browser_click", "assert_text", "browser_screenshot"},
	"api":      {"http_request", "assert_equals", "assert_json_schema"},
	"report":   {"report_summary", "report_failures", "report_timing"},
	"flaky":    {"test_flaky_detect", "test_prioritize"},
	"perf":     {"performance_regression", "report_timing"},
}

// Call analyses a tools/call: the tool's name and arguments.
func (a *Analyzer) Call(name string, args json.RawMessage) Analysis {
	return a.cached("c\x00"+name+"\x00"+string(args), func() Analysis { return a.call(name, args) })
}

// Text analyses a request in words.
func (a *Analyzer) Text(text string) Analysis {
	return a.cached("t\x00"+text, func() Analysis { return a.text(text) })
}

func (a *Analyzer) cached(key string, f func() Analysis) Analysis {
	if !a.Cache {
		return f()
	}
	a.mu.Lock()
	if r, ok := a.cache[key]; ok {
		a.mu.Unlock()
		return r
	}
	a.mu.Unlock()
	r := f()
	a.mu.Lock()
	if a.cache == nil || len(a.cache) >= cacheSize {
		a.cache = map[string]Analysis{}
	}
	a.cache[key] = r
	a.mu.Unlock()
	return r
}

func (a *Analyzer) byName() map[string]*tool.Tool {
	m := map[string]*tool.Tool{}
	for _, t := range a.Tools() {
		m[t.Name] = t
	}
	return m
}

func (a *Analyzer) call(name string, args json.RawMessage) Analysis {
	tools := a.byName()
	if t, ok := tools[name]; ok {
		r := Analysis{PrimaryDomain: t.Category, Complexity: Simple, SuggestedTools: []string{name}, EstimatedSteps: 1,
			Steps: []Step{{Tool: name, Words: name}}}
		switch name {
		case "swarm_run":
			var spec struct {
				Subtasks []struct {
					Tool string `json:"tool"`
				} `json:"subtasks"`
				Map *struct {
					Tool  string `json:"tool"`
					Items []any  `json:"items"`
				} `json:"map"`
			}
			_ = json.Unmarshal(args, &spec)
			r.Complexity, r.Parallelizable, r.SuggestedTools = Swarm, true, nil
			for _, st := range spec.Subtasks {
				r.SuggestedTools = append(r.SuggestedTools, st.Tool)
			}
			r.EstimatedSteps = len(spec.Subtasks)
			if spec.Map != nil {
				r.SuggestedTools = append(r.SuggestedTools, spec.Map.Tool)
				r.EstimatedSteps = len(spec.Map.Items) + 1
			}
			r.SuggestedTools = unique(r.SuggestedTools)
			r.SecondaryDomains = domains(tools, r.SuggestedTools, r.PrimaryDomain)
			r.Steps = nil
			for _, t := range r.SuggestedTools {
				r.Steps = append(r.Steps, Step{Tool: t, Words: name})
			}
		default:
			// Natural language in the arguments widens the domains.
			if words := textIn(args); words != "" {
				more := a.text(words)
				r.SecondaryDomains = withoutDomain(append([]tool.Category{more.PrimaryDomain}, more.SecondaryDomains...), r.PrimaryDomain)
			}
		}
		return r.normal()
	}
	// An unknown name: a compound such as test_login_flow (the seed's
	// recipes), or words.
	var steps []string
	for _, w := range strings.Split(name, "_") {
		steps = append(steps, recipes[w]...)
	}
	if len(steps) == 0 {
		return a.text(strings.ReplaceAll(name, "_", " ") + " " + textIn(args))
	}
	r := Analysis{Complexity: Compound, SuggestedTools: steps}
	for _, s := range steps {
		r.Steps = append(r.Steps, Step{Tool: s, Words: name})
	}
	return finish(r, tools)
}

// domainOfMissing guesses the domain of tools still to come by their
// prefix.
func domainOfMissing(names []string) tool.Category {
	for _, n := range names {
		switch {
		case strings.HasPrefix(n, "browser_"), strings.HasPrefix(n, "assert_visible"):
			return tool.CategoryBrowser
		case strings.HasPrefix(n, "db_"):
			return tool.CategoryDatabase
		}
	}
	return tool.CategoryUtility
}

// domains are the categories of names, most frequent first, known tools
// only, without skip; tools still to come count by their prefix.
func domains(tools map[string]*tool.Tool, names []string, skip tool.Category) []tool.Category {
	count := map[tool.Category]int{}
	var order []tool.Category
	for _, n := range names {
		c := tool.Category("")
		if t, ok := tools[n]; ok {
			c = t.Category
		} else {
			c = domainOfMissing([]string{n})
		}
		if c == skip {
			continue
		}
		if count[c] == 0 {
			order = append(order, c)
		}
		count[c]++
	}
	slices.SortStableFunc(order, func(x, y tool.Category) int { return count[y] - count[x] })
	// Assertions cut across domains (doctor-spec.md, Tool Bag Curation):
	// they bring the utility domain along.
	if !slices.Contains(order, tool.CategoryUtility) && skip != tool.CategoryUtility && slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "assert_") }) {
		order = append(order, tool.CategoryUtility)
	}
	return order
}

func withoutDomain(ds []tool.Category, skip tool.Category) []tool.Category {
	var out []tool.Category
	for _, d := range ds {
		if d != skip && d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// textIn gathers the string arguments that read as words (three or more).
func textIn(args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	var parts []string
	for _, v := range m {
		if s, ok := v.(string); ok && len(strings.Fields(s)) >= 3 {
			parts = append(parts, s)
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

func unique(s []string) []string {
	var out []string
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// finish derives what follows from the steps: the tools without
// repeats, those this server lacks, the domains, the step count.
func finish(r Analysis, tools map[string]*tool.Tool) Analysis {
	r.EstimatedSteps = max(1, len(r.Steps))
	r.SuggestedTools = unique(r.SuggestedTools)
	r.Missing = nil
	for _, s := range r.SuggestedTools {
		if _, ok := tools[s]; !ok {
			r.Missing = append(r.Missing, s)
		}
	}
	ds := domains(tools, r.SuggestedTools, "")
	if len(ds) == 0 {
		ds = []tool.Category{domainOfMissing(r.Missing)}
	}
	r.PrimaryDomain, r.SecondaryDomains = ds[0], ds[1:]
	return r.normal()
}

// normal fills empty lists, so the JSON has [] rather than null.
func (r Analysis) normal() Analysis {
	if r.SecondaryDomains == nil {
		r.SecondaryDomains = []tool.Category{}
	}
	if r.SuggestedTools == nil {
		r.SuggestedTools = []string{}
	}
	if r.Steps == nil {
		r.Steps = []Step{}
	}
	return r
}
