package doctor

import (
	"context"
	"encoding/json"
	"math"
	"time"

	"github.com/barrhawk/barrhawk/internal/intent"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/search"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Finding tools: tool_search ranks every tool for a request in words
// (package search) and returns the best with their input schemas, ready to
// call; tool_call calls any tool by name, listed or not, through the same
// validation and dispatch as a direct call, for clients that keep the tool
// list they saw first.

// searchIndex returns the index of the registry's tools, built on first
// use after each change.
func (d *Doctor) searchIndex() *search.Index {
	if ix := d.index.Load(); ix != nil {
		return ix
	}
	ix := search.New(d.reg.List())
	d.index.Store(ix)
	return ix
}

// Search ranks the tools for query (see package search).
func (d *Doctor) Search(query string, limit int, category tool.Category) []search.Hit {
	return d.searchIndex().Search(query, limit, category)
}

// searchCategories are the categories a search or a list bag can name.
var searchCategories = []tool.Category{tool.CategoryUtility, tool.CategoryMeta, tool.CategoryOrchestration, tool.CategoryBrowser, tool.CategoryDatabase, tool.CategoryFilesystem, tool.CategoryGitHub, tool.CategoryDocker, tool.CategoryGateway}

// searchLimit bounds tool_search's answer.
const searchLimit = 20

func (d *Doctor) searchTools() []tool.Tool {
	var cats []any
	for _, c := range searchCategories {
		cats = append(cats, string(c))
	}
	return []tool.Tool{
		{
			Def: mgmt("tool_search", "Find tools, listed or not, by what you want done. Returns the best matches with input schemas (call by name or tool_call) and, for a task of several steps, steps: each step's tool in order with its words and argument hints.",
				schema.String("query", "The task in words").Required().Min(1),
				schema.Integer("limit", "At most this many tools").Default(5).Min(1).Max(searchLimit),
				schema.String("category", "Only this category").Enum(cats...)).
				WithPhrases("which tool should I use", "is there a tool for", "look up a tool", "search the available tools", "find a tool that can", "discover hidden tools", "tools not in my list", "what can this server do"),
			Run: tool.Typed(func(_ context.Context, in struct {
				Query    string `json:"query"`
				Limit    int    `json:"limit"`
				Category string `json:"category"`
			}, _ *tool.Call) (any, error) {
				if in.Limit == 0 {
					in.Limit = 5
				}
				hits := d.Search(in.Query, in.Limit, tool.Category(in.Category))
				results := make([]map[string]any, 0, len(hits))
				add := func(t *tool.Tool, score float64) {
					input, _ := t.InputJSON() // a registered schema always marshals
					r := map[string]any{"name": t.Name, "description": t.Description, "category": t.Category, "inputSchema": json.RawMessage(input)}
					if score > 0 {
						r["score"] = math.Round(score*100) / 100
					}
					results = append(results, r)
				}
				out := map[string]any{"query": in.Query}
				// Results are the best matches of the whole query. A task
				// of several steps is also answered step by step: steps
				// are the tools intent analysis finds for each, in calling
				// order, and each of them is among the results.
				shown := map[string]bool{}
				steps := d.stepsOf(in.Query, tool.Category(in.Category))
				for _, h := range hits {
					shown[h.Tool.Name] = true
					add(h.Tool, h.Score)
				}
				if steps != nil {
					out["steps"] = steps
					for _, st := range steps {
						if t, ok := d.reg.Get(st.Tool); ok && !shown[st.Tool] {
							shown[st.Tool] = true
							add(t, 0)
						}
					}
				}
				out["results"] = results
				if len(results) == 0 {
					out["hint"] = "No tool matched; try other words, or fewer."
				} else {
					out["hint"] = "Call a tool by its name, or with tool_call {name, arguments} if your tool list does not show it."
				}
				return out, nil
			}),
		},
		{
			Def: tool.Def{
				Name:        "tool_call",
				Description: "Call any tool by name, listed or not (tool_search shows its arguments). Returns the tool's own answer.",
				Group:       ManagementGroup, Category: tool.CategoryMeta,
				Input: schema.Object(
					schema.String("name", "Tool name").Required().Min(1),
					schema.Any("arguments", "Its arguments").Types("object", "null"),
				),
				Timeout: maxToolCallTimeout, // the called tool's own timeout applies
				Phrases: []string{"invoke a hidden tool", "call an unlisted tool", "tool not in tools/list", "run a tool by name", "invoke a tool directly", "tool missing from the list", "call what tool_search found"},
			},
			Run: tool.Typed(func(ctx context.Context, in struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			}, _ *tool.Call) (any, error) {
				if in.Name == "tool_call" {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "tool_call cannot call itself; name the tool to call")
				}
				if _, ok := d.reg.Get(in.Name); !ok {
					return nil, d.UnknownTool(in.Name)
				}
				r := d.Call(ctx, in.Name, in.Arguments)
				if r.Err != nil {
					return nil, r.Err
				}
				return r.Value, nil
			}),
		},
	}
}

// stepsOf are the steps of a query that asks for several (intent
// analysis), only tools of category when one is given; nil for a query of
// one step, or when intent analysis is off.
func (d *Doctor) stepsOf(query string, category tool.Category) []intent.Step {
	if !d.cfg.Intent.Enabled {
		return nil
	}
	a := d.intent.Text(query)
	var steps []intent.Step
	words := map[string]bool{}
	for _, s := range a.Steps {
		if t, ok := d.reg.Get(s.Tool); ok && (category == "" || t.Category == category) {
			steps = append(steps, s)
			words[s.Words] = true
		}
	}
	if len(words) < 2 {
		return nil
	}
	return steps
}

// maxToolCallTimeout is tool_call's own bound: the called tool's timeout
// is what limits a call.
const maxToolCallTimeout = 24 * time.Hour
