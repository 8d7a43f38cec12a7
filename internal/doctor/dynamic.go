package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/dynamic"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/wire"
	"github.com/google/jsonschema-go/jsonschema"
)

// DynamicGroup is the heading dynamic tools are listed under.
const DynamicGroup = "Dynamic tools"

// Event types of dynamic tools.
const (
	EventToolsReloaded = "tool:hot-reloaded"
	EventToolBroken    = "tool:broken"
	EventSnapshotTaken = "snapshot:taken"
	EventRolledBack    = "tools:rolled-back"
)

// protected tools cannot be deleted or replaced by dynamic tools.
var protected = []string{"dynamic_tool_create", "hello_world"}

// loadTimeout bounds loading the dynamic tools in an Igor.
const loadTimeout = 15 * time.Second

// dynamicTools keeps the front's view of the dynamic tools: the files
// compiled here (esbuild: Go, no tool code runs in the front), their
// metadata as an Igor reported it, and the registry entries built from it.
type dynamicTools struct {
	d     *Doctor
	store *dynamic.Store
	snaps *dynamic.Snapshots

	reloadMu sync.Mutex // one reload at a time
	mu       sync.Mutex
	names    []string          // registered dynamic tool names
	broken   map[string]string // file → why it is not loaded
	crashes  []time.Time       // Igor crashes, for auto-recovery
}

func newDynamicTools(d *Doctor) *dynamicTools {
	t := d.cfg.Tools
	return &dynamicTools{
		d:      d,
		store:  &dynamic.Store{Dir: t.DynamicDir},
		snaps:  &dynamic.Snapshots{Dir: t.SnapshotsDir, ToolsDir: t.DynamicDir, Keep: t.SnapshotKeep},
		broken: map[string]string{},
	}
}

// DynamicToolFiles lists the dynamic tools' source files (none when
// dynamic tools are off, or before Start made their directory).
func (d *Doctor) DynamicToolFiles() ([]dynamic.File, error) {
	if d.dyn == nil {
		return nil, nil
	}
	files, err := d.dyn.store.List()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return files, err
}

// DynamicToolSource returns the source of a dynamic tool file ("name.ts").
func (d *Doctor) DynamicToolSource(file string) (string, error) {
	if d.dyn == nil {
		return "", tool.Errorf(tool.CodeNotFound, "dynamic tools are off (tools.enableDynamic)")
	}
	src, _, err := d.dyn.store.Read(file)
	return src, err
}

// Snapshots lists the snapshots of the dynamic tools, newest first.
func (d *Doctor) Snapshots() ([]dynamic.Snapshot, error) {
	if d.dyn == nil {
		return nil, nil
	}
	return d.dyn.snaps.List()
}

// SnapshotMetadata returns a snapshot's metadata.json.
func (d *Doctor) SnapshotMetadata(id string) ([]byte, error) {
	if d.dyn == nil {
		return nil, tool.Errorf(tool.CodeNotFound, "dynamic tools are off (tools.enableDynamic)")
	}
	return d.dyn.snaps.Metadata(id)
}

// DynamicEnabled reports whether dynamic tools are on.
func (d *Doctor) DynamicEnabled() bool { return d.dyn != nil }

// start prepares the directories, takes the initial snapshot and loads the
// tools.
func (x *dynamicTools) start(ctx context.Context) error {
	if err := x.store.Init(); err != nil {
		return fmt.Errorf("dynamic tools directory: %w", err)
	}
	if err := os.MkdirAll(x.d.cfg.Tools.FSRoot, 0o700); err != nil {
		return fmt.Errorf("tools.fsRoot: %w", err)
	}
	if created, err := x.snaps.EnsureInitial(); err != nil {
		return fmt.Errorf("initial snapshot: %w", err)
	} else if created {
		x.d.log.Info("took the initial snapshot of the dynamic tools", "dir", x.snaps.Dir)
		x.d.events.Emit(Event{Type: EventSnapshotTaken, Reason: "initial"})
	}
	if files, _ := x.store.List(); len(files) == 0 {
		return nil // nothing to load: no Igor needed yet
	}
	_, err := x.reload(ctx)
	return err
}

