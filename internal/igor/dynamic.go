package igor

import (
	"context"
	"encoding/json"
	"github.com/barrhawk/barrhawk/internal/browser"
	"sort"
	"sync"

	"github.com/barrhawk/barrhawk/internal/dynamic/jsrt"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/wire"
)

// dynamicSet holds the dynamic tools this Igor has loaded, by tool name.
// Replacing the set does not disturb calls already running on old modules.
type dynamicSet struct {
	mu     sync.RWMutex
	byName map[string]*jsrt.Module
	byFile map[string]loadedModule // file → the module loaded from it
}

type loadedModule struct {
	hash string
	mod  *jsrt.Module
	err  string
}

func (s *dynamicSet) get(name string) (*jsrt.Module, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	m, ok := s.byName[name]
	return m, ok
}

func (s *dynamicSet) count() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.byName)
}

// load compiles and evaluates tools (reusing modules whose file and hash
// are unchanged) and reports each one. Unless describeOnly, the loaded set
// replaces the current one. A name that shadows a built-in tool, or that two
// files both define, is refused.
func (w *worker) loadDynamic(tools []wire.DynamicTool, describeOnly bool) []wire.LoadedTool {
	w.dyn.mu.RLock()
	old := w.dyn.byFile
	w.dyn.mu.RUnlock()
	byFile := map[string]loadedModule{}
	byName := map[string]*jsrt.Module{}
	out := make([]wire.LoadedTool, 0, len(tools))
	for _, dt := range tools {
		lm, ok := old[dt.File]
		if !ok || lm.hash != dt.Hash {
			lm = loadedModule{hash: dt.Hash}
			if mod, err := jsrt.Load(dt.File, dt.JS, w.jsOpts); err != nil {
				lm.err = err.Error()
			} else {
				lm.mod = mod
			}
		}
		lt := wire.LoadedTool{File: dt.File, Error: lm.err}
		if lm.mod != nil {
			meta := lm.mod.Meta()
			switch {
			case w.isBuiltin(meta.Name):
				lt.Error = "tool name " + meta.Name + " is taken by a built-in tool; choose another name"
			case byName[meta.Name] != nil:
				lt.Error = "tool name " + meta.Name + " is defined by another file too"
			default:
				lt.Name, lt.Description, lt.Schema, lt.Permissions, lt.Phrases = meta.Name, meta.Description, meta.Schema, meta.Permissions, meta.Phrases
				lt.Timeout = meta.Timeout.Milliseconds()
				byName[meta.Name] = lm.mod
			}
		}
		if lt.Error != "" {
			w.log.Warn("dynamic tool did not load", "file", dt.File, "err", lt.Error)
		}
		byFile[dt.File] = lm
		out = append(out, lt)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
	if !describeOnly {
		w.dyn.mu.Lock()
		w.dyn.byFile, w.dyn.byName = byFile, byName
		w.dyn.mu.Unlock()
	}
	return out
}

func (w *worker) isBuiltin(name string) bool {
	_, ok := w.all.Get(name)
	return ok
}

// dynamicTool wraps a loaded module as a tool the executor can run; one
// with the browser permission is of the browser category, as it drives
// the Igor's browser.
func dynamicTool(name string, mod *jsrt.Module) *tool.Tool {
	cat := tool.CategoryUtility
	if mod.Permissions().Browser {
		cat = tool.CategoryBrowser
	}
	return &tool.Tool{
		Def: tool.Def{Name: name, Description: "dynamic", Group: "Dynamic", Category: cat, Input: schema.Object(), RequiresWorker: true},
		Run: func(ctx context.Context, c *tool.Call) (any, error) {
			if mod.Permissions().Browser {
				ctx = jsrt.WithBrowser(ctx, func(ctx context.Context) (jsrt.Browser, error) {
					return browser.ForScript(ctx, c.Resources)
				})
			}
			out, err := mod.CallIn(ctx, c.Args, c.Context)
			if err != nil {
				return nil, err
			}
			return json.RawMessage(out), nil
		},
	}
}
