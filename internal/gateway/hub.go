// Package gateway hosts other MCP servers ("upstreams") behind the front:
// it starts and supervises them (package supervise, as the Igor pool
// supervises Igors), keeps one client session to each, and joins their
// tools to ours as <server>__<tool>, with the mcp_* tools to register,
// discover, route, aggregate, fail over and load-balance.
//
// The front speaks to an upstream as it speaks to an Igor: over pipes or
// HTTP, reading every message within a bound, with a timeout on every
// call. No upstream code runs in the front, so an upstream that hangs,
// floods, writes garbage or dies costs only the calls made to it.
package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/wire"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Event types the gateway emits.
const (
	EventUpstreamStarted = "upstream:started"
	EventUpstreamStopped = "upstream:stopped"
	EventUpstreamCrashed = "upstream:crashed"
	EventUpstreamFailed  = "upstream:failed" // a start failed
)

// Options configure a Hub.
type Options struct {
	Config config.Gateway
	// Results bound what one call returns; the gateway reads no message
	// from an upstream longer than Results.Hard and 1 MiB.
	Results tool.ResultLimits
	Log     *slog.Logger
	// Emit reports an event (one of the Event constants) about server.
	Emit func(typ, server, reason string)
	// OnTools is called when upstream tools come or go, to swap them into
	// the front's registry.
	OnTools func(remove []string, add []tool.Tool)
}

// Hub is the set of upstreams.
type Hub struct {
	cfg     config.Gateway
	results tool.ResultLimits
	log     *slog.Logger
	emitFn  func(typ, server, reason string)
	onTools func(remove []string, add []tool.Tool)

	mu     sync.Mutex
	ups    map[string]*Upstream
	names  map[string][]string // server → its tools' names in the registry
	routes map[string]route    // registry name → where it goes
	cached map[string][]*mcp.Tool
	closed bool
	rr     int

	saveMu sync.Mutex
}

// route is where a registry name goes.
type route struct {
	server, tool string
}

// New builds the hub: the servers of gateway.servers and those registered
// earlier (gateway.stateFile), with the tools they offered last time, so
// that tool_search finds them before they start. Nothing starts until
// Start.
func New(opts Options) *Hub {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	h := &Hub{cfg: opts.Config, results: opts.Results, log: opts.Log.With("part", "gateway"), emitFn: opts.Emit, onTools: opts.OnTools,
		ups: map[string]*Upstream{}, names: map[string][]string{}, routes: map[string]route{}, cached: map[string][]*mcp.Tool{}}
	st, err := h.load()
	if err != nil {
		h.log.Error("reading the registered upstreams; starting without them", "file", h.cfg.StateFile, "err", err)
	}
	for _, name := range slices.Sorted(maps.Keys(opts.Config.Servers)) {
		h.ups[name] = newUpstream(h, FromConfig(name, opts.Config.Servers[name]))
	}
	for _, s := range st.Servers {
		if _, inConfig := h.ups[s.Name]; inConfig {
			h.log.Warn("a registered upstream has the name of one in gateway.servers; the configured one wins", "name", s.Name)
			continue
		}
		h.ups[s.Name] = newUpstream(h, s)
	}
	for name, tools := range st.Tools {
		if _, ok := h.ups[name]; ok {
			h.cached[name] = tools
		}
	}
	return h
}

// Start publishes the tools known from last time and starts the
// upstreams marked autoStart, and those whose tools are not known yet (to
// learn them; they stop again when idle).
func (h *Hub) Start() {
	h.mu.Lock()
	ups := slices.Collect(maps.Values(h.ups))
	h.mu.Unlock()
	for _, u := range ups {
		tools := h.ToolsOf(u.Name())
		if tools != nil {
			h.toolsChanged(u, tools)
		}
		if u.spec.AutoStart || tools == nil {
			u.ensure()
		}
	}
}

