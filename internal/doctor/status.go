package doctor

import (
	"slices"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/proc"
)

// IgorStatus is one Igor as worker_status shows it.
type IgorStatus struct {
	ID string `json:"id"`
	// Lane is the set of Igors it belongs to, under the specialized and
	// squad strategies: "domain:browser", "squad:NAME".
	Lane        string `json:"lane,omitempty"`
	PID         int    `json:"pid"`
	Status      string `json:"status"` // starting, idle, busy, draining, stopping
	Memory      int64  `json:"memory"` // RSS in bytes
	UptimeMs    int64  `json:"uptimeMs"`
	StartedAt   string `json:"startedAt"`
	Restarts    int    `json:"restarts"`
	TasksDone   int64  `json:"tasksDone"`
	TasksFailed int64  `json:"tasksFailed"`
	InFlight    int    `json:"inFlight"`
	ToolsLoaded int    `json:"toolsLoaded"`
	// From the Igor's last pong, or the result of a browser tool that
	// opened or closed tabs since: its browser's tabs and their processes'
	// memory, and its open database connections.
	BrowserPages  int   `json:"browserPages"`
	BrowserMemory int64 `json:"browserMemory"`
	// BrowserMemoryPerPage is BrowserMemory shared out over the tabs.
	BrowserMemoryPerPage int64 `json:"browserMemoryPerPage,omitempty"`
	DBConnections        int   `json:"dbConnections"`
	// Goroutines is the Igor's goroutine count at its last pong (a leak
	// in a tool shows here first).
	Goroutines int `json:"goroutines,omitempty"`
}

// PoolStatus is the pool as worker_status shows it.
type PoolStatus struct {
	Strategy        string       `json:"strategy"`
	MaxWorkers      int          `json:"maxWorkers"`
	MaxTasksPerIgor int          `json:"maxTasksPerIgor"`
	Live            int          `json:"live"`
	Restarts        int          `json:"restarts"`
	CrashesInARow   int          `json:"crashesInARow"`
	Igors           []IgorStatus `json:"igors"`
	// SparePID is the Igor process started ahead of need (igors.spare),
	// waiting for its init; 0 when none waits.
	SparePID int `json:"sparePid,omitempty"`
}

// Status reports the pool and each Igor.
func (p *Pool) Status() PoolStatus {
	p.mu.Lock()
	st := PoolStatus{Strategy: p.opts.Igors.Strategy, MaxWorkers: p.opts.Igors.MaxWorkers, MaxTasksPerIgor: p.opts.Igors.MaxTasksPerIgor, CrashesInARow: p.backoff.Fails(), Igors: []IgorStatus{}}
	restarts := map[string]int{}
	for _, s := range p.slots {
		st.Restarts += s.restarts
		restarts[s.id] = s.restarts
	}
	for ig := range p.all {
		status := ig.state
		if status == stateReady {
			status = "idle"
			if ig.inFlight > 0 {
				status = "busy"
			}
		}
		is := IgorStatus{
			ID: ig.id, Lane: laneNameOrEmpty(ig.lane), Status: status, Restarts: restarts[ig.id], InFlight: ig.inFlight,
			TasksDone: ig.done.Load(), TasksFailed: ig.failed.Load(), ToolsLoaded: ig.toolsLoaded,
			StartedAt: ig.startedAt.UTC().Format(time.RFC3339Nano), UptimeMs: time.Since(ig.startedAt).Milliseconds(),
		}
		if ig.child != nil {
			is.PID = ig.child.Proc.PID()
		}
		if u := ig.usage.Load(); u != nil {
			is.BrowserPages, is.BrowserMemory, is.DBConnections, is.Goroutines = u.BrowserPages, u.BrowserMemory, u.DBConnections, u.Goroutines
			if u.BrowserPages > 0 {
				is.BrowserMemoryPerPage = u.BrowserMemory / int64(u.BrowserPages)
			}
		}
		st.Igors = append(st.Igors, is)
		if ig.state == stateReady {
			st.Live++
		}
	}
	p.mu.Unlock()
	st.SparePID = p.sparePID()
	for i := range st.Igors {
		st.Igors[i].Memory = proc.RSS(st.Igors[i].PID)
	}
	slices.SortFunc(st.Igors, func(a, b IgorStatus) int { return strings.Compare(a.ID, b.ID) })
	return st
}

func laneNameOrEmpty(l *Lane) string {
	if l == nil {
		return ""
	}
	return l.Name
}