// compileAll compiles every tool file; broken ones are reported, not fatal.
func (x *dynamicTools) compileAll() ([]wire.DynamicTool, map[string]string, error) {
	files, err := x.store.List()
	if err != nil {
		return nil, nil, err
	}
	set := []wire.DynamicTool{}
	broken := map[string]string{}
	for _, f := range files {
		src, _, err := x.store.Read(f.Name + f.Ext)
		if err != nil {
			broken[filepath.Base(f.Path)] = err.Error()
			continue
		}
		c, err := dynamic.Compile(filepath.Base(f.Path), src)
		if err != nil {
			broken[filepath.Base(f.Path)] = err.Error()
			continue
		}
		set = append(set, wire.DynamicTool{File: c.File, JS: c.JS, Hash: c.Hash})
	}
	return set, broken, nil
}

// reload compiles the directory, has the Igors load it, and updates the
// registry. It returns the names of the dynamic tools now loaded.
func (x *dynamicTools) reload(ctx context.Context) ([]string, error) {
	x.reloadMu.Lock()
	defer x.reloadMu.Unlock()
	set, broken, err := x.compileAll()
	if err != nil {
		return nil, err
	}
	loaded, err := x.d.pool.UpdateDynamic(ctx, set, false, loadTimeout)
	if err != nil {
		return nil, err
	}
	var tools []*tool.Tool
	for _, lt := range loaded {
		if lt.Error != "" {
			broken[lt.File] = lt.Error
			continue
		}
		t, err := x.toolFor(lt)
		if err != nil {
			broken[lt.File] = err.Error()
			continue
		}
		tools = append(tools, t)
	}
	return x.apply(tools, broken), nil
}

// toolFor builds the registry entry of a loaded dynamic tool.
func (x *dynamicTools) toolFor(lt wire.LoadedTool) (*tool.Tool, error) {
	if slices.Contains(protected, lt.Name) {
		return nil, fmt.Errorf("tool name %s is protected", lt.Name)
	}
	if t, ok := x.d.reg.Get(lt.Name); ok && t.Group != DynamicGroup {
		return nil, fmt.Errorf("tool name %s is taken by a built-in tool; choose another name", lt.Name)
	}
	in := &jsonschema.Schema{Type: "object"}
	if len(lt.Schema) > 0 {
		if err := json.Unmarshal(lt.Schema, in); err != nil {
			return nil, fmt.Errorf("schema: %v", err)
		}
		if in.Type != "object" {
			return nil, fmt.Errorf("schema must be of type object, not %q", in.Type)
		}
	}
	desc := lt.Description
	if len(lt.Permissions) > 0 {
		desc += " (permissions: " + strings.Join(lt.Permissions, ", ") + ")"
	}
	category := tool.CategoryUtility
	if slices.Contains(lt.Permissions, "browser") {
		category = tool.CategoryBrowser // ctx.browser drives its Igor's browser: it goes where the browser is
	}
	t := &tool.Tool{
		Def: tool.Def{
			Name: lt.Name, Description: desc, Group: DynamicGroup, Category: category, Phrases: lt.Phrases,
			Input: in, RequiresWorker: true, Timeout: time.Duration(lt.Timeout) * time.Millisecond,
		},
		Run: func(context.Context, *tool.Call) (any, error) {
			return nil, tool.Errorf(tool.CodeInternal, "dynamic tools run in Igors")
		},
	}
	for name, p := range in.Properties {
		if p.Description == "" {
			p.Description = name // the registry wants every argument described
		}
	}
	return t, nil
}

// apply swaps the registered dynamic tools for tools and tells listeners.
func (x *dynamicTools) apply(tools []*tool.Tool, broken map[string]string) []string {
	x.mu.Lock()
	old := x.names
	var names []string
	var added []*tool.Tool
	var valid []tool.Tool
	for _, t := range tools {
		if err := t.Validate(); err != nil {
			broken[t.Name] = err.Error()
			continue
		}
		valid = append(valid, *t)
		names = append(names, t.Name)
		added = append(added, t)
	}
	if err := x.d.reg.Swap(old, valid); err != nil {
		x.d.log.Error("registering dynamic tools", "err", err) // validated above: a bug
	}
	var removed []string
	for _, n := range old {
		if !slices.Contains(names, n) {
			removed = append(removed, n)
		}
	}
	for file, why := range broken {
		if x.broken[file] != why {
			x.d.log.Warn("dynamic tool not loaded", "file", file, "err", why)
			x.d.events.Emit(Event{Type: EventToolBroken, Tool: file, Reason: why})
		}
	}
	x.names, x.broken = names, broken
	x.mu.Unlock()
	x.d.events.Emit(Event{Type: EventToolsReloaded, Reason: fmt.Sprintf("%d dynamic tools loaded, %d broken", len(names), len(broken))})
	x.d.toolsChanged(added, removed)
	slices.Sort(names)
	return names
}

