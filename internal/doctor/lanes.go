package doctor

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// Lanes: how the dispatch strategies (igors.strategy) other than
// round-robin and single keep calls apart. A lane is a named set of Igors
// that load one tool bag (igors.toolBag's per-lane counterpart); a call
// runs on an Igor of its lane, and an Igor of one lane is never given
// another lane's call.
//
//   - specialized: one lane per domain (browser, database, filesystem,
//     github, docker), whose Igors load only that domain's tools; the rest
//     (utility, dynamic tools) share the general lane. A browser call goes
//     to a browser Igor, which holds the browser; a database Igor holds the
//     connections.
//   - squad: each squad's calls run on Igors of its own, as many as its
//     size, loading its tool bag; other calls share the general lane.
//   - swarm: one lane, all igors.maxWorkers Igors kept warm (started with
//     the server and never stopped for idleness), least loaded first: for
//     bursts of parallel work such as swarm_run.
//
// All lanes share the igors.maxWorkers slots. When a lane needs an Igor and
// every slot is taken, an idle Igor of another lane gives its slot up.

// Strategies.
const (
	StrategyRoundRobin  = "round-robin"
	StrategySingle      = "single"
	StrategySpecialized = "specialized"
	StrategySwarm       = "swarm"
	StrategySquad       = "squad"
)

// Lane is a set of Igors that load one tool bag.
type Lane struct {
	// Name is "" for the general lane, "domain:browser" or "squad:NAME".
	Name string
	// ToolBag is what its Igors load: tool names or globs (nil: the
	// configured igors.toolBag).
	ToolBag []string
	// Max caps its Igors (0: igors.maxWorkers).
	Max int
	// RoutesDynamic is true when ToolBag lists built-in tools only and the
	// front sends a dynamic tool to the lane of its domain: its Igors run
	// whatever dynamic tool they are given (igors.toolBag still applies).
	RoutesDynamic bool
}

// specializedDomains are the categories that get Igors of their own under
// the specialized strategy: each holds long-lived resources (a browser,
// connections, watchers) worth keeping together.
var specializedDomains = []tool.Category{tool.CategoryBrowser, tool.CategoryDatabase, tool.CategoryFilesystem, tool.CategoryGitHub, tool.CategoryDocker}

type laneKey struct{}

// Affinity: the database and GitHub tools keep connections under aliases in their
// Igor (db_pg_connect {alias: "prod"}, then db_pg_query {alias: "prod"}),
// fs_watch keeps its watchers there, read back by id, and the browser tools
// drive the Igor's one Chromium (its sessions, tabs and pages, and dynamic
// tools with the browser permission, whose ctx.browser is that Chromium). Such a call must
// reach the Igor that holds that state, whatever the strategy: every call
// of one affinity key (per lane) goes to one Igor while it lives, and an
// Igor holding database connections is not stopped for idleness.
type affinityKey struct{}

// affinityOf is the affinity key of a call of t, or "" for a call that may
// run on any Igor of its lane.
func affinityOf(t *tool.Tool) string {
	switch {
	case t.Category == tool.CategoryDatabase && t.Group != DynamicGroup:
		return string(tool.CategoryDatabase)
	case t.Category == tool.CategoryGitHub && t.Group != DynamicGroup:
		// gh_connect's connections, and each client's kept answers
		// (conditional requests).
		return string(tool.CategoryGitHub)
	case t.Category == tool.CategoryBrowser:
		// Dynamic tools too: a dynamic tool is in this category only
		// when it has the browser permission (ctx.browser).
		return string(tool.CategoryBrowser)
	case t.Name == "fs_watch":
		return "fs_watch"
	}
	return ""
}

// pickHolderLocked is pickLocked for a call with an affinity key: the Igor
// holding the key's state while it lives (nil when it is at its task limit:
// the call waits for room there rather than run where its state is not),
// else the Igor pickLocked chooses, which becomes the holder.
func (p *Pool) pickHolderLocked(key string, lane *Lane, avoid *igorConn) (*igorConn, time.Duration) {
	if key == "" {
		return p.pickLocked(lane, avoid)
	}
	key = laneName(lane) + "|" + key
	if h := p.holders[key]; h != nil {
		if h.state == stateReady && h.slot.ig == h && !h.dying.Load() && h != avoid {
			if h.inFlight < p.opts.Igors.MaxTasksPerIgor {
				return h, 0
			}
			return nil, 0
		}
		delete(p.holders, key) // it ended, and its state with it
	}
	ig, retryIn := p.pickLocked(lane, avoid)
	if ig != nil {
		p.holders[key] = ig
	}
	return ig, retryIn
}

// Quick calls (tool.Def.Quick) take microseconds on an Igor's reader.
// Each goes to the Igor of its lane that took the last one while that
// Igor can take one more: one process stays awake for them and reads them
// in bursts, rather than each call waking the next Igor in turn. Unlike an
// affinity key, this is a preference, never a reason to wait.
type quickKey struct{}

func withQuick(ctx context.Context) context.Context {
	return context.WithValue(ctx, quickKey{}, true)
}

// quickFrom reports whether ctx is a quick call's (withQuick).
func quickFrom(ctx context.Context) bool {
	quick, _ := ctx.Value(quickKey{}).(bool)
	return quick
}

