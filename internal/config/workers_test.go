package config

import (
	"strings"
	"testing"
)

// The seed's workers keys (Task 027.a) load, map onto the others, and
// say which key is wrong.
func TestWorkersKeys(t *testing.T) {
	d := Default().Workers
	if d.Mode != "process" || d.Process.RestartDelayMs != 1000 || d.Process.MaxRestartDelayMs != 60000 || d.Process.MaxRestarts != 10 ||
		d.Process.KillTimeoutSeconds != 10 || d.KeepWorktrees || !d.Worktree.CleanupOnExit {
		t.Errorf("defaults: %+v", d)
	}
	c, err := Load(writeFile(t, "workers:\n  count: 4\n  process:\n    restartDelayMs: 500\n    maxRestartDelayMs: 8000\n    maxRestarts: 3\n    killTimeoutSeconds: 2\n    keepWorktrees: true\n  worktree:\n    baseDir: /tmp/wt\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	w := c.Workers
	if w.Count != 4 || w.Process.RestartDelayMs != 500 || w.Process.MaxRestartDelayMs != 8000 || w.Process.MaxRestarts != 3 || w.Process.KillTimeoutSeconds != 2 ||
		!w.KeepWorktrees || w.WorktreeDir != "/tmp/wt" {
		t.Errorf("loaded: %+v", w)
	}
	if c, err := Load(writeFile(t, "workers:\n  worktree:\n    cleanupOnExit: false\n"), nil); err != nil || !c.Workers.KeepWorktrees {
		t.Errorf("cleanupOnExit false: %v %+v", err, c.Workers)
	}
	for _, tc := range []struct{ body, want string }{
		{"workers:\n  mode: docker\n", "workers.mode"},
		{"workers:\n  count: -1\n", "workers.count"},
		{"workers:\n  process:\n    restartDelayMs: 0\n", "workers.process.restartDelayMs"},
		{"workers:\n  process:\n    restartDelayMs: 5000\n    maxRestartDelayMs: 1000\n", "workers.process.maxRestartDelayMs"},
		{"workers:\n  process:\n    maxRestarts: 0\n", "workers.process.maxRestarts"},
		{"workers:\n  process:\n    killTimeoutSeconds: 0\n", "workers.process.killTimeoutSeconds"},
		{"workers:\n  process:\n    restartDelay: 5\n", "restartDelay"},
		{"workers:\n  worktreeDir: /a\n  worktree:\n    baseDir: /b\n", "workers.worktree.baseDir"},
	} {
		if _, err := Load(writeFile(t, tc.body), nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: want an error naming %q, got %v", tc.body, tc.want, err)
		}
	}
}
