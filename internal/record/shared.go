package record

import (
	"errors"
	"sync"
)

// ErrOff is what Shared returns when no record file was set: the server
// runs with dashboard.record false.
var ErrOff = errors.New("the record is off (dashboard.record false), so there is no history to read")

// shared is the record the process's tools use (an Igor's: the Doctor
// sends the file in its init message).
var shared struct {
	mu    sync.Mutex
	path  string
	store *Store
	err   error // the last Open's error for path
}

// Use sets the record file the process's tools use ("" when the record is
// off). An Igor calls it once at start; a store opened for an earlier
// path is closed, so change it only when no tool runs.
func Use(path string) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if path == shared.path {
		return
	}
	if shared.store != nil {
		shared.store.Close()
	}
	shared.path, shared.store, shared.err = path, nil, nil
}

// Shared returns the record set by Use, opened on first use and kept
// open. It returns ErrOff when none was set; when the file does not open,
// the error is returned again on each call without trying again, until
// Use names another file.
func Shared() (*Store, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	switch {
	case shared.path == "":
		return nil, ErrOff
	case shared.store != nil:
		return shared.store, nil
	case shared.err != nil:
		return nil, shared.err
	}
	s, err := Open(shared.path)
	if err != nil {
		shared.err = err
		return nil, err
	}
	shared.store = s
	return s, nil
}
