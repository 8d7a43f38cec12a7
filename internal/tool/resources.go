package tool

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
)

// Resources are the long-lived things an Igor holds for its tools (browser
// pages, database pools, watchers, temp files), kept by kind and key so that
// tools can find them again by alias and the Igor can close them all on
// shutdown, SIGTERM or stdin EOF. Safe for concurrent use.
type Resources struct {
	mu    sync.Mutex
	items map[string]map[string]func() error // kind → key → close
	temp  []string
}

// NewResources returns an empty set.
func NewResources() *Resources {
	return &Resources{items: map[string]map[string]func() error{}}
}

// Put stores a resource's close function under kind and key, closing any
// resource it replaces.
func (r *Resources) Put(kind, key string, closeFn func() error) {
	r.mu.Lock()
	old := r.items[kind][key]
	if r.items[kind] == nil {
		r.items[kind] = map[string]func() error{}
	}
	r.items[kind][key] = closeFn
	r.mu.Unlock()
	if old != nil {
		_ = old() // the replaced resource is gone either way
	}
}

// Close closes and forgets one resource; it reports whether it existed.
func (r *Resources) Close(kind, key string) (bool, error) {
	r.mu.Lock()
	fn, ok := r.items[kind][key]
	delete(r.items[kind], key)
	r.mu.Unlock()
	if !ok {
		return false, nil
	}
	return true, fn()
}

// Count returns how many resources of a kind are held.
func (r *Resources) Count(kind string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.items[kind])
}

// TempFile records a file to remove on cleanup.
func (r *Resources) TempFile(path string) {
	r.mu.Lock()
	r.temp = append(r.temp, path)
	r.mu.Unlock()
}

// CloseAll closes every resource and removes the temp files. It returns the
// kinds it cleaned up, sorted, and the errors joined.
func (r *Resources) CloseAll() ([]string, error) {
	r.mu.Lock()
	items, temp := r.items, r.temp
	r.items, r.temp = map[string]map[string]func() error{}, nil
	r.mu.Unlock()
	var kinds []string
	var errs []error
	for kind, m := range items {
		if len(m) == 0 {
			continue
		}
		kinds = append(kinds, kind)
		for key, fn := range m {
			if err := fn(); err != nil {
				errs = append(errs, fmt.Errorf("close %s %q: %w", kind, key, err))
			}
		}
	}
	if len(temp) > 0 {
		kinds = append(kinds, "temp_files")
	}
	for _, p := range temp {
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, fmt.Errorf("remove temp file: %w", err))
		}
	}
	slices.Sort(kinds)
	return kinds, errors.Join(errs...)
}

// Resource kinds counted in an Igor's pong.
const (
	KindBrowserPage = "browser_page"
	KindPostgres    = "db_pg"
	KindSQLite      = "db_sqlite"
	KindRedis       = "db_redis"
)
