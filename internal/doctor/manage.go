package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/fspath"
	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/version"
)

// ManagementGroup is the heading of the front's own tools.
const ManagementGroup = "Management"

// planReadLimit caps what plan_read returns.
const planReadLimit = 1 << 20

func mgmt(name, desc string, props ...schema.Prop) tool.Def {
	return tool.Def{Name: name, Description: desc, Group: ManagementGroup, Category: tool.CategoryMeta, Input: schema.Object(props...), Timeout: time.Minute}
}

// managementTools are answered by the front itself (barrhawk-beta-readme.md,
// Management Tools).
func (d *Doctor) managementTools() []tool.Tool {
	return []tool.Tool{
		{
			Def: mgmt("worker_status", "Health of the front, its Igor workers (settings; per Igor pid, status, memory, uptime, restarts, tasks) and hosted MCP servers.").
				WithPhrases("is barrhawk healthy", "barrhawk health check", "how many igors", "memory of all igors", "worker memory usage", "rss per worker", "server uptime and version", "igor pids", "is the server up", "busy or idle workers", "spare worker standing by", "state of each worker process", "are the workers alive or stuck"),
			Run: func(context.Context, *tool.Call) (any, error) { return d.Status(), nil },
		},
		{
			Def: mgmt("worker_restart", "Restart the Igor workers, or one, after their running calls, freeing browsers and DB connections. Returns the ids.",
				schema.String("id", "From worker_status; omit for all")).
				WithPhrases("kill a stuck worker", "recycle igors", "unstick a hung call", "free leaked browsers", "fix a memory leak", "reset the worker pool", "fresh worker processes"),
			Run: tool.Typed(func(ctx context.Context, in struct {
				ID string `json:"id"`
			}, _ *tool.Call) (any, error) {
				ids, err := d.pool.Restart(ctx, in.ID)
				if err != nil {
					return nil, err
				}
				if len(ids) == 0 {
					return map[string]any{"restarted": []string{}, "message": "No Igor was running; one starts with the next call."}, nil
				}
				return map[string]any{"restarted": ids, "message": "Restarted " + strings.Join(ids, ", ")}, nil
			}),
		},
		{
			Def: mgmt("plan_read", "Read a Markdown (.md) file, such as a plan, in the working directory (relative paths start there), tools.roots or the client's roots; no '..'. Returns {path, content, bytes}.",
				schema.String("path", "File path").Required().Min(1)).
				WithPhrases("read the plan", "open the readme", "read markdown docs", "view project notes", "read a .md file", "open a markdown file", "what's next in the plan", "roadmap and next steps", "show the spec", "read design doc"),
			Run: tool.Typed(func(ctx context.Context, in struct {
				Path string `json:"path"`
			}, _ *tool.Call) (any, error) {
				return planRead(in.Path, d.AllowedRoots(ctx))
			}),
		},
	}
}

// Health is the front's health in the seed's shape (worker_status's
// "health", and GET /health of the admin API).
type Health struct {
	Status      string      `json:"status"` // healthy, or degraded while Igors keep crashing
	Uptime      int64       `json:"uptime"` // ms
	ToolCount   int         `json:"toolCount"`
	LastError   *string     `json:"lastError"`
	MemoryUsage MemoryUsage `json:"memoryUsage"`
	// Goroutines is the front's goroutine count (a leak shows here first).
	Goroutines int `json:"goroutines"`
}

// MemoryUsage is the front's Go heap.
type MemoryUsage struct {
	HeapUsed  uint64 `json:"heapUsed"`
	HeapTotal uint64 `json:"heapTotal"`
}

// degradedAfter is how many Igor crashes in a row make the front degraded.
const degradedAfter = 5

// Health reports the front's health; LastError is the latest Igor crash or
// broken dynamic tool.
func (d *Doctor) Health() Health { return d.health(d.pool.Status()) }

// health is Health given the pool's status, which Status has already.
func (d *Doctor) health(pool PoolStatus) Health {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h := Health{
		Status: "healthy", Uptime: time.Since(d.started).Milliseconds(), ToolCount: d.reg.Len(),
		MemoryUsage: MemoryUsage{HeapUsed: ms.HeapAlloc, HeapTotal: ms.HeapSys}, Goroutines: runtime.NumGoroutine(),
	}
	if pool.CrashesInARow >= degradedAfter {
		h.Status = "degraded"
	}
	for _, ev := range d.events.Recent(0) {
		if ev.Type == EventIgorCrashed || ev.Type == EventToolBroken {
			msg := ev.Type + ": " + ev.Reason
			h.LastError = &msg
		}
	}
	return h
}

