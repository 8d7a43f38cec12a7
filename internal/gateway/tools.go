package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/mcpconfig"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Group is the docs heading of the mcp_* tools.
const Group = "MCP gateway"

// Searcher ranks the registry's gateway tools for a request in words and
// returns their registry names, best first (tool_search's ranking).
type Searcher func(query string, limit int) []string

func def(name, desc string, timeout time.Duration, props ...schema.Prop) tool.Def {
	return tool.Def{Name: name, Description: desc, Group: Group, Category: tool.CategoryGateway, Input: schema.Object(props...), Timeout: timeout}
}

// Tools are the mcp_* tools, answered by the front.
func (h *Hub) Tools(search Searcher) []tool.Tool {
	callTimeout := h.cfg.StartTimeout + 2*h.cfg.CallTimeout
	toolArg := schema.String("tool", "The tool: its name on the upstream (echo) or in BarrHawk (everything__echo)").Required().Min(1)
	argsArg := schema.Map("args", "The tool's arguments").Required()
	return []tool.Tool{
		{
			Def: def("mcp_register", "Host another MCP server behind BarrHawk: a command run over stdio (command, args, env, cwd) or a streamable HTTP endpoint (url, headers). It is started, initialized and its tools listed before this answers; they join ours as <name>__<tool> (tool_search finds them; tool_bag load with server: <name> lists them). Kept across restarts. Env and header values are never shown.", h.cfg.StartTimeout+10*time.Second,
				schema.String("name", "Its name: 1 to 24 letters, digits, '-' or '_' (no \"__\"); its tools are named <name>__<tool>").Required(),
				schema.String("command", "The program of a stdio server, such as npx"),
				schema.Array("args", "Its arguments, such as [-y, @modelcontextprotocol/server-everything]", schema.StringItems()),
				schema.Map("env", "Environment variables it gets besides HOME, PATH, USER, LOGNAME, SHELL, TERM, LANG and TMPDIR (values may be secrets: they are masked everywhere)"),
				schema.String("cwd", "Its working directory"),
				schema.String("url", "The MCP endpoint of a streamable HTTP server, such as http://127.0.0.1:8080/mcp"),
				schema.Map("headers", "HTTP headers sent with every request, such as Authorization (masked everywhere)"),
				schema.String("type", "stdio or http; by default stdio with a command, http with only a url").EnumStrings("stdio", "http"),
				schema.Map("metadata", "Free-form notes kept with it (tags, a description)"),
				schema.Boolean("autoStart", "Start it with BarrHawk and keep it running; otherwise it starts on its first call and stops when idle (gateway.idleTimeout)"),
				schema.Integer("timeoutMs", "Bound of each call to it, in ms (default gateway.callTimeout)").Min(1),
				schema.Boolean("replace", "Replace a registered server of the same name")).
				WithPhrases("add an mcp server", "connect another mcp server", "plug in mcp server", "host an npx server", "proxy a remote mcp", "install mcp server", "mount upstream server"),
			Run: tool.Typed(func(ctx context.Context, in struct {
				Spec
				TimeoutMs int64 `json:"timeoutMs"`
				Replace   bool  `json:"replace"`
			}, _ *tool.Call) (any, error) {
				spec := in.Spec
				spec.Timeout = time.Duration(in.TimeoutMs) * time.Millisecond
				u, err := h.Register(ctx, spec, in.Replace)
				if err != nil {
					return nil, err
				}
				return map[string]any{"registered": u.spec.Public(), "health": u.Health(), "tools": h.toolNames(u.Name()),
					"message": fmt.Sprintf("%s is registered with %d tools, named %s%s<tool>", u.Name(), len(h.toolNames(u.Name())), u.Name(), Separator)}, nil
			}),
		},
		{
			Def: def("mcp_unregister", "Stop a server registered with mcp_register (its whole process tree) and remove it and its tools. Servers of gateway.servers are changed in the config file.", h.cfg.StopGrace*3+5*time.Second,
				schema.String("id", "Its name, as mcp_list shows").Required()).
				WithPhrases("remove mcp server", "disconnect mcp server", "stop hosted server", "unplug upstream", "uninstall mcp server", "detach a server and drop its tools", "shut down a hosted server and take its tools out"),
			Run: tool.Typed(func(_ context.Context, in struct {
				ID string `json:"id"`
			}, _ *tool.Call) (any, error) {
				if err := h.Unregister(in.ID); err != nil {
					return nil, err
				}
				return map[string]any{"unregistered": in.ID}, nil
			}),
		},
		{
			Def: def("mcp_list", "The hosted MCP servers: how each is reached (env and header values masked), its state (ready, stopped, starting, restarting, disabled), pid, restarts and tool count.", 10*time.Second).
				WithPhrases("which mcp servers are hosted", "which servers are running", "list upstream servers", "show connected mcp servers", "registered upstreams", "mcp servers and their state", "servers behind the gateway", "how each server is reached", "command or url of upstreams"),
			Run: func(context.Context, *tool.Call) (any, error) {
				var out []map[string]any
				for _, u := range h.List() {
					m := u.spec.Public()
					hl := u.Health()
					m["state"], m["tools"], m["restarts"] = hl.State, hl.Tools, hl.Restarts
					if hl.PID != 0 {
						m["pid"] = hl.PID
					}
					if hl.LastError != "" {
						m["lastError"] = hl.LastError
					}
					out = append(out, m)
				}
				return map[string]any{"servers": nonNil(out), "count": len(out)}, nil
			},
		},
		{
			Def: def("mcp_health", "Health of the hosted MCP servers (or the one named by id): state, pid, uptime, restarts, ping latency, last call's duration, calls and failures, last error and when it may retry.", 15*time.Second,
				schema.String("id", "A server's name; omit for all")).
				WithPhrases("is the mcp server up", "ping mcp servers", "upstream latency", "mcp server down", "upstream errors", "why is upstream failing", "are the connected outside servers healthy", "calls to the servers failing"),
			Run: tool.Typed(func(_ context.Context, in struct {
				ID string `json:"id"`
			}, _ *tool.Call) (any, error) {
				if in.ID != "" {
					u, err := h.upstream(in.ID)
					if err != nil {
						return nil, err
					}
					return u.Health(), nil
				}
				var out []Health
				for _, u := range h.List() {
					out = append(out, u.Health())
				}
				return map[string]any{"servers": nonNil(out)}, nil
			}),
		},
		{
			Def: def("mcp_catalog", "The tools of every hosted MCP server: BarrHawk's name for each (call it directly or with tool_call), its server, its name there and its description. search narrows by words; category (a server's name) by server.", 10*time.Second,
				schema.String("category", "Only this server's tools"),
				schema.String("search", "Words describing what you want done")).
				WithPhrases("tools of other mcp servers", "browse upstream tools", "what can hosted servers do", "list hosted tools", "tools the upstreams expose", "search third-party mcp tools"),
			Run: tool.Typed(func(_ context.Context, in struct {
				Category string `json:"category"`
				Search   string `json:"search"`
			}, _ *tool.Call) (any, error) {
				if in.Category != "" {
					if _, err := h.upstream(in.Category); err != nil {
						return nil, err
					}
				}
				entries := h.catalog(in.Category)
				if in.Search != "" && search != nil {
					rank := map[string]int{}
					for i, n := range search(in.Search, 50) {
						rank[n] = i + 1
					}
					entries = slices.DeleteFunc(entries, func(e catalogEntry) bool { return rank[e.Name] == 0 })
					slices.SortFunc(entries, func(a, b catalogEntry) int { return rank[a.Name] - rank[b.Name] })
				}
				return map[string]any{"tools": nonNil(entries), "count": len(entries)}, nil
			}),
		},
		{
			Def: def("mcp_route", "Which hosted MCP server should take a request: give the tool (its name there or here) or the intent in words, and optionally a preferred server. Answers the server and the name to call, with the reason and the other candidates' state. Calls nothing.", 10*time.Second,
				schema.String("intent", "What you want done, in words"),
				schema.String("tool", "A tool name, on the upstream or in BarrHawk"),
				schema.String("preferredMcp", "A server to use when it offers the tool and is healthy")).
				WithPhrases("which server handles this", "pick an upstream", "route a request", "choose server for a tool", "where to send a call", "dry run routing"),
			Run: tool.Typed(func(_ context.Context, in struct {
				Intent    string `json:"intent"`
				Tool      string `json:"tool"`
				Preferred string `json:"preferredMcp"`
			}, _ *tool.Call) (any, error) {
				return h.route(in.Intent, in.Tool, in.Preferred, search)
			}),
		},
		{
			Def: def("mcp_aggregate", "Call one tool on several hosted MCP servers at once and return their results side by side: every server offering it, or those named in mcpIds. mode all (default) waits for every answer; first returns the first success and cancels the rest.", callTimeout,
				toolArg, argsArg,
				schema.Array("mcpIds", "The servers to call (default: every server offering the tool)", schema.StringItems()),
				schema.String("mode", "all or first").EnumStrings("all", "first").Default("all")).
				WithPhrases("ask every server", "fan out to every upstream", "compare servers side by side", "broadcast a call", "race servers for first answer", "same call on many servers", "answers next to each other"),
			Run: tool.Typed(func(ctx context.Context, in struct {
				Tool string          `json:"tool"`
				Args json.RawMessage `json:"args"`
				IDs  []string        `json:"mcpIds"`
				Mode string          `json:"mode"`
			}, _ *tool.Call) (any, error) {
				return h.aggregate(ctx, in.Tool, in.Args, in.IDs, in.Mode == "first")
			}),
		},
		{
			Def: def("mcp_failover", "Call a tool on the first healthy hosted MCP server offering it, and on the next when that one dies, times out or cannot start (up to maxRetries more). A tool that answers an error of its own is not retried. Answers the result, the server that gave it and every attempt.", callTimeout*2,
				toolArg, argsArg,
				schema.Integer("maxRetries", "How many other servers to try after the first").Default(2).Min(0).Max(16)).
				WithPhrases("retry on another server", "fallback server", "high availability call", "survive upstream crash", "backup upstream", "resilient mcp call"),
			Run: tool.Typed(func(ctx context.Context, in struct {
				Tool       string          `json:"tool"`
				Args       json.RawMessage `json:"args"`
				MaxRetries *int            `json:"maxRetries"`
			}, _ *tool.Call) (any, error) {
				retries := 2
				if in.MaxRetries != nil {
					retries = *in.MaxRetries
				}
				return h.failover(ctx, in.Tool, in.Args, retries)
			}),
		},
		{
			Def: def("mcp_loadbalance", "Call a tool on one of the hosted MCP servers offering it, spreading calls: round-robin (default) or least-busy (fewest calls in flight, then lowest ping). Answers the result and the server chosen.", callTimeout,
				toolArg, argsArg,
				schema.String("strategy", "round-robin or least-busy").EnumStrings("round-robin", "least-busy").Default("round-robin")).
				WithPhrases("spread load across servers", "round robin calls", "least busy server", "balance upstream calls", "distribute across replicas"),
			Run: tool.Typed(func(ctx context.Context, in struct {
				Tool     string          `json:"tool"`
				Args     json.RawMessage `json:"args"`
				Strategy string          `json:"strategy"`
			}, _ *tool.Call) (any, error) {
				return h.loadbalance(ctx, in.Tool, in.Args, in.Strategy == "least-busy")
			}),
		},
		{
			Def: def("mcp_discover", "Find the MCP servers configured for other clients: Claude Code (.mcp.json, ~/.claude.json), Cursor (.cursor/mcp.json), VS Code (.vscode/mcp.json), Gemini CLI (.gemini/settings.json), in the working directory and its parents and in your home; or in searchPaths / configFile. Lists them (env and header values masked) and says which are hosted already; register: true hosts those not yet hosted (or the ones named in names).", h.cfg.StartTimeout*2+10*time.Second,
				schema.Array("searchPaths", "Files or directories to read instead of the usual places", schema.StringItems()),
				schema.String("configFile", "One config file to read"),
				schema.Boolean("register", "Host the servers found (those not hosted yet)"),
				schema.Array("names", "With register: only these", schema.StringItems())).
				WithPhrases("import mcp servers from claude", "find my mcp config", "reuse cursor mcp servers", ".mcp.json", "vscode mcp.json", "scan for mcp configs", "mcp config files in project", "auto-detect mcp servers"),
			Run: tool.Typed(func(ctx context.Context, in struct {
				SearchPaths []string `json:"searchPaths"`
				ConfigFile  string   `json:"configFile"`
				Register    bool     `json:"register"`
				Names       []string `json:"names"`
			}, _ *tool.Call) (any, error) {
				return h.discover(ctx, in.SearchPaths, in.ConfigFile, in.Register, in.Names)
			}),
		},
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (h *Hub) upstream(name string) (*Upstream, error) {
	if u, ok := h.Get(name); ok {
		return u, nil
	}
	var names []string
	for _, u := range h.List() {
		names = append(names, u.Name())
	}
	if len(names) == 0 {
		return nil, tool.Errorf(tool.CodeNotFound, "no upstream %q: none is hosted; add one with mcp_register, gateway.servers or mcp_discover", name)
	}
	return nil, tool.Errorf(tool.CodeNotFound, "no upstream %q; hosted: %s", name, strings.Join(names, ", "))
}

// toolNames are the registry names of a server's tools.
func (h *Hub) toolNames(server string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.names[server])
}

type catalogEntry struct {
	Name        string `json:"name"`
	Server      string `json:"server"`
	Tool        string `json:"tool"`
	Description string `json:"description,omitempty"`
}

func (h *Hub) catalog(server string) []catalogEntry {
	var out []catalogEntry
	for _, u := range h.List() {
		if server != "" && u.Name() != server {
			continue
		}
		for _, t := range h.ToolsOf(u.Name()) {
			out = append(out, catalogEntry{Name: ToolName(u.Name(), t.Name), Server: u.Name(), Tool: t.Name, Description: tool.CutText(t.Description, 300)})
		}
	}
	return out
}

// offering returns the upstream tool name meant by name (its own, or a
// registry name) and the upstreams offering a tool of that name, healthy
// ones first.
func (h *Hub) offering(name string) (string, []*Upstream, error) {
	upstreamTool := name
	if _, t, ok := h.Route(name); ok {
		upstreamTool = t
	}
	var out []*Upstream
	for _, u := range h.List() {
		if slices.ContainsFunc(h.ToolsOf(u.Name()), func(t *mcp.Tool) bool { return t.Name == upstreamTool }) {
			out = append(out, u)
		}
	}
	if len(out) == 0 {
		return "", nil, tool.Errorf(tool.CodeNotFound, "no hosted MCP server offers a tool %q; mcp_catalog lists their tools", name)
	}
	slices.SortStableFunc(out, func(a, b *Upstream) int { return boolRank(b.healthy()) - boolRank(a.healthy()) })
	return upstreamTool, out, nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (h *Hub) route(intent, name, preferred string, search Searcher) (any, error) {
	if name == "" && intent == "" {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "give tool (a tool name) or intent (what you want done, in words)")
	}
	if name == "" {
		var hits []string
		if search != nil {
			hits = search(intent, 5)
		}
		if len(hits) == 0 {
			return nil, tool.Errorf(tool.CodeNotFound, "no hosted MCP server's tool matches %q; mcp_catalog lists them", intent)
		}
		name = hits[0]
	}
	upstreamTool, ups, err := h.offering(name)
	if err != nil {
		return nil, err
	}
	choice, reason := ups[0], "the healthiest server offering it"
	for _, u := range ups {
		if u.Name() == preferred && u.healthy() {
			choice, reason = u, "the preferred server, healthy"
			break
		}
	}
	if reason != "the preferred server, healthy" {
		best := choice
		for _, u := range ups {
			if u.healthy() && (u.busy() < best.busy() || u.busy() == best.busy() && u.latency.Load() < best.latency.Load() && u.latency.Load() > 0) {
				best = u
			}
		}
		if best != choice {
			choice, reason = best, "the least busy healthy server offering it"
		}
		if preferred != "" {
			reason += fmt.Sprintf(" (the preferred %s does not offer it or is not healthy)", preferred)
		}
	}
	var cands []Health
	for _, u := range ups {
		cands = append(cands, u.Health())
	}
	return map[string]any{"server": choice.Name(), "call": ToolName(choice.Name(), upstreamTool), "tool": upstreamTool, "reason": reason, "candidates": cands}, nil
}

// attempt is one call of aggregate, failover or loadbalance.
type attempt struct {
	Server     string          `json:"server"`
	OK         bool            `json:"ok"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      string          `json:"error,omitempty"`
	DurationMs float64         `json:"durationMs"`
}

// callOn calls the tool on one upstream and encodes its answer within the
// result bounds.
func (h *Hub) callOn(ctx context.Context, u *Upstream, name string, args json.RawMessage) (attempt, *tool.Error) {
	began := time.Now()
	v, err := u.Call(ctx, name, args)
	a := attempt{Server: u.Name(), DurationMs: float64(time.Since(began).Microseconds()) / 1000}
	if err == nil {
		var raw json.RawMessage
		raw, err = h.results.Encode(v)
		if err == nil {
			if c, ok := tool.AsContent(raw); ok {
				raw = contentJSON(c)
			}
			a.OK, a.Result = true, raw
			return a, nil
		}
	}
	te := tool.AsError(err)
	a.Error = te.Text()
	return a, te
}

// contentJSON is a content result inside a JSON answer: its text, or the
// parts when there is more than text.
func contentJSON(c *tool.Content) json.RawMessage {
	var texts []string
	for _, p := range c.Parts {
		if p.Type != "text" {
			b, _ := json.Marshal(c.Parts)
			return b
		}
		texts = append(texts, p.Text)
	}
	b, _ := json.Marshal(strings.Join(texts, "\n"))
	return b
}

func (h *Hub) aggregate(ctx context.Context, name string, args json.RawMessage, ids []string, first bool) (any, error) {
	upstreamTool, ups, err := h.offering(name)
	if err != nil {
		return nil, err
	}
	if len(ids) > 0 {
		var chosen []*Upstream
		for _, id := range ids {
			u, err := h.upstream(id)
			if err != nil {
				return nil, err
			}
			if !slices.Contains(ups, u) {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "mcpIds: %s offers no tool %q", id, upstreamTool)
			}
			chosen = append(chosen, u)
		}
		ups = chosen
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]attempt, len(ups))
	var wg sync.WaitGroup
	var once sync.Once
	winner := -1
	for i, u := range ups {
		wg.Go(func() {
			a, terr := h.callOn(ctx, u, upstreamTool, args)
			results[i] = a
			if first && terr == nil {
				once.Do(func() { winner = i; cancel() })
			}
		})
	}
	wg.Wait()
	ok := 0
	for _, r := range results {
		if r.OK {
			ok++
		}
	}
	out := map[string]any{"tool": upstreamTool, "results": results, "succeeded": ok, "failed": len(results) - ok}
	if first {
		if winner < 0 {
			return nil, tool.Errorf(tool.CodeUpstreamError, "no server answered %s: %s", upstreamTool, summarize(results))
		}
		out["first"] = results[winner]
	}
	return out, nil
}

func summarize(as []attempt) string {
	var s []string
	for _, a := range as {
		s = append(s, a.Server+": "+a.Error)
	}
	return strings.Join(s, "; ")
}

// failsOver reports whether an error is the server's fault, so that the
// next replica may do better: it died, hung, could not start or answered
// a protocol error.
func failsOver(e *tool.Error) bool {
	switch e.Code {
	case tool.CodeWorkerDied, tool.CodeTimeout, tool.CodeUpstreamError:
		return true
	}
	return false
}

func (h *Hub) failover(ctx context.Context, name string, args json.RawMessage, retries int) (any, error) {
	upstreamTool, ups, err := h.offering(name)
	if err != nil {
		return nil, err
	}
	var tried []attempt
	for i, u := range ups {
		if i > retries {
			break
		}
		a, terr := h.callOn(ctx, u, upstreamTool, args)
		tried = append(tried, a)
		if terr == nil {
			return map[string]any{"server": u.Name(), "result": a.Result, "attempts": tried}, nil
		}
		if !failsOver(terr) || ctx.Err() != nil {
			return nil, &tool.Error{Code: terr.Code, Message: terr.Message + fmt.Sprintf(" (on %s; not failed over: the tool itself answered)", u.Name())}
		}
	}
	return nil, tool.Errorf(tool.CodeUpstreamError, "every server tried failed for %s: %s", upstreamTool, summarize(tried))
}

func (h *Hub) loadbalance(ctx context.Context, name string, args json.RawMessage, leastBusy bool) (any, error) {
	upstreamTool, ups, err := h.offering(name)
	if err != nil {
		return nil, err
	}
	healthy := slices.DeleteFunc(slices.Clone(ups), func(u *Upstream) bool { return !u.healthy() })
	if len(healthy) == 0 {
		healthy = ups
	}
	var u *Upstream
	if leastBusy {
		u = slices.MinFunc(healthy, func(a, b *Upstream) int {
			if d := a.busy() - b.busy(); d != 0 {
				return d
			}
			return int(a.latency.Load() - b.latency.Load())
		})
	} else {
		h.mu.Lock()
		u = healthy[h.rr%len(healthy)]
		h.rr++
		h.mu.Unlock()
	}
	a, terr := h.callOn(ctx, u, upstreamTool, args)
	if terr != nil {
		return nil, &tool.Error{Code: terr.Code, Message: terr.Message + " (on " + u.Name() + ")"}
	}
	return map[string]any{"server": u.Name(), "result": a.Result, "durationMs": a.DurationMs}, nil
}

func (h *Hub) discover(ctx context.Context, paths []string, file string, register bool, names []string) (any, error) {
	opts := mcpconfig.DiscoverOptions{Paths: paths}
	if file != "" {
		if _, err := os.Stat(file); err != nil {
			return nil, tool.Errorf(tool.CodeNotFound, "configFile %s: %v", file, err)
		}
		opts.Paths = append(opts.Paths, file)
	}
	found := mcpconfig.Discover(opts)
	var servers []map[string]any
	var registered, failed []string
	for _, s := range found.Servers {
		spec := Spec{Name: ServerNameFor(s.Name), Type: config.TransportType(s.Transport, s.Command, s.URL), Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd,
			URL: s.URL, Headers: s.Headers, Disabled: s.Disabled, Source: s.Source, Origin: OriginRegistered}
		m := spec.Public()
		m["client"] = s.Client
		if spec.Name != s.Name {
			m["nameInFile"] = s.Name // hosted under spec.Name
		}
		_, hosted := h.Get(spec.Name)
		m["hosted"] = hosted
		if err := spec.Check(); err != nil {
			m["problem"] = err.Error()
		} else if register && !hosted && !spec.Disabled && (len(names) == 0 || slices.Contains(names, s.Name) || slices.Contains(names, spec.Name)) {
			expanded, missing := s.Expand(os.LookupEnv)
			if len(missing) > 0 {
				m["problem"] = "unresolved variables: " + strings.Join(missing, ", ")
				failed = append(failed, spec.Name)
			} else {
				spec = spec.withExpanded(expanded)
				if _, err := h.Register(ctx, spec, false); err != nil {
					m["problem"] = tool.AsError(err).Text()
					failed = append(failed, spec.Name)
				} else {
					m["hosted"] = true
					registered = append(registered, spec.Name)
				}
			}
		}
		servers = append(servers, m)
	}
	var problems []string
	for _, e := range found.Errors {
		problems = append(problems, e.Error())
	}
	out := map[string]any{"servers": nonNil(servers), "searched": found.Searched, "fileErrors": nonNil(problems)}
	if register {
		out["registered"], out["failed"] = nonNil(registered), nonNil(failed)
	}
	return out, nil
}

// ServerNameFor is the name a server called name in a client's file is
// hosted under: itself when valid, else with every character other than
// letters, digits, '-' and '_' (and runs of '_') turned into '-', cut to
// 24.
func ServerNameFor(name string) string {
	if config.ValidServerName(name) {
		return name
	}
	var b strings.Builder
	for _, r := range name {
		switch {
		case r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-'):
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > 24 {
		out = strings.TrimRight(out[:24], "-")
	}
	if out == "" {
		out = "server"
	}
	return out
}
