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
			Def: mgmt("tool_search", "Find tools by what you want done, described in words, among all tools, listed or not. Returns the best matches with their input schemas; call one by name or with tool_call. A task of several steps (log in, then check the dashboard shows 3 widgets) is answered step by step: steps lists each step's tool in calling order with the words it does and argument hints found in them.",
				schema.String("query", "The task in words, as you would ask a colleague").Required().Min(1),
				schema.Integer("limit", "How many tools to return").Default(5).Min(1).Max(searchLimit),
				schema.String("category", "Only tools of this category").Enum(cats...)),
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
				// A task of several steps is answered step by step: the
				// tools intent analysis finds for each, in calling order,
				// then the best matches of the whole query.
				shown := map[string]bool{}
				if steps := d.stepsOf(in.Query, tool.Category(in.Category)); steps != nil {
					out["steps"] = steps
					for _, st := range steps {
						if t, ok := d.reg.Get(st.Tool); ok && !shown[st.Tool] {
							shown[st.Tool] = true
							add(t, 0)
						}
					}
				}
				for _, h := range hits {
					if len(results) >= max(in.Limit, len(shown)) {
						break
					}
					if !shown[h.Tool.Name] {
						add(h.Tool, h.Score)
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
				Description: "Call any tool by name with its arguments, listed or not (tool_search finds tools and shows their arguments). The answer is the tool's own.",
				Group:       ManagementGroup, Category: tool.CategoryMeta,
				Input: schema.Object(
					schema.String("name", "The tool's name").Required().Min(1),
					schema.Any("arguments", "The tool's arguments, an object").Types("object", "null"),
				),
				Timeout: maxToolCallTimeout, // the called tool's own timeout applies
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
