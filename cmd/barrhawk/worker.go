package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/barrhawk/barrhawk/internal/app"
	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/jobs"
	"github.com/barrhawk/barrhawk/internal/logging"
	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/queue"
	"github.com/spf13/cobra"
)

// Exit codes of barrhawk worker and barrhawk task (README, "Worker pool
// and jobs").
const (
	exitTaskFailed   = 1
	exitConfigError  = 2
	exitToolNotFound = 3
)

// exitError carries an exit code to main.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// badInput is an error of the user's input: exit code 2.
func badInput(err error) error { return &exitError{exitConfigError, err} }

func workerCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "worker", Short: "Run a pool of job workers on the queue (workers.db) and look at them"}
	cmd.PersistentFlags().String("db", "", "the queue (default workers.db; postgres://... to share one queue between machines)")
	cmd.PersistentFlags().Bool("keep-worktrees", false, "leave each job's worktree (debugging)")
	cmd.AddCommand(workerStartCmd(), workerRunCmd(), workerStatusCmd(), workerLogsCmd(), workerAttachCmd())
	usageErrorsExit2(cmd)
	return cmd
}

// workerConfig is the configuration with the worker flags on top.
func workerConfig(cmd *cobra.Command) (appConfig, error) {
	cfg, err := loadConfig(cmd)
	if err != nil {
		return appConfig{}, &exitError{exitConfigError, err}
	}
	db, err := dbFlag(cmd)
	if err != nil {
		return appConfig{}, err
	}
	if db != "" {
		cfg.Workers.DB = db
	}
	if keep, _ := cmd.Flags().GetBool("keep-worktrees"); keep {
		cfg.Workers.KeepWorktrees = true
	}
	return appConfig{cfg}, nil
}

// workersDir holds the pools' status files (pool-<pid>.json) and, in
// logs/, each worker's log.
func workersDir(cfg config.Config) string { return filepath.Join(cfg.Home, "workers") }

func workerLogDir(cfg config.Config) string { return filepath.Join(workersDir(cfg), "logs") }

// workerTempDir is worker id's temporary directory (TMPDIR of its jobs).
func workerTempDir(cfg config.Config, id string) string {
	return filepath.Join(app.QueueService(cfg).Config().TempDir, id)
}

