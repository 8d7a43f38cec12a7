// Package queue is the worker pool's durable job queue, on River: SQLite by
// default (one file, nothing to install) and PostgreSQL for pools on
// several machines, through one code path generic over River's driver.
// Jobs of kind "command" (jobs.CommandJob) are worked by jobs.RunCommand;
// jobs of kind "agent" (jobs.AgentJob, a sub-agent's run) by package
// spawn, through the runner the process gives (Options.RunAgent).
package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/jobs"
	"github.com/barrhawk/barrhawk/internal/redact"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
	_ "modernc.org/sqlite" // database/sql driver "sqlite"
)

// CommandArgs are a command job's arguments as River stores them.
type CommandArgs struct {
	jobs.CommandJob
}

// Kind names the job kind.
func (CommandArgs) Kind() string { return "command" }

// AgentArgs are an agent job's arguments as River stores them.
type AgentArgs struct {
	jobs.AgentJob
}

// Kind names the job kind.
func (AgentArgs) Kind() string { return "agent" }

// Runner works one command job: id is the job's, for its task id. It
// calls ended with the outcome as soon as that is known, before it cleans
// up (jobs.RunEnv.Ended): the queue makes the outcome durable there.
type Runner func(ctx context.Context, id int64, job jobs.CommandJob, ended func(*jobs.Outcome)) (*jobs.Outcome, error)

// AgentRunner works one agent job and returns what to record as its
// outcome, and whether the run completed.
type AgentRunner func(ctx context.Context, id int64, job jobs.AgentJob) (outcome any, status string, err error)

// Options say how a queue works jobs.
type Options struct {
	// Workers is how many jobs run at once in this process (0: the queue
	// only inserts and reads).
	Workers int
	// Run works a command job.
	Run Runner
	// RunAgent works an agent job.
	RunAgent AgentRunner
	// ID names this worker in River's records.
	ID string
	// Journal is the directory where this worker journals how each job
	// ended before recording it in the queue (the jobs' log directory;
	// see Ending). Empty: no journal.
	Journal string
	// Log hears what could not be recorded; slog's default when nil.
	Log *slog.Logger
}

// Info is a job as task_status shows it.
type Info struct {
	ID          int64           `json:"id"`
	Kind        string          `json:"kind"`
	State       string          `json:"state"`
	Attempt     int             `json:"attempt"`
	MaxAttempts int             `json:"maxAttempts"`
	Priority    int             `json:"priority"`
	CreatedAt   time.Time       `json:"createdAt"`
	AttemptedAt *time.Time      `json:"attemptedAt,omitempty"`
	FinalizedAt *time.Time      `json:"finalizedAt,omitempty"`
	AttemptedBy []string        `json:"attemptedBy,omitempty"`
	Job         jobs.CommandJob `json:"job,omitzero"`
	Outcome     *jobs.Outcome   `json:"outcome,omitempty"`
	// Agent and AgentOutcome are an agent job's (spawn_status shows the
	// run itself).
	Agent        *jobs.AgentJob  `json:"agent,omitempty"`
	AgentOutcome json.RawMessage `json:"agentOutcome,omitempty"`
	Errors       []string        `json:"errors,omitempty"`
}

// Queue is the queue, whatever its database.
type Queue interface {
	// Submit inserts a command job and returns its id.
	Submit(ctx context.Context, job jobs.CommandJob) (int64, error)
	// SubmitAgent inserts an agent job (one attempt: a run is not
	// repeated behind the user's back) and returns its id.
	SubmitAgent(ctx context.Context, job jobs.AgentJob) (int64, error)
	Get(ctx context.Context, id int64) (*Info, error)
	// List returns the newest jobs first, at most limit (1 to MaxList).
	List(ctx context.Context, limit int) ([]Info, error)
	// Cancel cancels a job: a queued one never runs, a running one is
	// stopped.
	Cancel(ctx context.Context, id int64) (*Info, error)
	// Start works jobs (with Options.Workers > 0) until Stop.
	Start(ctx context.Context) error
	// Stop waits for running jobs to end (drains) and stops working.
	Stop(ctx context.Context) error
	Close() error
}

// DefaultPath is the SQLite queue's file under the state directory.
func DefaultPath(home string) string { return filepath.Join(home, "queue.db") }

