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
	items map[string]map[string]*held // kind → key → resource
	temp  []string
	once  map[string]*onceSlot // kind+"\x00"+key → lazy creation in progress
}

type held struct {
	value any
	close func() error
}

type onceSlot struct {
	done chan struct{}
	err  error
}

// NewResources returns an empty set.
func NewResources() *Resources {
	return &Resources{items: map[string]map[string]*held{}, once: map[string]*onceSlot{}}
}

// Put stores a resource (value, and how to close it) under kind and key,
// closing any resource it replaces. value may be nil when only the close
// function matters; closeFn may be nil when there is nothing to close.
func (r *Resources) Put(kind, key string, value any, closeFn func() error) {
	r.mu.Lock()
	old := r.items[kind][key]
	if r.items[kind] == nil {
		r.items[kind] = map[string]*held{}
	}
	r.items[kind][key] = &held{value: value, close: closeFn}
	r.mu.Unlock()
	if old != nil && old.close != nil {
		_ = old.close() // the replaced resource is gone either way
	}
}

// Get returns the value stored under kind and key.
func (r *Resources) Get(kind, key string) (any, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.items[kind][key]
	if !ok {
		return nil, false
	}
	return h.value, true
}

// Keys returns the keys held of a kind, sorted (for "unknown alias; open:
// a, b" errors).
func (r *Resources) Keys(kind string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]string, 0, len(r.items[kind]))
	for k := range r.items[kind] {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// GetOrCreate returns the value under kind and key, creating it with create
// when absent. Concurrent callers for the same kind and key wait for one
// creation; a failed creation is not stored, so the next call tries again.
func (r *Resources) GetOrCreate(kind, key string, create func() (value any, closeFn func() error, err error)) (any, error) {
	id := kind + "\x00" + key
	for {
		r.mu.Lock()
		if h, ok := r.items[kind][key]; ok {
			r.mu.Unlock()
			return h.value, nil
		}
		if o, ok := r.once[id]; ok {
			r.mu.Unlock()
			<-o.done
			if o.err != nil {
				return nil, o.err
			}
			continue
		}
		o := &onceSlot{done: make(chan struct{})}
		r.once[id] = o
		r.mu.Unlock()

		v, closeFn, err := create()
		r.mu.Lock()
		delete(r.once, id)
		if err == nil {
			if r.items[kind] == nil {
				r.items[kind] = map[string]*held{}
			}
			r.items[kind][key] = &held{value: v, close: closeFn}
		}
		o.err = err
		r.mu.Unlock()
		close(o.done)
		return v, err
	}
}

// Lookup returns the value under kind and key as a T.
func Lookup[T any](r *Resources, kind, key string) (T, bool) {
	v, ok := r.Get(kind, key)
	t, isT := v.(T)
	return t, ok && isT
}

// Close closes and forgets one resource; it reports whether it existed.
func (r *Resources) Close(kind, key string) (bool, error) {
	r.mu.Lock()
	h, ok := r.items[kind][key]
	delete(r.items[kind], key)
	r.mu.Unlock()
	if !ok {
		return false, nil
	}
	if h.close == nil {
		return true, nil
	}
	return true, h.close()
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
	r.items, r.temp = map[string]map[string]*held{}, nil
	r.mu.Unlock()
	var kinds []string
	var errs []error
	for kind, m := range items {
		if len(m) == 0 {
			continue
		}
		kinds = append(kinds, kind)
		for key, h := range m {
			if h.close == nil {
				continue
			}
			if err := h.close(); err != nil {
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
	// KindBrowser is the Igor's one browser (internal/browser), under key "browser".
	KindBrowser  = "browser"
	KindPostgres = "db_pg"
	KindSQLite   = "db_sqlite"
	KindRedis    = "db_redis"
	// KindWatch is fs_watch's watchers, by id.
	KindWatch = "fs_watch"
	// KindDocker is the Igor's Docker Engine client (internal/tools/docker),
	// under key "default".
	KindDocker = "docker"
	// KindGitHub is the GitHub tools' clients (internal/tools/github), by
	// connection alias.
	KindGitHub = "github"
)