// pickForLocked chooses the Igor for a call: the holder of its affinity
// key, the Igor taking quick calls, or whichever pickLocked chooses.
func (p *Pool) pickForLocked(ctx context.Context, lane *Lane, avoid *igorConn) (*igorConn, time.Duration) {
	if key := affinityFrom(ctx); key != "" {
		return p.pickHolderLocked(key, lane, avoid)
	}
	if !quickFrom(ctx) {
		return p.pickLocked(lane, avoid)
	}
	key := laneName(lane)
	if h := p.quick[key]; h != nil && h.state == stateReady && h.slot.ig == h && !h.dying.Load() && h != avoid && h.inFlight < p.opts.Igors.MaxTasksPerIgor {
		return h, 0
	}
	ig, retryIn := p.pickLocked(lane, avoid)
	if ig != nil {
		p.quick[key] = ig
	}
	return ig, retryIn
}

// forgetLocked drops the preferences and affinities that name ig, which
// has ended.
func (p *Pool) forgetLocked(ig *igorConn) {
	maps.DeleteFunc(p.quick, func(_ string, h *igorConn) bool { return h == ig })
	maps.DeleteFunc(p.holders, func(_ string, h *igorConn) bool { return h == ig })
}

// A call of a parallel or map-reduce swarm (swarm_run) is independent of
// the calls beside it, and its browser calls spread over the Igors, each
// driving its own Chromium, rather than queue on the one holding the
// agent's browser. A pipeline's steps hand state on, so they keep it.
type spreadKey struct{}

func withSpread(ctx context.Context) context.Context {
	return context.WithValue(ctx, spreadKey{}, true)
}

func spreadFrom(ctx context.Context) bool {
	spread, _ := ctx.Value(spreadKey{}).(bool)
	return spread
}

func withAffinity(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, affinityKey{}, key)
}

func affinityFrom(ctx context.Context) string {
	k, _ := ctx.Value(affinityKey{}).(string)
	return k
}

// withLane returns ctx whose calls run in lane.
func withLane(ctx context.Context, l *Lane) context.Context {
	return context.WithValue(ctx, laneKey{}, l)
}

func laneFrom(ctx context.Context) *Lane {
	l, _ := ctx.Value(laneKey{}).(*Lane)
	return l
}

// lanes decides the lane of each call, by strategy.
type lanes struct {
	d        *Doctor
	strategy string

	mu      sync.Mutex
	domains map[tool.Category]*Lane // built lazily from the registry
	general *Lane
}

func newLanes(d *Doctor, strategy string) *lanes {
	return &lanes{d: d, strategy: strategy}
}

// forCall returns ctx with the lane a call of t runs in (unchanged when
// the strategy has no lanes) and, for a tool whose state lives in its Igor,
// the affinity key that sends it to the Igor holding that state.
func (ls *lanes) forCall(ctx context.Context, t *tool.Tool) context.Context {
	if key := affinityOf(t); key != "" && !(key == string(tool.CategoryBrowser) && spreadFrom(ctx)) {
		ctx = withAffinity(ctx, key)
	} else if t.Quick {
		ctx = withQuick(ctx)
	}
	switch ls.strategy {
	case StrategySpecialized:
		return withLane(ctx, ls.domainLane(ls.domainOf(t)))
	case StrategySquad:
		if ec := tool.ExecContextFrom(ctx); ec != nil && ec.SquadID != "" {
			if sq, err := ls.d.squads.Get(ec.SquadID); err == nil {
				return withLane(ctx, squadLane(sq.Name, sq.Size, sq.ToolBag))
			}
		}
	}
	return ctx
}

// domainOf is the domain a call belongs to: the tool's category when it
// has Igors of its own; for a dynamic tool of no such category, the primary
// domain intent analysis finds in its name and description (cached per
// text, so once per tool).
func (ls *lanes) domainOf(t *tool.Tool) tool.Category {
	if slices.Contains(specializedDomains, t.Category) {
		return t.Category
	}
	if t.Group != DynamicGroup || ls.d.intent == nil {
		return ""
	}
	a := ls.d.intent.Text(strings.ReplaceAll(t.Name, "_", " ") + ": " + t.Description)
	if slices.Contains(specializedDomains, a.PrimaryDomain) {
		return a.PrimaryDomain
	}
	return ""
}

// domainLane is the lane of a domain ("" is the general lane), whose tool
// bag is the domain's built-in tools, or every other built-in tool for the
// general lane.
func (ls *lanes) domainLane(domain tool.Category) *Lane {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.domains == nil {
		bags := map[tool.Category][]string{}
		var general []string
		for _, t := range ls.d.reg.List() {
			if !t.RequiresWorker || t.Group == DynamicGroup {
				continue
			}
			if slices.Contains(specializedDomains, t.Category) {
				bags[t.Category] = append(bags[t.Category], t.Name)
			} else {
				general = append(general, t.Name)
			}
		}
		ls.domains = map[tool.Category]*Lane{}
		for _, c := range specializedDomains {
			ls.domains[c] = &Lane{Name: "domain:" + string(c), ToolBag: orNone(bags[c]), RoutesDynamic: true}
		}
		ls.general = &Lane{Name: "domain:general", ToolBag: orNone(general), RoutesDynamic: true}
	}
	if l := ls.domains[domain]; l != nil {
		return l
	}
	return ls.general
}

// squadLane is the lane of a squad: size Igors loading its tool bag.
func squadLane(name string, size int, bag []string) *Lane {
	return &Lane{Name: squadLanePrefix + name, ToolBag: bag, Max: size}
}

const squadLanePrefix = "squad:"

// orNone is bag, or a bag that loads no built-in tool when bag is empty
// (an empty tool bag means all tools).
func orNone(bag []string) []string {
	if len(bag) == 0 {
		return []string{"no-built-in-tool"}
	}
	return bag
}