// Serve pings the running upstreams every gateway.healthInterval and
// stops idle ones, until ctx ends; then it stops them all.
func (h *Hub) Serve(ctx context.Context) {
	t := time.NewTicker(h.cfg.HealthInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			h.Close()
			return
		case now := <-t.C:
			for _, u := range h.List() {
				if u.idle(now) {
					go u.stop()
					continue
				}
				go u.ping(min(h.cfg.HealthInterval, 10*time.Second))
			}
		}
	}
}

// Close stops every upstream and waits until they have exited.
func (h *Hub) Close() {
	h.mu.Lock()
	h.closed = true
	ups := slices.Collect(maps.Values(h.ups))
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, u := range ups {
		wg.Go(u.stop)
	}
	wg.Wait()
}

func (h *Hub) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

func (h *Hub) emit(typ, server, reason string) {
	if h.emitFn != nil {
		h.emitFn(typ, server, reason)
	}
}

// lineLimit is the longest message read from an upstream: as from an
// Igor (wire.MaxLine when no hard result bound is set).
func (h *Hub) lineLimit() int { return h.results.MessageLimit(wire.MaxLine) }

// Get returns the upstream called name.
func (h *Hub) Get(name string) (*Upstream, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	u, ok := h.ups[name]
	return u, ok
}

// List returns the upstreams by name.
func (h *Hub) List() []*Upstream {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*Upstream, 0, len(h.ups))
	for _, name := range slices.Sorted(maps.Keys(h.ups)) {
		out = append(out, h.ups[name])
	}
	return out
}

// Register adds an upstream, starts it and waits until it is ready (its
// tools known), within gateway.startTimeout. One that does not start is
// not kept: the error says why. replace lets it take the place of a
// registered one of the same name.
func (h *Hub) Register(ctx context.Context, spec Spec, replace bool) (*Upstream, error) {
	spec.Type = config.TransportType(spec.Type, spec.Command, spec.URL)
	spec.Origin = OriginRegistered
	if err := spec.Check(); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "%v", err)
	}
	h.mu.Lock()
	if old, ok := h.ups[spec.Name]; ok {
		if old.spec.Origin == OriginConfig {
			h.mu.Unlock()
			return nil, tool.Errorf(tool.CodeInvalidArgs, "upstream %s is configured in gateway.servers; change it there, or register this one under another name", spec.Name)
		}
		if !replace {
			h.mu.Unlock()
			return nil, tool.Errorf(tool.CodeInvalidArgs, "upstream %s is already registered (%s); pass replace: true to replace it, or choose another name", spec.Name, old.spec.describe())
		}
	}
	h.mu.Unlock()
	if err := h.Unregister(spec.Name); err != nil && !isNotFound(err) {
		return nil, err
	}
	u := newUpstream(h, spec)
	h.mu.Lock()
	h.ups[spec.Name] = u
	h.mu.Unlock()
	if !spec.Disabled {
		ctx, cancel := context.WithTimeout(ctx, h.cfg.StartTimeout+time.Second)
		defer cancel()
		if _, _, _, err := u.session(ctx); err != nil {
			h.drop(u)
			u.stop()
			return nil, err
		}
	}
	if err := h.save(); err != nil {
		return u, tool.Errorf(tool.CodeInternal, "upstream %s is registered, but keeping it for the next start failed: %v", spec.Name, err)
	}
	return u, nil
}

func isNotFound(err error) bool {
	var te *tool.Error
	return errors.As(err, &te) && te.Code == tool.CodeNotFound
}

// Unregister stops an upstream registered with Register, kills its
// process tree, and removes it and its tools.
func (h *Hub) Unregister(name string) error {
	h.mu.Lock()
	u, ok := h.ups[name]
	h.mu.Unlock()
	if !ok {
		return tool.Errorf(tool.CodeNotFound, "no upstream %q; mcp_list lists them", name)
	}
	if u.spec.Origin == OriginConfig {
		return tool.Errorf(tool.CodeForbidden, "upstream %s is configured in gateway.servers; remove it there (or set disabled: true)", name)
	}
	h.drop(u)
	u.stop()
	return h.save()
}

