package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/barrhawk/barrhawk/internal/gateway"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/toolbag"
)

// List bags: what tools/list shows each session (package toolbag). The
// front keeps one bag per session and hands it to calls through the
// context; tool_bag changes it.

// Profiles are the tool list profiles: the built-in ones and tools.profiles.
func (d *Doctor) Profiles() toolbag.Profiles { return toolbag.Merge(d.cfg.Tools.Profiles) }

// NewBag returns a new session's list bag: tools.listProfile.
func (d *Doctor) NewBag() *toolbag.Bag {
	b, err := toolbag.New(d.Profiles(), d.cfg.Tools.ListProfile, d.reg.List())
	if err != nil { // the configuration was validated: fall back to every tool
		d.log.Error("tool list profile", "err", err)
		b, _ = toolbag.New(d.Profiles(), toolbag.All, nil)
	}
	return b
}

// IsDynamic reports whether t is one of the agent's dynamic tools, which
// every list bag shows.
func IsDynamic(t *tool.Tool) bool { return t.Group == DynamicGroup }

// listTokens reports the estimated size of the default list and of the
// full one, for worker_status and tool_bag.
func (d *Doctor) listTokens(b *toolbag.Bag) map[string]any {
	all := d.reg.List()
	var listed []*tool.Tool
	for _, t := range all {
		if b.Shows(t.Name, IsDynamic(t)) {
			listed = append(listed, t)
		}
	}
	return map[string]any{
		"listedTools": len(listed), "listedTokens": toolbag.Tokens(listed),
		"allTools": len(all), "allTokens": toolbag.Tokens(all),
		"note": "tokens are estimated as bytes/4 of the tools/list entries",
	}
}

// toolListStatus is worker_status's view of tools/list: the profile a new
// session starts with and what it costs, against the full list.
func (d *Doctor) toolListStatus() map[string]any {
	st := d.listTokens(d.NewBag())
	st["profile"] = d.cfg.Tools.ListProfile
	return st
}

func (d *Doctor) bagTools() []tool.Tool {
	var cats []any
	for _, c := range searchCategories {
		cats = append(cats, string(c))
	}
	return []tool.Tool{{
		Def: mgmt("tool_bag", "Show or change which tools this session's tools/list shows; all stay callable. show: listed tools, token cost, profiles. load/unload: what tools, category, profile, server or task name; sends tools/list_changed.",
			schema.String("action", "What to do").Required().Enum("show", "load", "unload"),
			schema.Array("tools", "Names or globs (assert_*)", schema.StringItems()),
			schema.String("category", "A category").Enum(cats...),
			schema.String("profile", "show lists them"),
			schema.String("server", "Hosted MCP server (mcp_list)"),
			schema.String("task", "Task in words: the tools it needs")).
			WithPhrases("hide tools", "show fewer tools", "too many tools listed", "cut tool list token cost", "expose more tools", "add tools to tools/list", "load a group of tools", "switch tool profile", "enable a whole category", "unhide a tool", "slim down the tool menu"),
		Run: tool.Typed(func(ctx context.Context, in struct {
			Action   string   `json:"action"`
			Tools    []string `json:"tools"`
			Category string   `json:"category"`
			Profile  string   `json:"profile"`
			Server   string   `json:"server"`
			Task     string   `json:"task"`
		}, _ *tool.Call) (any, error) {
			s := toolbag.From(ctx)
			if s == nil {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "tool_bag works on an MCP session's tool list; this call has none (the admin API and `barrhawk call` list nothing)")
			}
			all := d.reg.List()
			var members []string
			members = append(members, in.Tools...)
			if in.Category != "" {
				members = append(members, "category:"+in.Category)
			}
			if in.Server != "" {
				if d.gateway == nil {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "server: the MCP gateway is off (gateway.enabled)")
				}
				if _, ok := d.gateway.Get(in.Server); !ok {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "server: no hosted MCP server %q; mcp_list lists them", in.Server)
				}
				members = append(members, in.Server+gateway.Separator+"*")
			}
			var suggested []string
			if in.Task != "" {
				if !d.cfg.Intent.Enabled {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "task: intent analysis is off (intent.enabled); name tools, a category or a profile")
				}
				for _, n := range d.intent.Text(in.Task).SuggestedTools {
					if _, ok := d.reg.Get(n); ok {
						suggested = append(suggested, n)
					}
				}
				if len(suggested) == 0 {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "task: no tool found for %q; say what is to be done (open the page, click Save, check the title), or use tool_search", in.Task)
				}
				members = append(members, suggested...)
			}
			profiles := d.Profiles()
			if in.Profile != "" && in.Profile != toolbag.All {
				p, ok := profiles[in.Profile]
				if !ok {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "no profile %q; profiles: %s", in.Profile, strings.Join(profiles.Names(), ", "))
				}
				members = append(members, p...)
			}
			out := map[string]any{}
			switch in.Action {
			case "load", "unload":
				if len(members) == 0 && in.Profile != toolbag.All {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "%s needs tools, a category or a profile", in.Action)
				}
				names := toolbag.Resolve(members, all)
				if len(names) == 0 && in.Profile != toolbag.All {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "nothing matches %s; tool_search finds tools by what they do", strings.Join(members, ", "))
				}
				var changed []string
				if in.Action == "load" {
					if in.Profile == toolbag.All {
						s.Bag.LoadAll()
						changed = []string{"(all)"}
					}
					changed = append(changed, s.Bag.Load(names)...)
					out["loaded"] = changed
				} else {
					if in.Profile == toolbag.All {
						names = toolbag.Resolve([]string{"*"}, all)
					}
					changed = s.Bag.Unload(names, all)
					out["unloaded"] = changed
				}
				if len(changed) > 0 && s.Changed != nil {
					s.Changed()
				}
			}
			out["listed"] = s.Bag.Listed(all, IsDynamic)
			out["size"] = d.listTokens(s.Bag)
			out["profiles"] = profiles.Names()
			if suggested != nil {
				out["suggested"] = suggested
			}
			out["message"] = fmt.Sprintf("tools/list shows %d of %d tools", len(out["listed"].([]string)), len(all))
			return out, nil
		}),
	}}
}
