package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/barrhawk/barrhawk/internal/jobs"
	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// Recovery says how HandBack deals with the jobs of gone workers.
type Recovery struct {
	// Gone says whether a worker (its id as River records it) is gone: the
	// supervisor saw it exit, or its supervisor is dead. Nil: none is.
	Gone func(worker string) bool
	// Grace: a command job running this long past its own timeout is taken
	// for one whose worker is gone, wherever it ran (a whole machine lost,
	// on a shared PostgreSQL queue). 0 turns this rule off.
	Grace time.Duration
	// Journal is the directory where this machine's workers journal how
	// their jobs ended (see Ending): the jobs' log directory.
	Journal string
	// EndAgent is told of an agent job whose worker is gone, once its
	// processes are killed, and returns why the job ends (what its run had
	// done, what it had pushed). Nil: a plain reason.
	EndAgent func(ctx context.Context, id int64, job jobs.AgentJob) string
}

// Recovered is what HandBack did, job ids by what became of them.
type Recovered struct {
	// HandedBack are available again: their worker died before they
	// ended, and another worker runs them.
	HandedBack []int64
	// Ended had ended before their worker died, which journaled how:
	// recorded so, never run again.
	Ended []int64
	// Agents are agent jobs ended as failed: a sub-agent's run is never
	// repeated behind the user's back (it costs tokens, and one whose
	// integration began may have pushed a branch or opened a pull request).
	Agents []int64
}

// HandBack deals with the jobs left running by workers that are gone (see
// Recovery): one whose worker journaled how it ended is recorded so; an
// agent job is ended; any other command job goes back to the queue, its
// record keeping an error saying why, and runs again elsewhere. The
// processes a gone worker's job left running on this machine are killed
// first (see proc.KillByEnv), so that a job never runs twice at once.
// River's own rescuer cannot do this: it does not know a job's timeout
// (the queue sets no River job timeout, since each job carries its own),
// so it leaves such jobs running for ever.
func HandBack(ctx context.Context, q Queue, r Recovery) (Recovered, error) {
	h, ok := q.(interface {
		handBack(context.Context, Recovery) (Recovered, error)
	})
	if !ok {
		return Recovered{}, fmt.Errorf("hand back jobs: the queue %T cannot", q)
	}
	return h.handBack(ctx, r)
}

// EndedBeforeCancel says why a cancel did nothing: the job, as Cancel
// returned it, had already completed or been discarded. A job already
// cancelled is no error (a second cancel asks for what is so).
func EndedBeforeCancel(in *Info) error {
	if in.State == "completed" || in.State == "discarded" {
		return fmt.Errorf("job %d already ended (%s) before the cancel: nothing to stop", in.ID, in.State)
	}
	return nil
}

// LastWorker is the worker that last attempted a job ("" if none has).
func LastWorker(in *Info) string {
	if len(in.AttemptedBy) == 0 {
		return ""
	}
	return in.AttemptedBy[len(in.AttemptedBy)-1]
}

func (s *store[TTx]) handBack(ctx context.Context, r Recovery) (Recovered, error) {
	var done Recovered
	res, err := s.client.JobList(ctx, river.NewJobListParams().States(rivertype.JobStateRunning).First(MaxList))
	if err != nil {
		return done, fmt.Errorf("hand back jobs: list the running ones: %w", err)
	}
	now := time.Now().UTC()
	var endedRows []*rivertype.JobRow
	var endings []*Ending
	rescue := riverdriver.JobRescueManyParams{}
	add := func(row *rivertype.JobRow, why string, state rivertype.JobState) error {
		e, err := json.Marshal(rivertype.AttemptError{At: now, Attempt: row.Attempt, Error: why})
		if err != nil {
			return fmt.Errorf("hand back job %d: %w", row.ID, err)
		}
		var finalized *time.Time
		if state != rivertype.JobStateAvailable {
			finalized = &now
		}
		rescue.ID = append(rescue.ID, row.ID)
		rescue.Error = append(rescue.Error, e)
		rescue.FinalizedAt = append(rescue.FinalizedAt, finalized)
		// Its place in the queue is kept: it runs before what was
		// submitted after it.
		rescue.ScheduledAt = append(rescue.ScheduledAt, row.ScheduledAt)
		rescue.State = append(rescue.State, string(state))
		return nil
	}
	for _, row := range res.Jobs {
		agent := row.Kind == AgentArgs{}.Kind()
		why := ""
		if w := LastWorker(&Info{AttemptedBy: row.AttemptedBy}); r.Gone != nil && w != "" && r.Gone(w) {
			why = "its worker " + w + " is gone"
			// What the dead worker's job was still running (reparented
			// when the worker, or serve holding it, was killed) goes
			// first, so that the job never runs twice at once.
			proc.KillByEnv(map[string]string{"BARRHAWK_TASK_ID": strconv.FormatInt(row.ID, 10), "BARRHAWK_WORKER_ID": w})
		} else if r.Grace > 0 && row.AttemptedAt != nil && !agent {
			var args CommandArgs
			_ = json.Unmarshal(row.EncodedArgs, &args)
			timeout := args.Timeout
			if timeout <= 0 {
				timeout = jobs.DefaultTimeout
			}
			if limit := timeout + r.Grace; now.Sub(*row.AttemptedAt) > limit {
				why = fmt.Sprintf("still running %v after it started, past its timeout %v: its worker is gone", now.Sub(*row.AttemptedAt).Round(time.Second), timeout)
			}
		}
		if why == "" {
			continue
		}
		if e := readJournal(r.Journal, row); e != nil {
			endedRows, endings = append(endedRows, row), append(endings, e)
			done.Ended = append(done.Ended, row.ID)
			continue
		}
		if agent {
			reason := why + "; a sub-agent's run is not repeated behind your back"
			if r.EndAgent != nil {
				var args AgentArgs
				_ = json.Unmarshal(row.EncodedArgs, &args)
				reason = why + "; " + r.EndAgent(ctx, row.ID, args.AgentJob)
			}
			if err := add(row, reason, rivertype.JobStateDiscarded); err != nil {
				return done, err
			}
			done.Agents = append(done.Agents, row.ID)
			continue
		}
		if err := add(row, why+"; handed back to the queue", rivertype.JobStateAvailable); err != nil {
			return done, err
		}
		done.HandedBack = append(done.HandedBack, row.ID)
	}
	exec := s.client.Driver().GetExecutor()
	if err := setState(ctx, exec, endedRows, endings); err != nil {
		return done, fmt.Errorf("hand back jobs: %w", err)
	}
	if len(rescue.ID) > 0 {
		if _, err := exec.JobRescueMany(ctx, &rescue); err != nil {
			return done, fmt.Errorf("hand back jobs %v: %w", rescue.ID, err)
		}
	}
	return done, nil
}