// Open opens the queue at dsn: a postgres:// URL, or an SQLite file path
// ("" is an error: callers give DefaultPath). River's tables are made or
// migrated on open.
func Open(ctx context.Context, dsn string, o Options) (Queue, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		pool, err := pgxpool.New(ctx, dsn)
		if err != nil {
			return nil, fmt.Errorf("open the queue on PostgreSQL: %w", redactURL(err))
		}
		if err := pool.Ping(ctx); err != nil {
			pool.Close()
			return nil, fmt.Errorf("reach the queue's PostgreSQL: %w", redactURL(err))
		}
		q, err := open(ctx, riverpgxv5.New(pool), o, func() error { pool.Close(); return nil })
		if err != nil {
			pool.Close()
		}
		return q, err
	}
	if dsn == "" {
		return nil, errors.New("no queue database: give an SQLite file or a postgres:// URL")
	}
	if err := os.MkdirAll(filepath.Dir(dsn), 0o755); err != nil {
		return nil, fmt.Errorf("the queue's directory: %w", err)
	}
	v := url.Values{}
	v.Add("_pragma", "journal_mode(WAL)")
	v.Add("_pragma", "busy_timeout(10000)")
	v.Add("_pragma", "synchronous(NORMAL)")
	db, err := sql.Open("sqlite", "file:"+dsn+"?"+v.Encode())
	if err != nil {
		return nil, fmt.Errorf("open the queue %s: %w", dsn, err)
	}
	// SQLite writes one at a time; River works in parallel: one connection
	// (River's advice for this driver), several processes sharing the file
	// through WAL and the busy timeout.
	db.SetMaxOpenConns(1)
	// Processes opening the file together would migrate it together: one
	// at a time.
	unlock, err := lockFile(dsn + ".lock")
	if err != nil {
		db.Close()
		return nil, err
	}
	q, err := open(ctx, riversqlite.New(db), o, db.Close)
	unlock()
	if err != nil {
		db.Close()
	}
	return q, err
}

// redactURL masks the password of a queue URL in err.
func redactURL(err error) error { return errors.New(redact.URLs(err.Error())) }

// store is the queue on one River driver.
type store[TTx any] struct {
	client  *river.Client[TTx]
	closeDB func() error
	working bool
	// id, journal and log are Options'.
	id, journal string
	log         *slog.Logger
}

func open[TTx any](ctx context.Context, driver riverdriver.Driver[TTx], o Options, closeDB func() error) (Queue, error) {
	mig, err := rivermigrate.New(driver, nil)
	if err != nil {
		return nil, fmt.Errorf("the queue's migrations: %w", err)
	}
	if _, err := mig.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return nil, fmt.Errorf("migrate the queue's tables: %w", err)
	}
	cfg := &river.Config{
		ID:                   o.ID,
		FetchCooldown:        20 * time.Millisecond,
		FetchPollInterval:    100 * time.Millisecond,
		RescueStuckJobsAfter: 5 * time.Minute,
		JobTimeout:           -1, // the job's own timeout (jobs.RunCommand) applies
	}
	st := &store[TTx]{closeDB: closeDB, working: o.Workers > 0, id: o.ID, journal: o.Journal, log: o.Log}
	if st.log == nil {
		st.log = slog.Default()
	}
	if o.Workers > 0 {
		if o.Run == nil {
			return nil, errors.New("a queue that works jobs needs a runner")
		}
		workers := river.NewWorkers()
		river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, j *river.Job[CommandArgs]) error {
			return st.work(ctx, j.JobRow, func(ctx context.Context, end endFunc) (any, string, error) {
				out, err := o.Run(ctx, j.ID, j.Args.CommandJob, func(out *jobs.Outcome) { end(commandEnding(out, nil)) })
				return commandEnding(out, err)
			})
		}))
		if o.RunAgent != nil {
			river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, j *river.Job[AgentArgs]) error {
				return st.work(ctx, j.JobRow, func(ctx context.Context, _ endFunc) (any, string, error) {
					out, status, err := o.RunAgent(ctx, j.ID, j.Args.AgentJob)
					if err == nil && status != "completed" && status != "cancelled" {
						err = fmt.Errorf("the agent's run ended %s", status)
					}
					return out, status, err
				})
			}))
		}
		cfg.Workers = workers
		cfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: o.Workers}}
	}
	client, err := river.NewClient(driver, cfg)
	if err != nil {
		return nil, fmt.Errorf("the queue's client: %w", err)
	}
	st.client = client
	return st, nil
}

