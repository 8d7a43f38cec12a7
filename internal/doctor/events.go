package doctor

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Event types (doctor-spec.md, Events Emitted).
const (
	EventIgorSpawned    = "igor:spawned"
	EventIgorTerminated = "igor:terminated"
	EventIgorCrashed    = "igor:crashed"
	EventTaskQueued     = "task:queued" // ours: every Igor of its lane was busy; the call waits
	EventTaskStarted    = "task:started"
	EventTaskCompleted  = "task:completed"
	EventTaskFailed     = "task:failed"
	EventSwarmStarted   = "swarm:started"
	EventSwarmCompleted = "swarm:completed"
	EventToolRegistered = "tool:registered"
	EventSquadCreated   = "squad:created"
	EventSquadDissolved = "squad:dissolved"
	// The record could not be written (a full disk) and recording paused,
	// or it could again and resumed; calls are answered throughout.
	EventRecordPaused  = "record:paused"
	EventRecordResumed = "record:resumed"
)

// Event is one thing that happened in the front.
type Event struct {
	Time   time.Time `json:"time"`
	Type   string    `json:"type"`
	Igor   string    `json:"igorId,omitempty"`
	Task   string    `json:"taskId,omitempty"`
	Tool   string    `json:"tool,omitempty"`
	Reason string    `json:"reason,omitempty"`
	// Server is the hosted MCP server of a gateway event (upstream:*).
	Server string `json:"server,omitempty"`
	// DurationMs is a task's or a swarm's run time.
	DurationMs float64 `json:"durationMs,omitempty"`
}

// Events is the front's event bus: a ring of recent events and a list of
// subscribers called synchronously (they must not block).
type Events struct {
	mu   sync.Mutex
	ring []Event
	next int
	full bool
	subs []func(Event)
}

// NewEvents returns a bus keeping the last size events.
func NewEvents(size int) *Events { return &Events{ring: make([]Event, size)} }

// Subscribe calls fn for every event emitted from now on.
func (e *Events) Subscribe(fn func(Event)) {
	e.mu.Lock()
	e.subs = append(e.subs, fn)
	e.mu.Unlock()
}

// Emit records an event and passes it to the subscribers.
func (e *Events) Emit(ev Event) {
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	e.mu.Lock()
	e.ring[e.next] = ev
	e.next = (e.next + 1) % len(e.ring)
	if e.next == 0 {
		e.full = true
	}
	subs := e.subs
	e.mu.Unlock()
	for _, fn := range subs {
		fn(ev)
	}
}

// Recent returns up to n of the latest events, oldest first.
func (e *Events) Recent(n int) []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var all []Event
	if e.full {
		all = append(all, e.ring[e.next:]...)
	}
	all = append(all, e.ring[:e.next]...)
	if n > 0 && len(all) > n {
		all = all[len(all)-n:]
	}
	return all
}

// LogEvents logs every event at info level (debug for routine ones).
func LogEvents(log *slog.Logger) func(Event) {
	return func(ev Event) {
		level := slog.LevelInfo
		if ev.Type == EventIgorCrashed || ev.Type == EventTaskFailed || ev.Type == EventRecordPaused {
			level = slog.LevelWarn
		}
		if ev.Server != "" { // a gateway event: the pool's fields are empty
			log.Log(context.Background(), level, ev.Type, "upstream", ev.Server, "reason", ev.Reason)
			return
		}
		log.Log(context.Background(), level, ev.Type, "igor", ev.Igor, "task", ev.Task, "tool", ev.Tool, "reason", ev.Reason)
	}
}

// eventsLimit bounds events_recent's answer (the ring holds 1024).
const eventsLimit = 1024

// eventTools are the tools that read the bus.
func (d *Doctor) eventTools() []tool.Tool {
	return []tool.Tool{{
		Def: mgmt("events_recent", "Recent front events, oldest first: Igors, swarms, squads, dynamic tools, snapshots, tasks queued or failed (all with events.tasks). Also log notifications to clients that set a log level.",
			schema.String("since", "RFC 3339 or Unix milliseconds"),
			schema.Array("types", "Such as igor:crashed or igor:*", schema.StringItems()),
			schema.Integer("limit", "Latest this many").Default(50).Min(1).Max(eventsLimit)).
			WithPhrases("what happened recently", "server activity log", "event log", "audit trail", "why did a worker crash", "recent crashes", "what went wrong lately", "timeline of failures"),
		Run: tool.Typed(func(_ context.Context, in struct {
			Since string   `json:"since"`
			Types []string `json:"types"`
			Limit int      `json:"limit"`
		}, _ *tool.Call) (any, error) {
			var since time.Time
			if in.Since != "" {
				t, err := parseSince(in.Since)
				if err != nil {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"since\": %q is neither RFC 3339 (2026-11-24T10:00:00Z) nor Unix milliseconds", in.Since)
				}
				since = t
			}
			if in.Limit == 0 {
				in.Limit = 50
			}
			var out []Event
			for _, ev := range d.events.Recent(0) {
				if ev.Time.After(since) && matchesType(ev.Type, in.Types) {
					out = append(out, ev)
				}
			}
			if len(out) > in.Limit {
				out = out[len(out)-in.Limit:]
			}
			if out == nil {
				out = []Event{}
			}
			return map[string]any{"events": out, "count": len(out)}, nil
		}),
	}}
}

func parseSince(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(ms), nil
}

func matchesType(typ string, types []string) bool {
	if len(types) == 0 {
		return true
	}
	for _, t := range types {
		if p, ok := strings.CutSuffix(t, "*"); ok && strings.HasPrefix(typ, p) || t == typ {
			return true
		}
	}
	return false
}