// HTTPSessions is worker_status' "httpSessions": the MCP sessions open
// over streamable HTTP (serve --http) and their bounds.
type HTTPSessions struct {
	Open        int    `json:"open"`
	Max         int    `json:"max"`         // mcp.maxSessions
	IdleTimeout string `json:"idleTimeout"` // mcp.sessionIdleTimeout; "0s": never
}

// ReportHTTPSessions makes worker_status show what fn reports; the front
// calls it when it serves MCP over HTTP.
func (d *Doctor) ReportHTTPSessions(fn func() HTTPSessions) { d.httpSessions.Store(&fn) }

// ReportRecording makes worker_status show, as "recording", what fn
// reports: how recording the calls goes (record.RecordStatus: paused,
// why, calls waiting, dropped). serve calls it when the record is on.
func (d *Doctor) ReportRecording(fn func() any) { d.recording.Store(&fn) }

// Status is what worker_status answers.
func (d *Doctor) Status() map[string]any {
	pool := d.pool.Status()
	health := d.health(pool)
	st := map[string]any{
		"health":       health,
		"status":       "running",
		"healthy":      health.Status == "healthy",
		"version":      version.Version,
		"pid":          os.Getpid(),
		"startedAt":    d.started.UTC().Format(time.RFC3339Nano),
		"uptime":       time.Since(d.started).Milliseconds(),
		"restartCount": pool.Restarts,
		"toolCount":    d.reg.Len(),
		"toolList":     d.toolListStatus(),
		"squads":       d.squads.Status(),
		"memory":       proc.RSS(os.Getpid()),
		"pool":         pool,
	}
	if d.dyn != nil {
		st["dynamicTools"] = d.dyn.status()
	}
	if fn := d.httpSessions.Load(); fn != nil {
		st["httpSessions"] = (*fn)()
	}
	if fn := d.recording.Load(); fn != nil {
		st["recording"] = (*fn)()
	}
	if d.gateway != nil {
		var ups []map[string]any
		for _, u := range d.gateway.List() {
			h := u.Health()
			ups = append(ups, map[string]any{"name": h.Name, "state": h.State, "tools": h.Tools, "restarts": h.Restarts, "lastError": h.LastError})
		}
		st["gateway"] = map[string]any{"upstreams": ups, "note": "mcp_health has the details"}
	}
	return st
}

func planRead(p string, roots []string) (any, error) {
	if slices.Contains(strings.Split(filepath.ToSlash(p), "/"), "..") {
		return nil, tool.Errorf(tool.CodeForbidden, "plan_read refuses %q: paths may not contain '..'", p)
	}
	if !strings.EqualFold(filepath.Ext(p), ".md") {
		return nil, tool.Errorf(tool.CodeForbidden, "plan_read reads only Markdown (.md) files, not %q", p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "path %q: %v", p, err)
	}
	outside := func(where string) error {
		return tool.Errorf(tool.CodeForbidden, "plan_read refuses %s: it is outside the allowed roots %s (the working directory, tools.roots and the roots the MCP client declares)", where, strings.Join(roots, ", "))
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		// Outside the roots a missing file is refused like any other, so
		// that plan_read does not tell which files exist there.
		if dir, derr := filepath.EvalSymlinks(filepath.Dir(abs)); derr != nil && !fspath.WithinAny(abs, roots) || derr == nil && !fspath.WithinAny(dir, roots) {
			return nil, outside(abs)
		}
		if os.IsNotExist(err) {
			return nil, tool.Errorf(tool.CodeNotFound, "no file at %s", abs)
		}
		return nil, tool.Errorf(tool.CodeToolError, "plan_read %s: %v", abs, err)
	}
	if !fspath.WithinAny(real, roots) {
		where := real
		if real != abs {
			where = abs + " (a link to " + real + ")"
		}
		return nil, outside(where)
	}
	if !strings.EqualFold(filepath.Ext(real), ".md") {
		return nil, tool.Errorf(tool.CodeForbidden, "plan_read refuses %q: it links to %q, which is not a .md file", p, real)
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, tool.Errorf(tool.CodeToolError, "plan_read %s: %v", abs, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "%s is a directory, not a file", abs)
	}
	buf := make([]byte, min(st.Size(), planReadLimit))
	n, err := f.Read(buf)
	if err != nil && n == 0 && st.Size() > 0 {
		return nil, tool.Errorf(tool.CodeToolError, "plan_read %s: %v", abs, err)
	}
	out := map[string]any{"path": abs, "content": string(buf[:n]), "bytes": st.Size()}
	if st.Size() > planReadLimit {
		out["truncated"] = true
		out["note"] = fmt.Sprintf("only the first %d bytes are shown", planReadLimit)
	}
	return out, nil
}
