package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/barrhawk/barrhawk/internal/queue"
	"github.com/barrhawk/barrhawk/internal/record"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// JobPoll is how often JobWatch looks at the queue while a dashboard page
// follows it; JobIdlePoll while none does (finished jobs are still
// recorded, a little later).
const (
	JobPoll     = time.Second
	JobIdlePoll = 15 * time.Second
)

// jobWindow is how many of the newest jobs JobWatch follows.
const jobWindow = 200

// Job is a job of the queue as the dashboard shows it.
type Job struct {
	ID          int64           `json:"id"`
	Kind        string          `json:"kind"` // command or agent
	State       string          `json:"state"`
	Attempt     int             `json:"attempt"`
	CreatedAt   time.Time       `json:"createdAt"`
	FinalizedAt *time.Time      `json:"finalizedAt,omitempty"`
	Repo        string          `json:"repo"`
	Title       string          `json:"title"`
	Branch      string          `json:"branch,omitempty"`
	Worktree    string          `json:"worktree,omitempty"`
	PRURL       string          `json:"prUrl,omitempty"`
	Status      string          `json:"status,omitempty"` // the outcome's: succeeded, failed, completed, ...
	Log         string          `json:"log,omitempty"`
	Outcome     json.RawMessage `json:"outcome,omitempty"`
	Errors      []string        `json:"errors,omitempty"`
}

// JobWatch follows the queue: it tells subscribers of each job whose state
// changed, and records each finished job as a run of the record (once,
// whichever front saw it end).
type JobWatch struct {
	qs    *queue.Service
	store *record.Store
	log   *slog.Logger

	poll     sync.Mutex // one Poll at a time: the page's and the ticker's
	watchers atomic.Int32
	mu       sync.Mutex
	seen     map[int64]string // id → state
	subs     []func(Job)
	list     []Job
}

// NewJobWatch follows qs, recording finished jobs into store.
func NewJobWatch(qs *queue.Service, store *record.Store, log *slog.Logger) *JobWatch {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &JobWatch{qs: qs, store: store, log: log, seen: map[int64]string{}}
}

// Subscribe calls fn for every job whose state changes from now on; fn
// must not block.
func (w *JobWatch) Subscribe(fn func(Job)) {
	w.mu.Lock()
	w.subs = append(w.subs, fn)
	w.mu.Unlock()
}

// Jobs returns the newest jobs, newest first, as last seen.
func (w *JobWatch) Jobs() []Job {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Job(nil), w.list...)
}

// Watch says a page follows the jobs live until the returned function is
// called: the queue is looked at every JobPoll meanwhile.
func (w *JobWatch) Watch() (stop func()) {
	w.watchers.Add(1)
	return func() { w.watchers.Add(-1) }
}

