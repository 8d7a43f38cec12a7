// Package squad holds named teams of calls that share a context
// (doctor-spec.md, Squad Mode; igor-spec.md, Context Sharing). A squad
// has a size (how many of its calls run at once, over the pool's Igors),
// an optional tool bag (the tools it may call) and shared variables. The
// variables live in the front and travel with each of the squad's tasks
// as its ExecutionContext; a task may set them back (a dynamic tool's
// ctx.squad.set), so a value one Igor sets another reads.
package squad

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// Squad is one named team.
type Squad struct {
	Name    string
	Size    int
	ToolBag []string // glob patterns of the tools it may call; empty: all

	sem     chan struct{}
	now     func() time.Time
	mu      sync.Mutex
	vars    map[string]json.RawMessage
	created time.Time
	last    time.Time
	calls   int
}

// Registry holds the squads of one front. Squads idle longer than Idle
// are dissolved the next time the registry is used.
type Registry struct {
	Idle time.Duration
	Now  func() time.Time // nil: time.Now

	mu     sync.Mutex
	squads map[string]*Squad
}

// validName is a squad's name, at most 64 characters (checked apart: a
// counted repetition compiles to a 64-fold program at every start).
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

func (r *Registry) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// expireLocked dissolves idle squads.
func (r *Registry) expireLocked() {
	if r.Idle <= 0 {
		return
	}
	now := r.now()
	for name, s := range r.squads {
		s.mu.Lock()
		idle := now.Sub(s.last) > r.Idle && len(s.sem) == 0
		s.mu.Unlock()
		if idle {
			delete(r.squads, name)
		}
	}
}

// Create makes a squad; the name must be new.
func (r *Registry) Create(name string, size int, bag []string) (*Squad, error) {
	if len(name) > 64 || !validName.MatchString(name) {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "squad name %q: use letters, digits, _ and -, up to 64", name)
	}
	if size < 1 {
		size = 1
	}
	for _, p := range bag {
		if _, err := path.Match(p, ""); err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "toolBag pattern %q: %v", p, err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.expireLocked()
	if r.squads == nil {
		r.squads = map[string]*Squad{}
	}
	if _, ok := r.squads[name]; ok {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "a squad named %q exists already; dissolve it first or choose another name", name)
	}
	now := r.now()
	s := &Squad{Name: name, Size: size, ToolBag: bag, sem: make(chan struct{}, size), now: r.now, vars: map[string]json.RawMessage{}, created: now, last: now}
	r.squads[name] = s
	return s, nil
}

// Get returns the squad, or NOT_FOUND naming the squads there are.
func (r *Registry) Get(name string) (*Squad, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.expireLocked()
	if s, ok := r.squads[name]; ok {
		return s, nil
	}
	return nil, tool.Errorf(tool.CodeNotFound, "no squad named %q; squads: %s (squad_create makes one)", name, r.namesLocked())
}

func (r *Registry) namesLocked() string {
	if len(r.squads) == 0 {
		return "none"
	}
	names := make([]string, 0, len(r.squads))
	for n := range r.squads {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Dissolve removes the squad; its running calls finish.
func (r *Registry) Dissolve(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.squads[name]; !ok {
		return tool.Errorf(tool.CodeNotFound, "no squad named %q; squads: %s", name, r.namesLocked())
	}
	delete(r.squads, name)
	return nil
}

// Status describes every squad, for worker_status.
func (r *Registry) Status() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.expireLocked()
	out := []map[string]any{}
	for _, s := range r.squads {
		s.mu.Lock()
		keys := slices.Sorted(maps.Keys(s.vars))
		out = append(out, map[string]any{
			"name": s.Name, "size": s.Size, "toolBag": s.ToolBag, "running": len(s.sem), "calls": s.calls,
			"sharedKeys": keys, "createdAt": s.created.UTC().Format(time.RFC3339), "lastActivity": s.last.UTC().Format(time.RFC3339),
		})
		s.mu.Unlock()
	}
	sort.Slice(out, func(i, j int) bool { return out[i]["name"].(string) < out[j]["name"].(string) })
	return out
}

// Allows reports whether the squad's tool bag admits the tool.
func (s *Squad) Allows(name string) bool {
	return len(s.ToolBag) == 0 || tool.MatchAny(s.ToolBag, name)
}

// Acquire waits for room among the squad's Size running calls; release
// frees it. It fails when done closes first.
func (s *Squad) Acquire(done <-chan struct{}) (release func(), err error) {
	select {
	case s.sem <- struct{}{}:
	case <-done:
		return nil, fmt.Errorf("squad %s: cancelled while waiting for room", s.Name)
	}
	s.mu.Lock()
	s.calls++
	s.last = s.now()
	s.mu.Unlock()
	return func() {
		<-s.sem
		s.mu.Lock()
		s.last = s.now()
		s.mu.Unlock()
	}, nil
}

// Set shares a value with the squad.
func (s *Squad) Set(key string, value json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vars[key] = slices.Clone(value)
	s.last = s.now()
}

// Get returns a shared value.
func (s *Squad) Get(key string) (json.RawMessage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.vars[key]
	return v, ok
}

// Vars returns the shared values, decoded, as a task's ExecutionContext
// carries them.
func (s *Squad) Vars() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]any, len(s.vars))
	for k, v := range s.vars {
		var x any
		if json.Unmarshal(v, &x) == nil {
			out[k] = x
		}
	}
	return out
}

// Keys lists the shared keys.
func (s *Squad) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.vars))
}