// drop takes an upstream out of the hub and its tools out of the registry.
func (h *Hub) drop(u *Upstream) {
	u.mu.Lock()
	u.removed = true
	u.mu.Unlock()
	h.mu.Lock()
	if h.ups[u.Name()] == u {
		delete(h.ups, u.Name())
	}
	old := h.names[u.Name()]
	delete(h.names, u.Name())
	delete(h.cached, u.Name())
	for _, n := range old {
		delete(h.routes, n)
	}
	h.mu.Unlock()
	if len(old) > 0 && h.onTools != nil {
		h.onTools(old, nil)
	}
}

// toolsChanged puts an upstream's tools into the registry in place of
// those it had, and keeps them for the next start.
func (h *Hub) toolsChanged(u *Upstream, tools []*mcp.Tool) {
	add := make([]tool.Tool, 0, len(tools))
	names := make([]string, 0, len(tools))
	routes := map[string]route{}
	for _, t := range tools {
		def, err := h.toolDef(u, t)
		if err != nil {
			u.log.Warn("an upstream tool is left out", "tool", t.Name, "err", err)
			continue
		}
		upstreamName := t.Name
		add = append(add, tool.Tool{Def: def, Run: func(ctx context.Context, call *tool.Call) (any, error) {
			return u.Call(ctx, upstreamName, call.Args)
		}})
		names = append(names, def.Name)
		routes[def.Name] = route{server: u.Name(), tool: t.Name}
	}
	h.mu.Lock()
	if h.ups[u.Name()] != u {
		h.mu.Unlock()
		return
	}
	old := h.names[u.Name()]
	for _, n := range old {
		delete(h.routes, n)
	}
	maps.Copy(h.routes, routes)
	h.names[u.Name()] = names
	changed := !sameTools(h.cached[u.Name()], tools)
	h.cached[u.Name()] = tools
	h.mu.Unlock()
	if h.onTools != nil {
		h.onTools(old, add)
	}
	if changed {
		if err := h.save(); err != nil {
			h.log.Warn("keeping the upstream's tools for the next start", "err", err)
		}
	}
}

func sameTools(a, b []*mcp.Tool) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// Route says which upstream and tool a registry name goes to.
func (h *Hub) Route(name string) (server, upstreamTool string, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r, ok := h.routes[name]
	return r.server, r.tool, ok
}

// ToolsOf returns the tools an upstream offers (as last listed, in this
// run or the one before).
func (h *Hub) ToolsOf(server string) []*mcp.Tool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cached[server]
}

// toolDef is the registry definition of an upstream's tool: named
// <server>__<tool>, described as the upstream describes it, its input
// schema passed through as given (and validated as far as our validator
// reads it).
func (h *Hub) toolDef(u *Upstream, t *mcp.Tool) (tool.Def, error) {
	raw := []byte(`{"type":"object"}`)
	if t.InputSchema != nil {
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return tool.Def{}, fmt.Errorf("its input schema: %w", err)
		}
		raw = b
	}
	var in jsonschema.Schema
	if err := json.Unmarshal(raw, &in); err != nil || in.Type != "object" {
		in = jsonschema.Schema{Type: "object"} // listed as given; validated by the upstream alone
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	timeout := u.callTimeout()
	return tool.Def{
		Name: ToolName(u.Name(), t.Name), Description: fmt.Sprintf("[%s] %s", u.Name(), desc),
		Group: HostedGroup + u.Name(), Category: tool.CategoryGateway, Input: &in, RawInput: raw,
		// The call's own bound is the upstream's timeout (Upstream.Call);
		// this one also leaves room for starting it first.
		Timeout: timeout + h.cfg.StartTimeout,
	}, nil
}

// HostedGroup begins the group of a hosted server's tools, which its
// name ends.
const HostedGroup = "Gateway: "

