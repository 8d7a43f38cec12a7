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

// HandBack returns to the queue the command jobs left running by workers
// that are gone, so that another worker runs them again:
//
//   - the jobs last attempted by a worker for which gone returns true (the
//     supervisor saw that worker exit, or its supervisor is dead);
//   - the jobs running longer than their own timeout plus grace, wherever
//     they run: their worker would have stopped them by then, so it is
//     dead (a whole machine lost, on a shared PostgreSQL queue).
//
// The processes a gone worker's job left running on this machine are
// killed first (see proc.KillByEnv). River's own rescuer cannot do this:
// it does not know a job's timeout (the queue sets no River job timeout,
// since each job carries its own), so it leaves such jobs running for
// ever. A job handed back is available
// at once; its record keeps an error saying why. It returns the ids
// handed back. gone may be nil; grace <= 0 turns the second rule off.
func HandBack(ctx context.Context, q Queue, gone func(worker string) bool, grace time.Duration) ([]int64, error) {
	h, ok := q.(interface {
		handBack(context.Context, func(string) bool, time.Duration) ([]int64, error)
	})
	if !ok {
		return nil, fmt.Errorf("hand back jobs: the queue %T cannot", q)
	}
	return h.handBack(ctx, gone, grace)
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

func (s *store[TTx]) handBack(ctx context.Context, gone func(string) bool, grace time.Duration) ([]int64, error) {
	res, err := s.client.JobList(ctx, river.NewJobListParams().States(rivertype.JobStateRunning).Kinds(CommandArgs{}.Kind()).First(10_000))
	if err != nil {
		return nil, fmt.Errorf("hand back jobs: list the running ones: %w", err)
	}
	now := time.Now().UTC()
	p := riverdriver.JobRescueManyParams{}
	for _, row := range res.Jobs {
		why := ""
		if w := LastWorker(&Info{AttemptedBy: row.AttemptedBy}); gone != nil && w != "" && gone(w) {
			why = "its worker " + w + " is gone; handed back to the queue"
			// What the dead worker's job was still running (reparented
			// when the worker, or serve holding it, was killed) goes
			// first, so that the job never runs twice at once.
			proc.KillByEnv(map[string]string{"BARRHAWK_TASK_ID": strconv.FormatInt(row.ID, 10), "BARRHAWK_WORKER_ID": w})
		} else if grace > 0 && row.AttemptedAt != nil {
			var args CommandArgs
			_ = json.Unmarshal(row.EncodedArgs, &args)
			timeout := args.Timeout
			if timeout <= 0 {
				timeout = jobs.DefaultTimeout
			}
			if limit := timeout + grace; now.Sub(*row.AttemptedAt) > limit {
				why = fmt.Sprintf("still running %v after it started, past its timeout %v: its worker is gone; handed back to the queue", now.Sub(*row.AttemptedAt).Round(time.Second), timeout)
			}
		}
		if why == "" {
			continue
		}
		e, err := json.Marshal(rivertype.AttemptError{At: now, Attempt: row.Attempt, Error: why})
		if err != nil {
			return nil, fmt.Errorf("hand back job %d: %w", row.ID, err)
		}
		p.ID = append(p.ID, row.ID)
		p.Error = append(p.Error, e)
		p.FinalizedAt = append(p.FinalizedAt, nil)
		p.ScheduledAt = append(p.ScheduledAt, now)
		p.State = append(p.State, string(rivertype.JobStateAvailable))
	}
	if len(p.ID) == 0 {
		return nil, nil
	}
	if _, err := s.client.Driver().GetExecutor().JobRescueMany(ctx, &p); err != nil {
		return nil, fmt.Errorf("hand back jobs %v: %w", p.ID, err)
	}
	return p.ID, nil
}
