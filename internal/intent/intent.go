// Package intent says what a call or a request in words is after
// (doctor-spec.md, Intent Analysis): its primary and secondary domains,
// whether it is one simple step, a compound of several (a tool name such
// as test_login_flow, or a sentence with "and" or "then") or a swarm (the
// same work over many items), the tools that would do it, and whether it
// can be split across Igors. It reads only the registry (categories,
// names) and the tool search; no model is asked.
package intent

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"

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
}

// Analyzer analyses with a registry's tools; safe for concurrent use. Its
// cache is keyed by the whole input and dropped when it holds cacheSize
// entries or the tools change (Reset).
type Analyzer struct {
	Tools  func() []*tool.Tool
	Search func(query string, limit int) []search.Hit
	Cache  bool

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

// recipes are compound steps named by words in a tool name or a request:
// the seed's test_login_flow and its like. Tools still to come are named
// as they will be.
var recipes = map[string][]string{
	"login":    {"browser_launch", "browser_navigate", "browser_type", "browser_click", "browser_screenshot", "assert_visible", "assert_url"},
	"signup":   {"data_generate", "browser_launch", "browser_navigate", "browser_fill_form", "browser_click", "assert_visible", "assert_url"},
	"checkout": {"browser_launch", "browser_navigate", "browser_click", "browser_fill_form", "browser_click", "assert_text", "browser_screenshot"},
	"api":      {"http_request", "assert_equals", "assert_json_schema"},
	"report":   {"report_summary", "report_failures", "report_timing"},
	"flaky":    {"test_flaky_detect", "test_prioritize"},
	"perf":     {"performance_regression", "report_timing"},
}

var manyItems = regexp.MustCompile(`(?i)\b(all|each|every|many|in parallel|concurrently|batch)\b|\b([2-9]|[1-9][0-9]+) [a-z]+s\b`)
var joined = regexp.MustCompile(`(?i)\b(and then|then|and|after that|followed by)\b`)

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
		r := Analysis{PrimaryDomain: t.Category, Complexity: Simple, SuggestedTools: []string{name}, EstimatedSteps: 1}
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
		default:
			// Natural language in the arguments widens the domains.
			if words := textIn(args); words != "" {
				more := a.text(words)
				r.SecondaryDomains = withoutDomain(append([]tool.Category{more.PrimaryDomain}, more.SecondaryDomains...), r.PrimaryDomain)
			}
		}
		return r.normal()
	}
	// An unknown name: a compound such as test_login_flow, or words.
	return a.text(strings.ReplaceAll(name, "_", " ") + " " + textIn(args))
}

func (a *Analyzer) text(text string) Analysis {
	tools := a.byName()
	// Each part of a request joined by "and", "then", ... is one step or
	// a known recipe of steps.
	r := Analysis{Complexity: Simple}
	parts := joined.Split(text, -1)
	for _, part := range parts {
		var steps []string
		for _, w := range search.Terms(part) {
			steps = append(steps, recipes[w]...)
		}
		if len(steps) == 0 {
			if hits := a.Search(part, 1); len(hits) > 0 {
				steps = []string{hits[0].Tool.Name}
			}
		}
		r.SuggestedTools = append(r.SuggestedTools, steps...)
	}
	if len(r.SuggestedTools) > 1 {
		r.Complexity = Compound
	}
	if manyItems.MatchString(text) {
		r.Complexity, r.Parallelizable = Swarm, true
	}
	r.EstimatedSteps = max(1, len(r.SuggestedTools))
	for _, s := range r.SuggestedTools {
		if _, ok := tools[s]; !ok {
			r.Missing = append(r.Missing, s)
		}
	}
	r.Missing = unique(r.Missing)
	r.SuggestedTools = unique(r.SuggestedTools)
	ds := domains(tools, r.SuggestedTools, "")
	if len(ds) == 0 {
		ds = []tool.Category{domainOfMissing(r.Missing)}
	}
	r.PrimaryDomain, r.SecondaryDomains = ds[0], ds[1:]
	return r.normal()
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

// normal fills empty lists, so the JSON has [] rather than null.
func (r Analysis) normal() Analysis {
	if r.SecondaryDomains == nil {
		r.SecondaryDomains = []tool.Category{}
	}
	if r.SuggestedTools == nil {
		r.SuggestedTools = []string{}
	}
	return r
}
