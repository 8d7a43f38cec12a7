package queue

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/barrhawk/barrhawk/internal/worktree"
)

// CleanWorktrees prunes the worktrees of the repositories the queue's
// command jobs use and removes the job worktrees (task-<id>) of no pending
// or running job, among the jobs only accepts (nil: all). Worktrees of
// other kinds (sub-agents') are left alone; with keep (workers'
// keepWorktrees), worktrees are only pruned. A worker killed after its
// job's end was recorded, before its cleanup, leaves such a worktree.
func CleanWorktrees(ctx context.Context, log *slog.Logger, q Queue, dir string, keep bool, only func(*Info) bool) {
	list, err := q.List(ctx, MaxList)
	if err != nil {
		log.Error("could not list the jobs to clean their worktrees", "err", err)
		return
	}
	// live: the worktrees of pending or running jobs; ended: those of
	// ended jobs only accepts.
	live, ended := map[string]bool{}, map[string]bool{}
	var repos []string
	for i := range list {
		in := &list[i]
		name := "task-" + strconv.FormatInt(in.ID, 10)
		switch in.State {
		case "completed", "discarded", "cancelled":
			ended[name] = only == nil || only(in)
		default:
			live[name] = true
		}
		if in.Job.Repo != "" && !slices.Contains(repos, in.Job.Repo) && (only == nil || only(in)) {
			repos = append(repos, in.Job.Repo)
		}
	}
	// Without only, a job worktree of no job at all goes too.
	keepIt := func(name string) bool {
		if !strings.HasPrefix(name, "task-") || live[name] {
			return true
		}
		return only != nil && !ended[name]
	}
	for _, repo := range repos {
		if _, err := os.Stat(repo); err != nil {
			continue // on another machine, or gone
		}
		m, err := worktree.New(ctx, repo, dir)
		if err != nil {
			log.Warn("could not clean the worktrees of a repository", "repo", repo, "err", err)
			continue
		}
		if keep {
			if err := m.Prune(ctx); err != nil {
				log.Warn("could not prune worktrees", "repo", repo, "err", err)
			}
			continue
		}
		removed, err := m.RemoveOrphans(ctx, keepIt)
		if len(removed) > 0 {
			log.Info("removed orphaned worktrees", "repo", m.Repo(), "worktrees", removed)
		}
		if err != nil {
			log.Warn("could not remove every orphaned worktree", "repo", m.Repo(), "err", err)
		}
	}
}