// status reports the dynamic tools for worker_status.
func (x *dynamicTools) status() map[string]any {
	x.mu.Lock()
	defer x.mu.Unlock()
	broken := []map[string]string{}
	for file, why := range x.broken {
		broken = append(broken, map[string]string{"file": file, "error": why})
	}
	slices.SortFunc(broken, func(a, b map[string]string) int { return strings.Compare(a["file"], b["file"]) })
	names := slices.Clone(x.names)
	slices.Sort(names)
	return map[string]any{"dir": x.store.Dir, "loaded": names, "broken": broken}
}

// crashed counts an Igor crash; enough of them within the window while
// dynamic tools are loaded roll the tools back to the last snapshot.
func (x *dynamicTools) crashed(ctx context.Context) {
	cfg := x.d.cfg.Tools
	now := time.Now()
	x.mu.Lock()
	x.crashes = append(x.crashes, now)
	x.crashes = slices.DeleteFunc(x.crashes, func(t time.Time) bool { return now.Sub(t) > cfg.RecoveryWindow })
	// Files count even when none loaded: one whose top level kills every
	// Igor that loads it never gets registered.
	trip := len(x.crashes) >= cfg.RecoveryCrashes && (len(x.names) > 0 || len(x.broken) > 0 || x.d.pool.hasDynamic())
	if trip {
		x.crashes = nil
	}
	x.mu.Unlock()
	if !trip {
		return
	}
	snap, _, err := x.snaps.Restore("")
	if err != nil {
		x.d.log.Error("auto-recovery: rollback failed", "err", err)
		return
	}
	x.d.log.Warn("auto-recovery: Igors crashed repeatedly with dynamic tools loaded; rolled back", "crashes", cfg.RecoveryCrashes, "window", cfg.RecoveryWindow, "snapshot", snap.ID)
	x.d.events.Emit(Event{Type: EventRolledBack, Reason: fmt.Sprintf("auto-recovery after %d Igor crashes within %s: rolled back to snapshot %s", cfg.RecoveryCrashes, cfg.RecoveryWindow, snap.ID)})
	if _, err := x.reload(ctx); err != nil {
		x.d.log.Error("auto-recovery: reload after rollback failed", "err", err)
	}
}

// create writes a dynamic tool from dynamic_tool_create's arguments, after
// checking that it compiles and loads; the tool answers the very next call.
func (x *dynamicTools) create(ctx context.Context, in createArgs) (any, error) {
	if !tool.NamePattern.MatchString(in.Name) {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"name\": %q must match %s (lowercase letters, digits, underscores; a letter first)", in.Name, tool.NamePattern)
	}
	if slices.Contains(protected, in.Name) {
		return nil, tool.Errorf(tool.CodeForbidden, "%s is protected and cannot be replaced", in.Name)
	}
	if t, ok := x.d.reg.Get(in.Name); ok && t.Group != DynamicGroup {
		return nil, tool.Errorf(tool.CodeForbidden, "%s is a built-in tool; choose another name", in.Name)
	}
	schemaJSON := in.Schema
	if len(schemaJSON) == 0 || string(schemaJSON) == "null" {
		schemaJSON = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(schemaJSON, &sch); err != nil || sch.Type != "object" {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"schema\": must be a JSON Schema object with \"type\": \"object\"")
	}
	src := dynamic.Method1Source(dynamic.Method1{
		Name: in.Name, Description: in.Description, Schema: schemaJSON, Code: in.Code,
		Permissions: in.Permissions, Phrases: in.Phrases, Timeout: time.Duration(in.Timeout) * time.Millisecond,
	})
	file := in.Name + ".ts"
	c, err := dynamic.Compile(file, src)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "the tool's code is refused: %s%v", codeLine(src, err), err)
	}
	loaded, err := x.d.pool.UpdateDynamic(ctx, []wire.DynamicTool{{File: c.File, JS: c.JS, Hash: c.Hash}}, true, loadTimeout)
	if err != nil {
		return nil, err
	}
	if len(loaded) != 1 || loaded[0].Error != "" {
		why := "no report"
		if len(loaded) == 1 {
			why = loaded[0].Error
		}
		return nil, tool.Errorf(tool.CodeInvalidArgs, "the tool does not load: %s", why)
	}
	path, err := x.store.Write(in.Name, src)
	if err != nil {
		return nil, err
	}
	names, err := x.reload(ctx)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(names, in.Name) {
		x.mu.Lock()
		why := x.broken[file]
		x.mu.Unlock()
		return nil, tool.Errorf(tool.CodeToolError, "%s was written to %s but did not load: %s", in.Name, path, why)
	}
	return map[string]any{"created": in.Name, "path": path, "message": fmt.Sprintf("Tool '%s' created; it is callable now", in.Name)}, nil
}

