package tool

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"sync"
)

// Registry holds tools by name, in registration order. It is safe for
// concurrent use; tools may be added and removed at run time.
type Registry struct {
	mu    sync.RWMutex
	order []string
	tools map[string]*Tool
}

// NewRegistry returns a registry holding tools. It panics on an invalid or
// duplicate definition: those are programming errors caught by any test.
func NewRegistry(tools ...Tool) *Registry {
	r := &Registry{tools: map[string]*Tool{}}
	for _, t := range tools {
		if err := r.Add(t); err != nil {
			panic(err)
		}
	}
	return r
}

// Add registers a tool; it fails on an invalid definition or a name already
// taken.
func (r *Registry) Add(t Tool) error {
	if err := t.Validate(); err != nil {
		return err
	}
	if t.Run == nil {
		return fmt.Errorf("tool %s: no handler", t.Name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[t.Name]; dup {
		return fmt.Errorf("tool %s: registered twice", t.Name)
	}
	r.tools[t.Name] = &t
	r.order = append(r.order, t.Name)
	return nil
}

// Swap removes the tools named in remove and adds add, in one step: a
// concurrent Get sees either the old set or the new one, never a tool
// missing in between. Tools that fail validation or clash with a name not
// being removed are left out and reported in the error (the others are
// swapped in).
func (r *Registry) Swap(remove []string, add []Tool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range remove {
		if _, ok := r.tools[n]; ok {
			delete(r.tools, n)
			r.order = slices.DeleteFunc(r.order, func(o string) bool { return o == n })
		}
	}
	var errs []error
	for _, t := range add {
		if err := t.Validate(); err != nil {
			errs = append(errs, err)
			continue
		}
		if _, dup := r.tools[t.Name]; dup {
			errs = append(errs, fmt.Errorf("tool %s: registered twice", t.Name))
			continue
		}
		r.tools[t.Name] = &t
		r.order = append(r.order, t.Name)
	}
	return errors.Join(errs...)
}

// Remove unregisters a tool and reports whether it was there.
func (r *Registry) Remove(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.tools[name]; !ok {
		return false
	}
	delete(r.tools, name)
	r.order = slices.DeleteFunc(r.order, func(n string) bool { return n == name })
	return true
}

// Get returns the tool of that name.
func (r *Registry) Get(name string) (*Tool, bool) {
	r.mu.RLock()
	t, ok := r.tools[name]
	r.mu.RUnlock()
	return t, ok
}

// List returns every tool, in registration order.
func (r *Registry) List() []*Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*Tool, len(r.order))
	for i, n := range r.order {
		out[i] = r.tools[n]
	}
	return out
}

// Len is the number of tools.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.order)
}

// Filter returns a registry holding the tools whose names match any of the
// glob patterns (path.Match syntax, such as "browser_*"). No pattern, or the
// pattern "*", keeps every tool. A malformed pattern is an error.
func (r *Registry) Filter(patterns []string) (*Registry, error) {
	for _, p := range patterns {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("tool bag pattern %q: %w", p, err)
		}
	}
	out := &Registry{tools: map[string]*Tool{}}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, n := range r.order {
		if MatchAny(patterns, n) {
			out.tools[n] = r.tools[n]
			out.order = append(out.order, n)
		}
	}
	return out, nil
}

// MatchAny reports whether name matches any of the glob patterns; an empty
// list matches everything.
func MatchAny(patterns []string, name string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
