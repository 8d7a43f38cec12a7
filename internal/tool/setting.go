package tool

import "sync"

// Setting holds a tool family's settings: set when its Igor starts (from
// the configuration the front sends), read by every call. The zero value
// holds T's zero value.
type Setting[T any] struct {
	mu sync.RWMutex
	v  T
}

// Set replaces the settings.
func (s *Setting[T]) Set(v T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.v = v
}

// Get returns the settings.
func (s *Setting[T]) Get() T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.v
}