type createArgs struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Code        string          `json:"code"`
	Permissions []string        `json:"permissions"`
	Phrases     []string        `json:"phrases"`
	Timeout     int64           `json:"timeout"`
}

// delete removes a dynamic tool's file and reloads.
func (x *dynamicTools) delete(ctx context.Context, name string) (any, error) {
	if slices.Contains(protected, name) {
		return nil, tool.Errorf(tool.CodeForbidden, "%s is protected and cannot be deleted", name)
	}
	if t, ok := x.d.reg.Get(name); ok && t.Group != DynamicGroup {
		return nil, tool.Errorf(tool.CodeForbidden, "%s is a built-in tool, not a dynamic one", name)
	}
	file := name
	x.mu.Lock()
	for f := range x.broken {
		if strings.TrimSuffix(f, filepath.Ext(f)) == name {
			file = strings.TrimSuffix(f, filepath.Ext(f))
		}
	}
	x.mu.Unlock()
	if err := x.store.Delete(file); err != nil {
		var te *tool.Error
		if errors.As(err, &te) {
			return nil, te
		}
		return nil, err
	}
	if _, err := x.reload(ctx); err != nil {
		return nil, err
	}
	return map[string]any{"deleted": name, "message": fmt.Sprintf("Tool '%s' deleted successfully", name)}, nil
}