func workerStartCmd() *cobra.Command {
	var count int
	var require []string
	c := &cobra.Command{
		Use:   "start",
		Short: "Start N worker processes and keep them running until SIGTERM",
		Long: `Start N worker processes on the queue (default workers.count). A worker that
exits is restarted after a delay that doubles from 1 s up to 60 s; one restarted
more than 10 times in a row is failed and replaced (workers.process.*). The jobs a
dead worker was running go back to the queue at once and run again; the processes
it left are killed. At start, jobs left running by dead workers of this machine are
handed back and the worktrees of no pending or running job are removed.
SIGTERM or Ctrl-C drains: each worker gets SIGTERM, lets its running job finish,
and is killed after 10 s (workers.process.killTimeoutSeconds), its job handed back.

git and the tools named by --require and workers.require must be installed: a missing one stops the start
with exit code 3. Exit codes: 0 stopped cleanly (after SIGTERM or Ctrl-C too), 1
another failure, 2 configuration error or a queue that does not open, 3 tool not
found, 137/143 killed by SIGKILL/SIGTERM before it could drain.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ac, err := workerConfig(cmd)
			if err != nil {
				return err
			}
			cfg := ac.cfg
			if !cmd.Flags().Changed("count") {
				count = cfg.Workers.Count
			}
			if count < 1 || count > 1024 {
				return badInput(fmt.Errorf("--count %d: start 1 to 1024 workers (workers.count is %d)", count, cfg.Workers.Count))
			}
			log, _, closer := logging.New(cfg.Log)
			defer closer.Close()
			if err := validateTools(log, slices.Concat([]string{"git"}, cfg.Workers.Require, require)); err != nil {
				return &exitError{exitToolNotFound, err}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			q, err := queue.Open(ctx, cfg.Workers.DB, queue.Options{})
			if err != nil {
				return &exitError{exitConfigError, err}
			}
			defer q.Close()
			if err := proc.BecomeSubreaper(); err != nil {
				log.Warn("not a subreaper: orphaned grandchildren may stay zombies", "err", err)
			}
			go proc.Reap(ctx, time.Second, log)
			self, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find this binary to start workers: %w", err)
			}
			host := queue.HostName()
			prefix := host + "-" + strconv.Itoa(os.Getpid())
			killTimeout := time.Duration(cfg.Workers.Process.KillTimeoutSeconds) * time.Second
			// A job running this long past its own timeout has lost its
			// worker, wherever that ran.
			svc := app.QueueService(cfg)
			recovery := svc.Recovery(queue.HandBackGrace(killTimeout))
			queue.RecoverJobs(ctx, log, q, recovery)
			queue.CleanWorktrees(ctx, log, q, cfg.Workers.WorktreeDir, cfg.Workers.KeepWorktrees, nil)

			args := []string{"worker", "run"}
			if cfg.File != "" {
				args = append(args, "--config", cfg.File)
			}
			args = append(args, "--db", cfg.Workers.DB)
			if cfg.Workers.KeepWorktrees {
				args = append(args, "--keep-worktrees")
			}
			p := cfg.Workers.Process
			sup := &jobs.Supervisor{Count: count, Log: log, Prefix: prefix, KillOrphans: true,
				MaxRestarts: p.MaxRestarts, BaseDelay: time.Duration(p.RestartDelayMs) * time.Millisecond,
				MaxDelay: time.Duration(p.MaxRestartDelayMs) * time.Millisecond, StopGrace: killTimeout,
				StatusFile: filepath.Join(workersDir(cfg), "pool-"+strconv.Itoa(os.Getpid())+".json"),
				Command: func(id string) *exec.Cmd {
					c := exec.Command(self, append(args, "--id", id)...)
					c.Stdout, c.Stderr = os.Stderr, os.Stderr
					signalOnParentDeath(c)
					return c
				},
				AfterExit: func(id string) {
					hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
					defer cancel()
					r := svc.Recovery(0)
					r.Gone = func(w string) bool { return w == id }
					done, err := queue.HandBack(hctx, q, r)
					queue.LogRecovered(log.With("worker", id), done, err)
					// A worker killed after its job's end was recorded,
					// before its cleanup, left the job's worktree.
					queue.CleanWorktrees(hctx, log, q, cfg.Workers.WorktreeDir, cfg.Workers.KeepWorktrees,
						func(in *queue.Info) bool { return queue.LastWorker(in) == id })
					if err := os.RemoveAll(workerTempDir(cfg, id)); err != nil {
						log.Warn("could not remove a worker's temporary directory", "worker", id, "err", err)
					}
				}}
			// Jobs of workers on other machines that died with them.
			go queue.KeepRecoveringJobs(ctx, log, q, recovery)
			log.Info("worker pool starting", "count", count, "db", redactDB(cfg.Workers.DB), "ids", prefix+"-*")
			err = sup.Run(ctx)
			log.Info("worker pool stopped")
			return err
		},
	}
	c.Flags().IntVar(&count, "count", 2, "worker processes (default workers.count)")
	c.Flags().StringArrayVar(&require, "require", nil, "a tool the jobs need, checked at start (repeatable): go, dotnet, npm, ...")
	return c
}

// watchPool ends this worker when the pool that started it (its parent,
// pool) is gone, killed with SIGKILL: the running job's processes are
// killed and the worker exits without recording an outcome, so that the
// job stays running in the queue for the next pool to hand back. A worker
// that lived on would be in no worker status, and would go on with a job
// that the next pool hands back and runs again, at the same time and in
// the same worktree.
func watchPool(log *slog.Logger, pool int) {
	dead := make(chan os.Signal, 1)
	if len(parentDeathSignals) > 0 {
		signal.Notify(dead, parentDeathSignals...)
	}
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-dead:
		case <-t.C:
			if os.Getppid() == pool && proc.Exists(pool) {
				continue
			}
		}
		log.Error("the worker pool that started this worker is gone; killing its job's processes and exiting (the next worker start hands the job back)", "pool", pool)
		proc.KillAllAndExit(1)
	}
}

func workerRunCmd() *cobra.Command {
	var id string
	c := &cobra.Command{
		Use:    "run",
		Short:  "internal: one worker process, started by worker start",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ac, err := workerConfig(cmd)
			if err != nil {
				return err
			}
			cfg := ac.cfg
			wlog, err := jobs.NewWorkerLog(workerLogDir(cfg), id)
			if err != nil {
				return badInput(fmt.Errorf("--id: %w", err))
			}
			defer wlog.Close()
			jobs.SetWorkerLog(wlog)
			opts := &slog.HandlerOptions{Level: logging.ParseLevel(cfg.Log.Level)}
			log := slog.New(slog.NewTextHandler(io.MultiWriter(os.Stderr, wlog), opts)).With("worker", id)
			cfg.Workers.Count = 1
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			go watchPool(log, os.Getppid())
			qcfg := app.QueueService(cfg).Config()
			qcfg.WorkerID = id
			svc := newQueueService(qcfg)
			// River stops hard (cancelling running jobs) when the context
			// it started with ends: SIGTERM must drain instead.
			if err := svc.Start(context.WithoutCancel(ctx)); err != nil {
				return &exitError{exitConfigError, err}
			}
			log.Info("worker running", "pid", os.Getpid(), "db", redactDB(cfg.Workers.DB))
			<-ctx.Done()
			stop() // a second Ctrl-C ends the worker at once
			// Drain: the running job finishes; if it takes longer than the
			// supervisor's grace, the worker is killed and the supervisor
			// hands the job back.
			log.Info("worker draining")
			if err := svc.Stop(context.Background()); err != nil && !errors.Is(err, context.Canceled) {
				return fmt.Errorf("stop the worker: %w", err)
			}
			log.Info("worker stopped")
			return nil
		},
	}
	c.Flags().StringVar(&id, "id", "", "the worker's id")
	return c
}

func workerStatusCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "status",
		Short: "List the running pools' workers and the job each runs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ac, err := workerConfig(cmd)
			if err != nil {
				return err
			}
			cfg := ac.cfg
			pools := readPools(workersDir(cfg))
			running := map[string]int64{}
			if q, err := queue.Open(cmd.Context(), cfg.Workers.DB, queue.Options{}); err == nil {
				if list, err := q.List(cmd.Context(), queue.MaxList); err == nil {
					for _, in := range list {
						if in.State == "running" {
							running[queue.LastWorker(&in)] = in.ID
						}
					}
				}
				q.Close()
			}
			type row struct {
				Pool int `json:"pool"`
				jobs.WorkerState
				Job int64 `json:"job,omitempty"`
			}
			rows := []row{}
			for _, p := range pools {
				for _, w := range p.Workers {
					rows = append(rows, row{p.PID, w, running[w.ID]})
				}
			}
			if asJSON {
				return printJSON(rows)
			}
			if len(rows) == 0 {
				fmt.Println("no worker pool is running (barrhawk worker start starts one)")
				return nil
			}
			tw := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "POOL\tWORKER\tPID\tSTATE\tUP\tRESTARTS\tREPLACED\tJOB\tLAST EXIT")
			for _, r := range rows {
				up, job := "-", "-"
				if r.State == "running" {
					up = time.Since(r.Started).Round(time.Second).String()
				}
				if r.Job != 0 {
					job = strconv.FormatInt(r.Job, 10)
				}
				fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%d\t%d\t%s\t%s\n", r.Pool, r.ID, r.PID, r.State, up, r.Restarts, r.Replaced, job, r.LastExit)
			}
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

// readPools reads the status files of the pools running on this machine,
// removing those of pools that are gone.
func readPools(dir string) []jobs.Status {
	files, _ := filepath.Glob(filepath.Join(dir, "pool-*.json"))
	var out []jobs.Status
	for _, f := range files {
		data, err := os.ReadFile(f)
		var st jobs.Status
		if err != nil || json.Unmarshal(data, &st) != nil {
			continue
		}
		if !proc.Exists(st.PID) {
			_ = os.Remove(f)
			continue
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b jobs.Status) int { return a.PID - b.PID })
	return out
}

// workerLogFile is the log of worker id, or an error naming what is wrong.
func workerLogFile(cmd *cobra.Command, id string) (string, error) {
	ac, err := workerConfig(cmd)
	if err != nil {
		return "", err
	}
	path, err := jobs.WorkerLogPath(workerLogDir(ac.cfg), id)
	if err != nil {
		return "", badInput(err)
	}
	if _, err := os.Stat(path); err != nil {
		return "", badInput(fmt.Errorf("no log of worker %q in %s: barrhawk worker status lists the workers", id, filepath.Dir(path)))
	}
	return path, nil
}

func workerLogsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "logs ID",
		Short: "Print a worker's log (its own lines and its jobs' output; rotated at 10 MB)",
		Args:  oneArg("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := workerLogFile(cmd, args[0])
			if err != nil {
				return err
			}
			f, err := os.Open(path)
			if err != nil {
				return fmt.Errorf("read the worker's log: %w", err)
			}
			defer f.Close()
			_, err = io.Copy(os.Stdout, f)
			return err
		},
	}
}

func workerAttachCmd() *cobra.Command {
	var lines int
	c := &cobra.Command{
		Use:   "attach ID",
		Short: "Follow a worker's live log until interrupted (Ctrl-C)",
		Args:  oneArg("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if lines < 0 {
				return badInput(fmt.Errorf("--lines %d: give 0 or more", lines))
			}
			path, err := workerLogFile(cmd, args[0])
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return follow(ctx, path, lines, os.Stdout)
		},
	}
	c.Flags().IntVarP(&lines, "lines", "n", 10, "start with this many of the last lines")
	return c
}

// follow prints the last lines of the file at path, then what is appended
// to it, reopening it when it is rotated, until ctx ends.
func follow(ctx context.Context, path string, lines int, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open the worker's log: %w", err)
	}
	defer func() { f.Close() }()
	off, err := tailOffset(f, lines)
	if err != nil {
		return err
	}
	buf := make([]byte, 64<<10)
	for {
		n, rerr := f.ReadAt(buf, off)
		if n > 0 {
			if _, err := w.Write(buf[:n]); err != nil {
				return err
			}
			off += int64(n)
			continue
		}
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return fmt.Errorf("read the worker's log: %w", rerr)
		}
		// Rotated: the path holds a new, shorter file.
		if fi, err := os.Stat(path); err == nil {
			if cur, err := f.Stat(); err == nil && !os.SameFile(fi, cur) {
				if nf, err := os.Open(path); err == nil {
					f.Close()
					f, off = nf, 0
					continue
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// tailOffset is where the last n lines of f start.
func tailOffset(f *os.File, n int) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("read the worker's log: %w", err)
	}
	size := fi.Size()
	start := max(0, size-256<<10)
	buf := make([]byte, size-start)
	if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("read the worker's log: %w", err)
	}
	end := len(buf)
	if end > 0 && buf[end-1] == '\n' {
		end--
	}
	for i := end - 1; i >= 0; i-- {
		if buf[i] == '\n' {
			n--
			if n <= 0 {
				return start + int64(i) + 1, nil
			}
		}
	}
	if n <= 0 {
		return size, nil
	}
	return start, nil
}

// validateTools checks that each tool runs, logging its version.
func validateTools(log *slog.Logger, tools []string) error {
	for _, t := range tools {
		path, err := exec.LookPath(t)
		if err != nil {
			if t == "git" {
				return fmt.Errorf("tool \"git\" not found on PATH: jobs check their repositories out with it; install git")
			}
			return fmt.Errorf("tool %q not found on PATH: install it, or drop it from --require and workers.require", t)
		}
		out, _ := exec.Command(path, "--version").CombinedOutput()
		if strings.TrimSpace(string(out)) == "" {
			out, _ = exec.Command(path, "version").CombinedOutput()
		}
		log.Info("tool found", "tool", t, "path", path, "version", strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0]))
	}
	return nil
}

func redactDB(db string) string {
	if i := strings.Index(db, "@"); i >= 0 && strings.Contains(db, "://") {
		return db[:strings.Index(db, "://")+3] + "…" + db[i:]
	}
	return db
}

// appConfig wraps the configuration for the worker commands.
type appConfig struct{ cfg config.Config }

// newQueueService is the queue service of one worker process.
func newQueueService(c queue.Config) *queue.Service { return queue.NewService(c) }