// commandEnding is a command job's outcome as the queue records it: the
// outcome, its status, and an error when it did not succeed.
func commandEnding(out *jobs.Outcome, err error) (any, string, error) {
	if out == nil {
		return nil, "", err
	}
	if err == nil && out.Status != "succeeded" && out.Status != "cancelled" {
		err = fmt.Errorf("%s in %s: %s (%s)", out.Status, out.Phase, out.Command, out.ExitStatus)
	}
	return out, out.Status, err
}

// An endFunc records how a job ended, as soon as that is known.
type endFunc func(outcome any, status string, err error)

// work runs one job: it watches for the job's cancel, makes how the job
// ended durable as soon as run says so through end (or returns, if it
// never did), and tells River the same (cancelled, failed with run's
// error, or done). The final outcome, which may say more (a cleanup that
// failed), is River's to add to the job's output.
func (s *store[TTx]) work(ctx context.Context, row *rivertype.JobRow, run func(context.Context, endFunc) (outcome any, status string, err error)) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go s.watchCancel(ctx, row.ID, cancel)
	// Cancelled at any step (a worktree being made included), or ended
	// so by the runner.
	cancelled := func(status string) bool { return errors.Is(context.Cause(ctx), errCancelled) || status == "cancelled" }
	var once sync.Once
	end := func(out any, status string, err error) {
		once.Do(func() {
			s.end(context.WithoutCancel(ctx), row, newEnding(row, s.id, out, status, err, cancelled(status)))
		})
	}
	out, status, err := run(ctx, end)
	end(out, status, err)
	if out != nil {
		if rerr := river.RecordOutput(ctx, out); rerr != nil {
			return rerr
		}
	}
	if cancelled(status) {
		return river.JobCancel(errCancelled)
	}
	return err
}

// end makes e durable: journaled, then, unless the job is to be retried,
// recorded in the queue at once (River would record it later, in a batch,
// when this worker may already be gone). A retry is left to River: the
// job's row must not be touched once another worker may run it.
func (s *store[TTx]) end(ctx context.Context, row *rivertype.JobRow, e *Ending) {
	if s.journal != "" {
		if err := writeJournal(s.journal, e); err != nil {
			s.log.Warn("could not journal how a job ended", "job", row.ID, "err", err)
		}
	}
	if e.retries(row) {
		return
	}
	if err := setState(ctx, s.client.Driver().GetExecutor(), []*rivertype.JobRow{row}, []*Ending{e}); err != nil {
		s.log.Warn("could not record how a job ended at once; River records it when the worker returns", "job", row.ID, "err", err)
	}
}

// errCancelled is why a cancelled job's context ended.
var errCancelled = errors.New("cancelled")

// watchCancel stops a running job that was cancelled: River marks the row
// (cancel_attempted_at) and tells the worker through LISTEN/NOTIFY, which
// SQLite lacks, so the worker looks for the mark itself.
func (s *store[TTx]) watchCancel(ctx context.Context, id int64, cancel context.CancelCauseFunc) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		row, err := s.client.JobGet(ctx, id)
		if err == nil && strings.Contains(string(row.Metadata), `"cancel_attempted_at"`) {
			cancel(errCancelled)
			return
		}
	}
}

func (s *store[TTx]) Submit(ctx context.Context, job jobs.CommandJob) (int64, error) {
	if job.Repo == "" {
		return 0, errors.New("a command job needs repo: the repository to check out")
	}
	if len(job.Build)+len(job.Test) == 0 {
		return 0, errors.New("a command job needs a build or a test command")
	}
	if job.Retries < 0 || job.Retries > 25 {
		return 0, fmt.Errorf("retries %d: use 0 to 25", job.Retries)
	}
	for _, g := range job.Artifacts {
		// Refused here, not found empty after the job ran.
		if err := jobs.CheckArtifactGlob(g); err != nil {
			return 0, err
		}
	}
	prio := job.Priority
	if prio == 0 {
		prio = 2
	}
	if prio < 1 || prio > 4 {
		return 0, fmt.Errorf("priority %d: use 1 (first) to 4 (last)", job.Priority)
	}
	res, err := s.client.Insert(ctx, CommandArgs{job}, &river.InsertOpts{MaxAttempts: job.Retries + 1, Priority: prio})
	if err != nil {
		return 0, fmt.Errorf("submit the job: %w", err)
	}
	return res.Job.ID, nil
}