// dynamicManagementTools are the front's tools for dynamic tools and
// snapshots.
func (d *Doctor) dynamicManagementTools() []tool.Tool {
	x := d.dyn
	return []tool.Tool{
		{
			Def: mgmt("dynamic_tool_create", "Create or replace a dynamic tool from a TypeScript handler body (`args`, `ctx` in scope), callable at once; syntax errors and blocked patterns (eval, require...) are refused by line.",
				schema.String("name", "[a-z][a-z0-9_]*, not a built-in").Required().Min(1),
				schema.String("description", "What it does").Required().Min(1),
				schema.Map("schema", "Arguments' JSON Schema, type object").Required(),
				schema.String("code", "E.g. \"return args.a + 1;\"").Required().Min(1),
				schema.Array("permissions", "network: ctx.fetch; filesystem: ctx.fs", &jsonschema.Schema{Type: "string", Enum: []any{"network", "filesystem", "browser", "ai"}}),
				schema.Integer("timeout", "ms per call (default: the server's)").Min(1).Max(600000),
				schema.Array("phrases", "Words people search for it by", &jsonschema.Schema{Type: "string"}),
			).
				WithPhrases("write a custom tool", "add my own tool", "define a tool in typescript", "extend barrhawk", "hot-load a new tool", "tool on the fly", "custom plugin", "new tool from code"),
			Run: tool.Typed(func(ctx context.Context, in createArgs, _ *tool.Call) (any, error) { return x.create(ctx, in) }),
		},
		{
			Def: mgmt("dynamic_tool_delete", "Delete a dynamic tool (its file). dynamic_tool_create and hello_world are protected.",
				schema.String("name", "Tool name").Required().Min(1)).
				WithPhrases("remove a custom tool", "delete a tool I made", "uninstall my tool", "get rid of a plugin", "drop a generated tool"),
			Run: tool.Typed(func(ctx context.Context, in struct {
				Name string `json:"name"`
			}, _ *tool.Call) (any, error) {
				return x.delete(ctx, in.Name)
			}),
		},
		{
			Def: mgmt("tools_reload", "Reload the dynamic tools from their directory now (changes are picked up automatically too). Returns those loaded and failed files, with why.").
				WithPhrases("pick up tool changes", "refresh custom tools", "reload plugins", "rescan tools folder", "hot reload tools", "my tool fails to load", "custom tool broken"),
			Run: func(ctx context.Context, _ *tool.Call) (any, error) {
				loaded, err := x.reload(ctx)
				if err != nil {
					return nil, err
				}
				st := x.status()
				return map[string]any{"success": true, "loaded": loaded, "broken": st["broken"]}, nil
			},
		},
		{
			Def: mgmt("worker_snapshot", "Snapshot the dynamic tools directory; returns the id (name_unixms).",
				schema.String("name", "[A-Za-z0-9][A-Za-z0-9_-]*, at most 64").Required().Min(1)).
				WithPhrases("back up custom tools", "save a checkpoint", "create a restore point", "checkpoint before refactor", "snapshot the dynamic tools", "snapshot before changing tools", "named snapshot", "save plugins state", "checkpoint the custom tools before changing them", "a versioned copy of my custom tools"),
			Run: tool.Typed(func(_ context.Context, in struct {
				Name string `json:"name"`
			}, _ *tool.Call) (any, error) {
				s, err := x.snaps.Create(in.Name)
				if err != nil {
					return nil, asInvalid(err)
				}
				x.d.events.Emit(Event{Type: EventSnapshotTaken, Reason: s.ID})
				return map[string]any{"snapshot": s.ID, "toolCount": s.ToolCount, "message": "Snapshot created: " + s.ID}, nil
			}),
		},
		{
			Def: mgmt("worker_snapshots", "List the dynamic tools' snapshots, newest first: id, tool count, time.").
				WithPhrases("list checkpoints", "which restore points exist", "saved backups of custom tools", "checkpoint history", "available rollback points"),
			Run: func(context.Context, *tool.Call) (any, error) {
				list, err := x.snaps.List()
				if err != nil {
					return nil, err
				}
				out := []map[string]any{}
				for _, s := range list {
					out = append(out, map[string]any{"id": s.ID, "name": s.Name, "toolCount": s.ToolCount, "createdAt": s.CreatedAt.UTC().Format(time.RFC3339Nano), "line": s.String()})
				}
				return map[string]any{"snapshots": out}, nil
			},
		},
		{
			Def: mgmt("worker_rollback", "Restore the dynamic tools from a snapshot and reload them; the state before is kept as a pre-rollback snapshot.",
				schema.String("snapshot", "From worker_snapshots; default latest not pre-rollback")).
				WithPhrases("undo tool changes", "revert custom tools", "restore a checkpoint", "go back to restore point", "roll back broken plugin", "restore tools backup", "put the custom tools back the way they were at a checkpoint"),
			Run: tool.Typed(func(ctx context.Context, in struct {
				Snapshot string `json:"snapshot"`
			}, _ *tool.Call) (any, error) {
				s, pre, err := x.snaps.Restore(in.Snapshot)
				if err != nil {
					return nil, err
				}
				loaded, err := x.reload(ctx)
				if err != nil {
					return nil, err
				}
				d.events.Emit(Event{Type: EventRolledBack, Reason: "worker_rollback to " + s.ID})
				return map[string]any{"snapshot": s.ID, "preRollback": pre.ID, "loaded": loaded, "message": "Rolled back to snapshot: " + s.ID}, nil
			}),
		},
	}
}

// codeLine says which line of dynamic_tool_create's code an error of the
// generated file is on ("code line 2: "), or "" when it is not in the code.
func codeLine(src string, err error) string {
	line := 0
	var be *dynamic.BlockedError
	var ce *dynamic.CompileError
	switch {
	case errors.As(err, &be):
		line = be.Line
	case errors.As(err, &ce):
		line = ce.Line
	}
	if n := line - dynamic.Method1CodeLine(src) + 1; line > 0 && n >= 1 {
		return fmt.Sprintf("code line %d: ", n)
	}
	return ""
}

// asInvalid keeps a *tool.Error and turns any other error into INVALID_ARGS.
func asInvalid(err error) error {
	var te *tool.Error
	if errors.As(err, &te) {
		return te
	}
	return tool.Errorf(tool.CodeInvalidArgs, "%v", err)
}
