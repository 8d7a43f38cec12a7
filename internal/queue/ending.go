package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// An Ending is how one attempt of a job ended, as the worker that ran it
// records it: first in its journal (a file beside the job's log, one
// write), then in the queue, before the worker reports the job done or
// takes another. River completes jobs in batches, after the worker has
// moved on; a worker killed in between left a finished job "running", and
// the hand-back ran it again. Now the queue holds the outcome before the
// worker moves on, and a worker killed between the journal and the queue
// leaves the journal, from which HandBack records the outcome instead of
// running the job again.
type Ending struct {
	Job     int64  `json:"job"`
	Worker  string `json:"worker"`
	Attempt int    `json:"attempt"`
	// Status is the runner's (succeeded, failed, timeout, cancelled for a
	// command; completed, error, ... for an agent).
	Status string `json:"status,omitempty"`
	// Error says why the attempt failed; empty when it succeeded.
	Error     string `json:"error,omitempty"`
	Cancelled bool   `json:"cancelled,omitempty"`
	// Output is the outcome recorded as the job's output.
	Output json.RawMessage `json:"output,omitempty"`
	At     time.Time       `json:"at"`
}

// newEnding is how the attempt row ran on worker ended.
func newEnding(row *rivertype.JobRow, worker string, out any, status string, err error, cancelled bool) *Ending {
	e := &Ending{Job: row.ID, Worker: worker, Attempt: row.Attempt, Status: status, Cancelled: cancelled, At: time.Now().UTC()}
	if err != nil {
		e.Error = err.Error()
	}
	if out != nil {
		if b, merr := json.Marshal(out); merr == nil {
			e.Output = b
		}
	}
	return e
}

// retries says whether the ending puts the job back for another attempt
// (a failure with attempts left), as River's executor decides it.
func (e *Ending) retries(row *rivertype.JobRow) bool {
	return !e.Cancelled && e.Error != "" && row.Attempt < row.MaxAttempts
}

// params are the ending as River's state change of the running row.
func (e *Ending) params(row *rivertype.JobRow) (*riverdriver.JobSetStateIfRunningParams, error) {
	var meta []byte
	if len(e.Output) > 0 {
		var err error
		if meta, err = json.Marshal(map[string]json.RawMessage{rivertype.MetadataKeyOutput: e.Output}); err != nil {
			return nil, err
		}
	}
	why := e.Error
	if e.Cancelled {
		why = errCancelled.Error()
	}
	errData, err := json.Marshal(rivertype.AttemptError{At: e.At, Attempt: row.Attempt, Error: why})
	if err != nil {
		return nil, err
	}
	switch {
	case e.Cancelled:
		return riverdriver.JobSetStateCancelled(row.ID, e.At, errData, meta), nil
	case e.Error == "":
		return riverdriver.JobSetStateCompleted(row.ID, e.At, meta), nil
	case e.retries(row):
		return riverdriver.JobSetStateErrorRetryable(row.ID, (&river.DefaultClientRetryPolicy{}).NextRetry(row), errData, meta), nil
	default:
		return riverdriver.JobSetStateDiscarded(row.ID, e.At, errData, meta), nil
	}
}

// setState records endings of running rows in the queue in one statement;
// rows no longer running are left as they are.
func setState(ctx context.Context, exec riverdriver.Executor, rows []*rivertype.JobRow, endings []*Ending) error {
	p := &riverdriver.JobSetStateIfRunningManyParams{}
	for i, row := range rows {
		one, err := endings[i].params(row)
		if err != nil {
			return fmt.Errorf("record how job %d ended: %w", row.ID, err)
		}
		p.ID = append(p.ID, one.ID)
		p.Attempt = append(p.Attempt, one.Attempt)
		p.ErrData = append(p.ErrData, one.ErrData)
		p.FinalizedAt = append(p.FinalizedAt, one.FinalizedAt)
		p.MetadataDoMerge = append(p.MetadataDoMerge, one.MetadataDoMerge)
		p.MetadataUpdates = append(p.MetadataUpdates, one.MetadataUpdates)
		p.ScheduledAt = append(p.ScheduledAt, one.ScheduledAt)
		p.State = append(p.State, one.State)
	}
	if len(p.ID) == 0 {
		return nil
	}
	if _, err := exec.JobSetStateIfRunningMany(ctx, p); err != nil {
		return fmt.Errorf("record how jobs %v ended: %w", p.ID, err)
	}
	return nil
}

// JournalPath is the file in dir (the jobs' log directory) where the
// worker of job id journals how its latest attempt ended.
func JournalPath(dir string, id int64) string {
	return filepath.Join(dir, strconv.FormatInt(id, 10)+".end.json")
}

// writeJournal journals e in dir, in one write: a worker killed in the
// middle leaves a file that does not parse, read as no ending.
func writeJournal(dir string, e *Ending) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("journal how job %d ended: %w", e.Job, err)
	}
	if err := os.WriteFile(JournalPath(dir, e.Job), b, 0o644); err != nil {
		return fmt.Errorf("journal how job %d ended: %w", e.Job, err)
	}
	return nil
}

// readJournal is the ending journaled in dir for the running attempt row
// (by the worker that last attempted it), or nil.
func readJournal(dir string, row *rivertype.JobRow) *Ending {
	if dir == "" || len(row.AttemptedBy) == 0 {
		return nil
	}
	b, err := os.ReadFile(JournalPath(dir, row.ID))
	if err != nil {
		return nil
	}
	var e Ending
	if json.Unmarshal(b, &e) != nil || e.Job != row.ID || e.Attempt != row.Attempt || e.Worker != row.AttemptedBy[len(row.AttemptedBy)-1] {
		return nil
	}
	return &e
}
