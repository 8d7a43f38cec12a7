//go:build unix

package worktree

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// lock serialises worktree changes: in this process (the mutex) and
// across processes sharing the repository (an flock on Dir/.lock).
func (m *Manager) lock() (func(), error) {
	m.mu.Lock()
	f, err := os.OpenFile(filepath.Join(m.dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		m.mu.Unlock()
		return nil, fmt.Errorf("open the worktree lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		m.mu.Unlock()
		return nil, fmt.Errorf("take the worktree lock: %w", err)
	}
	return func() {
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
		m.mu.Unlock()
	}, nil
}
