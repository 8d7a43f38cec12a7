//go:build !unix

package worktree

// lock serialises worktree changes in this process (other systems: no
// cross-process lock yet).
func (m *Manager) lock() (func(), error) {
	m.mu.Lock()
	return m.mu.Unlock, nil
}
