package doctor

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Event types (doctor-spec.md, Events Emitted).
const (
	EventIgorSpawned    = "igor:spawned"
	EventIgorTerminated = "igor:terminated"
	EventIgorCrashed    = "igor:crashed"
	EventTaskFailed     = "task:failed"
	EventToolRegistered = "tool:registered"
)

// Event is one thing that happened in the front.
type Event struct {
	Time   time.Time `json:"time"`
	Type   string    `json:"type"`
	Igor   string    `json:"igorId,omitempty"`
	Task   string    `json:"taskId,omitempty"`
	Tool   string    `json:"tool,omitempty"`
	Reason string    `json:"reason,omitempty"`
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
		if ev.Type == EventIgorCrashed || ev.Type == EventTaskFailed {
			level = slog.LevelWarn
		}
		log.Log(context.Background(), level, ev.Type, "igor", ev.Igor, "task", ev.Task, "tool", ev.Tool, "reason", ev.Reason)
	}
}
