package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/jobs"
)

// Config is the worker pool's configuration (config section workers).
type Config struct {
	// Count is how many jobs this process runs at once (0: none; the queue
	// is still there to submit to and read).
	Count int
	// DB is the queue: an SQLite file or a postgres:// URL.
	DB string
	// WorktreeDir, LogDir, ArtifactDir, TempDir: where jobs work and what
	// they leave.
	WorktreeDir, LogDir, ArtifactDir, TempDir string
	KeepWorktrees                             bool
	EnvAllow                                  []string
	ConfigPath                                string
	WorkerID                                  string
	// RunAgent works agent jobs (package spawn's runner); without it, this
	// process works command jobs only.
	RunAgent AgentRunner
	// EndAgent ends the run of an agent job whose worker died (package
	// spawn's; see Recovery).
	EndAgent func(ctx context.Context, id int64, job jobs.AgentJob) string
	// Log hears of jobs handed back; slog's default when nil.
	Log *slog.Logger
}

// Service is the queue as the front and the CLI use it: opened on first
// use, working jobs when Count > 0 once started.
type Service struct {
	cfg     Config
	mu      sync.Mutex
	q       Queue
	started bool
	// stopRecovery ends the hand-back of dead workers' jobs.
	stopRecovery context.CancelFunc
	running      sync.Map // job id → start time
}

// NewService returns the service of cfg.
func NewService(cfg Config) *Service {
	if cfg.WorkerID == "" {
		cfg.WorkerID = HostName() + "-" + strconv.Itoa(os.Getpid())
	}
	return &Service{cfg: cfg}
}

// Queue opens the queue on first use.
func (s *Service) Queue(ctx context.Context) (Queue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.q != nil {
		return s.q, nil
	}
	var runAgent AgentRunner
	if s.cfg.RunAgent != nil {
		runAgent = s.runAgent
	}
	q, err := Open(ctx, s.cfg.DB, Options{Workers: s.cfg.Count, Run: s.run, RunAgent: runAgent, ID: s.cfg.WorkerID, Journal: s.cfg.LogDir, Log: s.cfg.Log})
	if err != nil {
		return nil, err
	}
	s.q = q
	return q, nil
}

// run works one job for the queue.
func (s *Service) run(ctx context.Context, id int64, job jobs.CommandJob, ended func(*jobs.Outcome)) (*jobs.Outcome, error) {
	s.running.Store(id, time.Now())
	defer s.running.Delete(id)
	return jobs.RunCommand(ctx, job, jobs.RunEnv{TaskID: strconv.FormatInt(id, 10), WorkerID: s.cfg.WorkerID, ConfigPath: s.cfg.ConfigPath,
		WorktreeDir: s.cfg.WorktreeDir, TempDir: filepath.Join(s.cfg.TempDir, s.cfg.WorkerID), LogDir: s.cfg.LogDir, ArtifactDir: s.cfg.ArtifactDir,
		KeepWorktree: s.cfg.KeepWorktrees, EnvAllow: s.cfg.EnvAllow, Ended: ended})
}

// runAgent works one agent job for the queue.
func (s *Service) runAgent(ctx context.Context, id int64, job jobs.AgentJob) (any, string, error) {
	s.running.Store(id, time.Now())
	defer s.running.Delete(id)
	return s.cfg.RunAgent(ctx, id, job)
}

// Start works jobs (with Count > 0) until Stop.
func (s *Service) Start(ctx context.Context) error {
	if s.cfg.Count <= 0 {
		return nil
	}
	q, err := s.Queue(ctx)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return nil
	}
	// Jobs of this machine's dead workers (another serve killed, say) go
	// back to the queue, and their leftover processes die, before this
	// pool takes any; then every RecoveryInterval until Stop.
	RecoverJobs(ctx, s.log(), q, s.Recovery(HandBackGrace(jobs.DefaultKillGrace)))
	if err := q.Start(ctx); err != nil {
		return fmt.Errorf("start the worker pool: %w", err)
	}
	s.started = true
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.stopRecovery = cancel
	// Worktrees a killed cleanup left: off the start's path (git per repository).
	go CleanWorktrees(rctx, s.log(), q, s.cfg.WorktreeDir, s.cfg.KeepWorktrees, nil)
	go KeepRecoveringJobs(rctx, s.log(), q, s.Recovery(HandBackGrace(jobs.DefaultKillGrace)))
	return nil
}

// Recovery is how this service's workers' jobs are dealt with when a
// worker is gone (see HandBack): their journal, their agent runs' end, and
// grace (see HandBackGrace). Gone is the caller's to set.
func (s *Service) Recovery(grace time.Duration) Recovery {
	return Recovery{Grace: grace, Journal: s.cfg.LogDir, EndAgent: s.cfg.EndAgent}
}

func (s *Service) log() *slog.Logger {
	if s.cfg.Log != nil {
		return s.cfg.Log
	}
	return slog.Default()
}

// Stop lets running jobs finish (drain), then closes the queue; its
// temporary directory goes.
func (s *Service) Stop(ctx context.Context) error {
	s.mu.Lock()
	q, started := s.q, s.started
	s.q, s.started = nil, false
	if s.stopRecovery != nil {
		s.stopRecovery()
		s.stopRecovery = nil
	}
	s.mu.Unlock()
	if q == nil {
		return nil
	}
	var err error
	if started {
		err = q.Stop(ctx)
	}
	_ = os.RemoveAll(filepath.Join(s.cfg.TempDir, s.cfg.WorkerID))
	if cerr := q.Close(); err == nil {
		err = cerr
	}
	return err
}

// Running lists the jobs this process works now.
func (s *Service) Running() []int64 {
	var ids []int64
	s.running.Range(func(k, _ any) bool { ids = append(ids, k.(int64)); return true })
	slices.Sort(ids)
	return ids
}

// ErrNoLog is Logs' error for a job whose log file is not here: it has
// not started, or it runs on another machine.
var ErrNoLog = errors.New("no log yet (the job has not started, or runs on another machine)")

// Logs returns a job's log from offset, at most limit bytes, and the
// offset to ask next.
func (s *Service) Logs(id int64, offset int64, limit int) (string, int64, error) {
	f, err := os.Open(filepath.Join(s.cfg.LogDir, strconv.FormatInt(id, 10)+".log"))
	if os.IsNotExist(err) {
		return "", 0, fmt.Errorf("job %d: %w", id, ErrNoLog)
	}
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	fi, _ := f.Stat()
	offset = max(0, min(offset, fi.Size()))
	buf := make([]byte, min(int64(limit), fi.Size()-offset))
	n, _ := f.ReadAt(buf, offset)
	return string(buf[:n]), offset + int64(n), nil
}

// Config is the service's configuration.
func (s *Service) Config() Config { return s.cfg }

// SubmitAgent queues a sub-agent's run (package spawn's Queue).
func (s *Service) SubmitAgent(ctx context.Context, job jobs.AgentJob) (int64, error) {
	q, err := s.Queue(ctx)
	if err != nil {
		return 0, err
	}
	return q.SubmitAgent(ctx, job)
}

// CancelJob cancels a job (package spawn's Queue).
func (s *Service) CancelJob(ctx context.Context, id int64) error {
	q, err := s.Queue(ctx)
	if err != nil {
		return err
	}
	_, err = q.Cancel(ctx, id)
	return err
}

// JobState is a job's state (package spawn's Queue).
func (s *Service) JobState(ctx context.Context, id int64) (string, error) {
	q, err := s.Queue(ctx)
	if err != nil {
		return "", err
	}
	in, err := q.Get(ctx, id)
	if err != nil {
		return "", err
	}
	return in.State, nil
}