func (s *store[TTx]) SubmitAgent(ctx context.Context, job jobs.AgentJob) (int64, error) {
	if job.SpawnID == "" || job.Prompt == "" || job.Repo == "" {
		return 0, errors.New("an agent job needs its spawn id, prompt and repository")
	}
	res, err := s.client.Insert(ctx, AgentArgs{job}, &river.InsertOpts{MaxAttempts: 1, Priority: 2})
	if err != nil {
		return 0, fmt.Errorf("submit the agent job: %w", err)
	}
	return res.Job.ID, nil
}

func (s *store[TTx]) Get(ctx context.Context, id int64) (*Info, error) {
	row, err := s.client.JobGet(ctx, id)
	if errors.Is(err, river.ErrNotFound) {
		return nil, fmt.Errorf("no job %d", id)
	}
	if err != nil {
		return nil, err
	}
	return info(row), nil
}

// MaxList is the most jobs one List returns.
const MaxList = 10_000

// CheckListLimit says what is wrong with a List limit.
func CheckListLimit(limit int) error {
	if limit < 1 || limit > MaxList {
		return fmt.Errorf("limit %d: give 1 to %d (the newest jobs first)", limit, MaxList)
	}
	return nil
}

func (s *store[TTx]) List(ctx context.Context, limit int) ([]Info, error) {
	if err := CheckListLimit(limit); err != nil {
		return nil, err
	}
	res, err := s.client.JobList(ctx, river.NewJobListParams().First(limit).OrderBy(river.JobListOrderByID, river.SortOrderDesc))
	if err != nil {
		return nil, err
	}
	out := make([]Info, 0, len(res.Jobs))
	for _, r := range res.Jobs {
		out = append(out, *info(r))
	}
	return out, nil
}

func (s *store[TTx]) Cancel(ctx context.Context, id int64) (*Info, error) {
	row, err := s.client.JobCancel(ctx, id)
	if errors.Is(err, river.ErrNotFound) {
		return nil, fmt.Errorf("no job %d", id)
	}
	if err != nil {
		return nil, err
	}
	return info(row), nil
}

func (s *store[TTx]) Start(ctx context.Context) error {
	if !s.working {
		return nil
	}
	return s.client.Start(ctx)
}

func (s *store[TTx]) Stop(ctx context.Context) error {
	if !s.working {
		return nil
	}
	return s.client.Stop(ctx)
}

func (s *store[TTx]) Close() error { return s.closeDB() }

func info(r *rivertype.JobRow) *Info {
	in := &Info{ID: r.ID, Kind: r.Kind, State: string(r.State), Attempt: r.Attempt, MaxAttempts: r.MaxAttempts, Priority: r.Priority,
		CreatedAt: r.CreatedAt, AttemptedAt: r.AttemptedAt, FinalizedAt: r.FinalizedAt, AttemptedBy: r.AttemptedBy}
	switch r.Kind {
	case AgentArgs{}.Kind():
		var args AgentArgs
		_ = json.Unmarshal(r.EncodedArgs, &args)
		in.Agent = &args.AgentJob
		if out := r.Output(); len(out) > 0 {
			in.AgentOutcome = json.RawMessage(out)
		}
	default:
		var args CommandArgs
		_ = json.Unmarshal(r.EncodedArgs, &args)
		in.Job = args.CommandJob
		if out := r.Output(); len(out) > 0 {
			var o jobs.Outcome
			if json.Unmarshal(out, &o) == nil {
				in.Outcome = &o
			}
		}
	}
	for _, e := range r.Errors {
		in.Errors = append(in.Errors, fmt.Sprintf("attempt %d: %s", e.Attempt, e.Error))
	}
	return in
}