// IsHosted reports whether t is a hosted server's tool (not one of the
// gateway's own mcp_* tools).
func IsHosted(t *tool.Tool) bool { return strings.HasPrefix(t.Group, HostedGroup) }

// notName matches what a gateway tool name may not hold.
var notName = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// Separator joins a server's name and its tool's in the registry name.
const Separator = "__"

// ToolName is the registry name of server's tool: server__tool. A tool
// name with characters clients refuse (outside [a-zA-Z0-9_-]), or too
// long for 64 characters, has them replaced by '_' or is cut, and gets a
// short hash of its real name so that two tools never share a name; the
// same tool always gets the same name.
func ToolName(server, name string) string {
	clean := notName.ReplaceAllString(name, "_")
	full := server + Separator + clean
	if clean == name && len(full) <= 64 && clean != "" {
		return full
	}
	f := fnv.New32a()
	f.Write([]byte(name))
	suffix := fmt.Sprintf("_%08x", f.Sum32())
	room := 64 - len(server) - len(Separator) - len(suffix)
	if len(clean) > room {
		clean = clean[:room]
	}
	return server + Separator + clean + suffix
}

// state is what gateway.stateFile holds.
type state struct {
	Servers []Spec                 `json:"servers"`
	Tools   map[string][]*mcp.Tool `json:"tools,omitempty"`
}

func (h *Hub) load() (state, error) {
	var st state
	b, err := os.ReadFile(h.cfg.StateFile)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return state{}, fmt.Errorf("%s is not the gateway's state (JSON): %w", h.cfg.StateFile, err)
	}
	return st, nil
}

// save writes the registered upstreams, and every upstream's tools, to
// gateway.stateFile (mode 0600: their env and headers may hold secrets).
func (h *Hub) save() error {
	h.saveMu.Lock()
	defer h.saveMu.Unlock()
	h.mu.Lock()
	st := state{Tools: maps.Clone(h.cached)}
	for _, name := range slices.Sorted(maps.Keys(h.ups)) {
		if s := h.ups[name].spec; s.Origin == OriginRegistered {
			st.Servers = append(st.Servers, s)
		}
	}
	h.mu.Unlock()
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(h.cfg.StateFile), 0o700); err != nil {
		return err
	}
	tmp := h.cfg.StateFile + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, h.cfg.StateFile)
}

// AwaitTools waits, within ctx, for the tools of the server a registry
// name is prefixed with, when that server is hosted but its tools are
// not known yet (its first start is under way): a call made right after
// the front starts finds them. It reports whether it waited.
func (h *Hub) AwaitTools(ctx context.Context, name string) bool {
	server, _, ok := strings.Cut(name, Separator)
	if !ok {
		return false
	}
	u, ok := h.Get(server)
	if !ok || h.ToolsOf(server) != nil {
		return false
	}
	u.mu.Lock()
	ch := u.starting
	u.mu.Unlock()
	if ch == nil {
		u.ensure()
		u.mu.Lock()
		ch = u.starting
		u.mu.Unlock()
	}
	if ch == nil {
		return false
	}
	select {
	case <-ch:
	case <-ctx.Done():
	}
	return true
}

// Explain says why a registry name prefixed with a hosted server's name
// is not a tool (yet), or "" when it is not such a name.
func (h *Hub) Explain(name string) string {
	server, _, ok := strings.Cut(name, Separator)
	if !ok {
		return ""
	}
	u, ok := h.Get(server)
	if !ok {
		return ""
	}
	hl := u.Health()
	switch {
	case hl.LastError != "" && hl.State != StateReady:
		return fmt.Sprintf("upstream %s is %s: %s", server, hl.State, hl.LastError)
	case hl.State == StateDisabled:
		return fmt.Sprintf("upstream %s is disabled", server)
	}
	return fmt.Sprintf("upstream %s (%s) offers no such tool; mcp_catalog with category %s lists its tools", server, hl.State, server)
}
