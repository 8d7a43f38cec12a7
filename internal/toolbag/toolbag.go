// Package toolbag decides which tools a session's tools/list shows: its
// list bag. Every client puts tools/list into its agent's context before
// the agent does anything, and agents pick worse from long lists; so a
// session starts with a compact profile (config tools.listProfile, "core"
// by default) and widens or narrows it with the tool_bag tool. Every tool
// stays callable whatever the bag holds (tool_search finds it, tool_call
// or its name calls it), and the agent's own dynamic tools are always
// listed.
//
// Not to be confused with the Igor tool bag (igors.toolBag): which tools
// an Igor process loads. That one is about workers; this one only about
// what a client is shown.
package toolbag

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// Profiles maps a profile's name to its members: tool names, globs
// ("assert_*") and categories ("category:meta").
type Profiles map[string][]string

// All is the profile name that lists every tool.
const All = "all"

// Builtin are the profiles every configuration has; tools.profiles adds to
// them or replaces one of the same name.
var Builtin = Profiles{
	"core":     {"category:meta", "category:orchestration", "hash_text", "json_format", "assert_equals", "data_generate", "http_status_info"},
	"qa":       {"category:meta", "category:orchestration", "assert_*", "test_*", "report_*", "data_*", "performance_regression", "json_validator"},
	"data":     {"category:meta", "data_*", "json_*", "array_operations", "object_diff", "base64_encode", "template_render", "hash_text"},
	"text":     {"category:meta", "string_diff", "regex_test", "template_render", "hash_text", "base64_encode", "json_format"},
	"browser":  {"category:meta", "category:browser", "assert_*"},
	"database": {"category:meta", "category:database", "data_*", "assert_*"},
	"files":    {"category:meta", "category:filesystem", "hash_text", "string_diff", "template_render"},
}

// Merge returns the built-in profiles with extra's added over them.
func Merge(extra Profiles) Profiles {
	out := Profiles{}
	for k, v := range Builtin {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// Names lists the profile names, sorted, with "all".
func (p Profiles) Names() []string {
	names := []string{All}
	for k := range p {
		names = append(names, k)
	}
	sort.Strings(names[1:])
	return names
}

// Resolve returns the names of the tools that members select.
func Resolve(members []string, tools []*tool.Tool) []string {
	var out []string
	for _, t := range tools {
		if selects(members, t) {
			out = append(out, t.Name)
		}
	}
	return out
}

func selects(members []string, t *tool.Tool) bool {
	for _, m := range members {
		if c, ok := strings.CutPrefix(m, "category:"); ok {
			if string(t.Category) == c {
				return true
			}
		} else if ok, _ := path.Match(m, t.Name); ok {
			return true
		}
	}
	return false
}

// Bag is one session's list bag. The zero value lists nothing but the
// dynamic tools; use New.
type Bag struct {
	mu    sync.Mutex
	all   bool
	names map[string]bool
}

// New returns a bag holding profile ("all" for every tool).
func New(profiles Profiles, profile string, tools []*tool.Tool) (*Bag, error) {
	b := &Bag{names: map[string]bool{}}
	if profile == All {
		b.all = true
		return b, nil
	}
	members, ok := profiles[profile]
	if !ok {
		return nil, fmt.Errorf("no tool list profile %q; profiles: %s", profile, strings.Join(profiles.Names(), ", "))
	}
	for _, n := range Resolve(members, tools) {
		b.names[n] = true
	}
	return b, nil
}

// Shows reports whether the bag lists t. isDynamic tools always show.
func (b *Bag) Shows(name string, isDynamic bool) bool {
	if isDynamic {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.all || b.names[name]
}

// Load adds tools to the bag; it returns the names added.
func (b *Bag) Load(names []string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var added []string
	for _, n := range names {
		if !b.all && !b.names[n] {
			b.names[n] = true
			added = append(added, n)
		}
	}
	return added
}

// LoadAll makes the bag list every tool.
func (b *Bag) LoadAll() {
	b.mu.Lock()
	b.all = true
	b.mu.Unlock()
}

// Unload removes tools from the bag; it returns the names removed.
func (b *Bag) Unload(names []string, every []*tool.Tool) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.all {
		b.all = false
		for _, t := range every {
			b.names[t.Name] = true
		}
	}
	var removed []string
	for _, n := range names {
		if b.names[n] {
			delete(b.names, n)
			removed = append(removed, n)
		}
	}
	return removed
}

// Listed returns the names the bag shows among tools.
func (b *Bag) Listed(tools []*tool.Tool, isDynamic func(*tool.Tool) bool) []string {
	var out []string
	for _, t := range tools {
		if b.Shows(t.Name, isDynamic(t)) {
			out = append(out, t.Name)
		}
	}
	slices.Sort(out)
	return out
}

// Tokens estimates what listing tools costs an agent's context: the bytes
// of their tools/list entries (name, description, input schema) over 4.
func Tokens(tools []*tool.Tool) int {
	n := 0
	for _, t := range tools {
		input, _ := t.InputJSON()
		b, _ := json.Marshal(struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Input       json.RawMessage `json:"inputSchema"`
		}{t.Name, t.Description, input})
		n += len(b) + 1
	}
	return n / 4
}

// Session is what a call knows of its session's bag: the bag, and how to
// tell the client its tool list changed.
type Session struct {
	Bag     *Bag
	Changed func()
}

type sessionKey struct{}

// With returns ctx carrying the session's bag.
func With(ctx context.Context, s *Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// From returns the session's bag carried by ctx, or nil.
func From(ctx context.Context) *Session {
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}
