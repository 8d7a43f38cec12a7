package queue

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/barrhawk/barrhawk/internal/jobs"
	"github.com/barrhawk/barrhawk/internal/worktree"
)

// Shared reports whether dsn is a queue that pools on several machines
// share (PostgreSQL), whose workers may have repositories this machine
// has not.
func Shared(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// CheckRepo makes the job's repository the absolute top of a git
// repository (a relative path is taken from the working directory) and
// checks that its ref names a commit, so that a mistake fails the submit
// rather than the job. A repository that is not on this machine is
// accepted only on a shared queue. The errors name the arguments as
// prefix+"repo" and prefix+"ref" ("--" for flags, "" for tool arguments).
func CheckRepo(ctx context.Context, j *jobs.CommandJob, shared bool, prefix string) error {
	if j.Repo == "" {
		return fmt.Errorf("%srepo: give the repository to check out", prefix)
	}
	abs, err := filepath.Abs(j.Repo)
	if err != nil {
		return fmt.Errorf("%srepo %q: %w", prefix, j.Repo, err)
	}
	if _, err := os.Stat(abs); err != nil {
		if shared {
			return nil
		}
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%srepo %q: no such directory", prefix, j.Repo)
		}
		return fmt.Errorf("%srepo %q: %w", prefix, j.Repo, err)
	}
	m, err := worktree.New(ctx, abs, "")
	if err != nil {
		return fmt.Errorf("%srepo: %w", prefix, err)
	}
	j.Repo = m.Repo()
	ref := j.Ref
	if ref == "" {
		ref = "HEAD"
	}
	if err := exec.CommandContext(ctx, "git", "-C", j.Repo, "rev-parse", "--verify", "--quiet", ref+"^{commit}").Run(); err != nil {
		return fmt.Errorf("%sref %q names no commit in %s", prefix, ref, j.Repo)
	}
	return nil
}