// Run polls the queue until ctx ends: every JobPoll while a page watches,
// else every JobIdlePoll.
func (w *JobWatch) Run(ctx context.Context) {
	t := time.NewTicker(JobPoll)
	defer t.Stop()
	var last time.Time
	for {
		if w.watchers.Load() > 0 || time.Since(last) >= JobIdlePoll {
			last = time.Now()
			if err := w.Poll(ctx); err != nil && ctx.Err() == nil {
				w.log.Debug("dashboard: reading the queue", "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Poll looks at the queue once.
func (w *JobWatch) Poll(ctx context.Context) error {
	w.poll.Lock()
	defer w.poll.Unlock()
	q, err := w.qs.Queue(ctx)
	if err != nil {
		return err
	}
	infos, err := q.List(ctx, jobWindow)
	if err != nil {
		return err
	}
	list := make([]Job, 0, len(infos))
	var changed []Job
	seen := make(map[int64]string, len(infos)) // the window's only: older jobs leave it
	w.mu.Lock()
	for i := range infos {
		j := jobOf(&infos[i])
		list = append(list, j)
		seen[j.ID] = j.State
		if w.seen[j.ID] != j.State {
			changed = append(changed, j)
		}
	}
	w.list, w.seen = list, seen
	subs := w.subs
	w.mu.Unlock()
	for i := range infos {
		if queue.Final(infos[i].State) {
			if err := w.recordJob(ctx, &infos[i], &list[i]); err != nil {
				w.log.Warn("dashboard: recording a finished job", "job", infos[i].ID, "err", err)
			}
		}
	}
	for _, j := range changed {
		for _, fn := range subs {
			fn(j)
		}
	}
	return nil
}

// jobKey names a job's run in the record: the queue's file and the id.
func (w *JobWatch) jobKey(id int64) string {
	return fmt.Sprintf("job:%s:%d", w.qs.Config().DB, id)
}

// recordJob records a finished job as a run with one test, once.
func (w *JobWatch) recordJob(ctx context.Context, info *queue.Info, j *Job) error {
	if w.store == nil {
		return nil
	}
	key := w.jobKey(info.ID)
	if has, err := w.store.Has(ctx, key); err != nil || has {
		return err
	}
	end := info.CreatedAt
	if info.FinalizedAt != nil {
		end = *info.FinalizedAt
	}
	start := info.CreatedAt
	if info.AttemptedAt != nil {
		start = *info.AttemptedAt
	}
	t := &record.Test{Name: j.Title, Suite: "job " + j.Kind, Kind: record.KindJob, Time: start,
		DurationMs: float64(end.Sub(start).Milliseconds()), Status: record.StatusFailed}
	switch {
	case info.State == "cancelled":
		t.Status, t.Message = record.StatusSkipped, "cancelled"
	case j.Status == "succeeded" || j.Status == "completed":
		t.Status, t.Message = record.StatusPassed, j.Status
	default:
		t.Message = strings.TrimSpace(j.Status + " " + strings.Join(info.Errors, "; "))
		if o := info.Outcome; o != nil && o.Command != "" {
			t.Message = fmt.Sprintf("%s: %s exited %d (%s)", o.Status, o.Command, o.ExitCode, o.ExitStatus)
		}
	}
	if j.Log != "" {
		t.Evidence = append(t.Evidence, record.Evidence{Kind: "log", Name: filepath.Base(j.Log), Path: j.Log, MIMEType: "text/plain"})
	}
	run := record.Run{Kind: record.RunJob, Name: fmt.Sprintf("job %d: %s", info.ID, j.Title), Started: start, Ended: end, Source: fmt.Sprint(info.ID)}
	_, _, err := w.store.ImportRun(ctx, key, run, []*record.Test{t})
	return err
}

// jobOf is the dashboard's view of a queue job.
func jobOf(info *queue.Info) Job {
	j := Job{ID: info.ID, Kind: info.Kind, State: info.State, Attempt: info.Attempt, CreatedAt: info.CreatedAt, FinalizedAt: info.FinalizedAt, Errors: info.Errors}
	if a := info.Agent; a != nil {
		j.Kind, j.Repo = "agent", a.Repo
		j.Title = "agent " + filepath.Base(a.Repo) + ": " + tool.Shorten(a.Prompt, 80)
		j.Branch = "spawn/" + a.SpawnID
		if len(info.AgentOutcome) > 0 {
			j.Outcome = info.AgentOutcome
			found := map[string]string{}
			findKeys(info.AgentOutcome, found, "prUrl", "branch", "worktree", "status", "streamLog")
			j.PRURL, j.Worktree, j.Status, j.Log = found["prUrl"], found["worktree"], found["status"], found["streamLog"]
			if b := found["branch"]; b != "" {
				j.Branch = b
			}
		}
		return j
	}
	j.Kind, j.Repo = "command", info.Job.Repo
	cmds := append(append([]string(nil), info.Job.Build...), info.Job.Test...)
	j.Title = "job " + filepath.Base(info.Job.Repo) + ": " + tool.Shorten(strings.Join(cmds, " && "), 120)
	if o := info.Outcome; o != nil {
		j.Status, j.Worktree, j.Log = o.Status, o.Worktree, o.Log
		j.Outcome, _ = json.Marshal(o)
	}
	return j
}

// findKeys fills found with the first string value of each key anywhere in
// the JSON v.
func findKeys(v json.RawMessage, found map[string]string, keys ...string) {
	var x any
	if json.Unmarshal(v, &x) != nil {
		return
	}
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for _, k := range keys {
				if s, ok := x[k].(string); ok && s != "" && found[k] == "" {
					found[k] = s
				}
			}
			for _, v := range x {
				walk(v)
			}
		case []any:
			for _, v := range x {
				walk(v)
			}
		}
	}
	walk(x)
}
