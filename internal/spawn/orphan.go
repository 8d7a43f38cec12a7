package spawn

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/barrhawk/barrhawk/internal/jobs"
	"github.com/barrhawk/barrhawk/internal/proc"
)

// EndOrphan ends the run of agent job jobID, whose worker died before the
// run ended. The queue calls it and never runs the job again: a run costs
// tokens, and one whose integration began may have pushed a branch or
// opened a pull request. The agent's processes are killed, the spawn's
// status says done with why, and the reason returned (recorded with the
// job) says how far the run got and what it pushed.
func (s *Service) EndOrphan(_ context.Context, jobID int64, job jobs.AgentJob) string {
	runs := s.runIDs(job.SpawnID)
	for _, id := range runs {
		proc.KillByEnv(map[string]string{"BARRHAWK_SPAWN_ID": id})
	}
	st, err := s.read(job.SpawnID)
	if err != nil {
		return fmt.Sprintf("spawn %s: %v", job.SpawnID, err)
	}
	if st.Phase == "done" {
		return fmt.Sprintf("its run had ended (%s) before the worker died", st.Status)
	}
	last := job.SpawnID
	if len(runs) > 0 {
		last = runs[len(runs)-1]
	}
	reason := orphanReason(st, "spawn/"+last, filepath.Join(job.Repo, ".barrhawk", "worktrees", "spawn-"+last))
	st.JobID = jobID
	st.Phase, st.Status, st.Error = "done", "error", reason
	_ = s.save(st)
	return reason
}

// runIDs are the ids of a spawn's attempts, in order: id, then id-r1, ...
// (see Spawn), as their directories show them.
func (s *Service) runIDs(id string) []string {
	dirs, _ := filepath.Glob(filepath.Join(s.cfg.Dir, id, "attempt-*"))
	var ns []int
	for _, d := range dirs {
		if n, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "attempt-")); err == nil && n >= 1 {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	out := []string{}
	for _, n := range ns {
		out = append(out, runID(id, n))
	}
	if len(out) == 0 {
		out = []string{id}
	}
	return out
}

// runID is the id of a spawn's attempt n (from 1).
func runID(id string, n int) string {
	if n == 1 {
		return id
	}
	return fmt.Sprintf("%s-r%d", id, n-1)
}

// orphanReason says how far a run got when its worker died, from its
// status as last saved: which branch and worktree hold the agent's work,
// and, once integration began, what was pushed.
func orphanReason(st *Status, branch, worktree string) string {
	const notAgain = "not run again (a sub-agent's run is not repeated behind your back; spawn again to retry)"
	if st.Phase != "integrating" {
		return fmt.Sprintf("its worker died while the agent ran (phase %s); %s; what the agent did is in %s on branch %s; nothing was pushed", st.Phase, notAgain, worktree, branch)
	}
	in := st.Integration
	var pushed string
	switch {
	case in == nil:
		pushed = "it died while checking " + branch + " against its base: nothing was pushed"
	case in.PRURL != "":
		pushed = fmt.Sprintf("%s was pushed to origin and pull request #%d opened: %s", branch, in.PRNumber, in.PRURL)
	case in.Pushed:
		pushed = branch + " was pushed to origin; no pull request was recorded (one may have been opened: look for one from " + branch + ")"
	case in.Step == stepPushing:
		pushed = "it died while pushing " + branch + " to origin: the push may have landed (git ls-remote origin " + branch + " tells); no pull request was opened"
	default:
		pushed = "nothing was pushed"
	}
	return fmt.Sprintf("its worker died during integration; %s; %s", notAgain, pushed)
}
