package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/barrhawk/barrhawk/internal/app"
	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/jobs"
	"github.com/barrhawk/barrhawk/internal/logging"
	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/queue"
	"github.com/spf13/cobra"
)

// Exit codes of barrhawk worker (README, "Worker pool").
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

func workerCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "worker", Short: "Run a pool of job workers on the queue (workers.db)"}
	cmd.PersistentFlags().String("db", "", "the queue (default workers.db; postgres://... to share one queue between machines)")
	cmd.PersistentFlags().Bool("keep-worktrees", false, "leave each job's worktree (debugging)")
	cmd.AddCommand(workerStartCmd(), workerRunCmd())
	return cmd
}

// workerConfig is the configuration with the worker flags on top.
func workerConfig(cmd *cobra.Command) (appConfig, error) {
	cfg, err := loadConfig(cmd)
	if err != nil {
		return appConfig{}, &exitError{exitConfigError, err}
	}
	if db, _ := cmd.Flags().GetString("db"); db != "" {
		cfg.Workers.DB = db
	}
	if keep, _ := cmd.Flags().GetBool("keep-worktrees"); keep {
		cfg.Workers.KeepWorktrees = true
	}
	return appConfig{cfg}, nil
}

func workerStartCmd() *cobra.Command {
	var count int
	var require []string
	c := &cobra.Command{
		Use:   "start",
		Short: "Start N worker processes and keep them running until SIGTERM",
		Long: `Start N worker processes on the queue. A worker that exits is restarted after a
delay that doubles from 1 s up to 60 s; one restarted more than 10 times in a row is
failed and replaced. SIGTERM or Ctrl-C drains: each worker gets SIGTERM, lets its
running job finish (or hands it back), and is killed if it has not exited after 10 s.

git and the tools named by --require must be installed: a missing one stops the start
with exit code 3. Exit codes: 0 stopped cleanly, 1 a job or worker failed, 2
configuration error, 3 tool not found, 137/143 killed by SIGKILL/SIGTERM.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ac, err := workerConfig(cmd)
			if err != nil {
				return err
			}
			log, _, closer := logging.New(ac.cfg.Log)
			defer closer.Close()
			if err := validateTools(log, append([]string{"git"}, require...)); err != nil {
				return &exitError{exitToolNotFound, err}
			}
			if err := proc.BecomeSubreaper(); err != nil {
				log.Warn("not a subreaper: orphaned grandchildren may stay zombies", "err", err)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			go proc.Reap(ctx, time.Second, log)
			self, err := os.Executable()
			if err != nil {
				return err
			}
			args := []string{"worker", "run"}
			for _, f := range []string{"config", "db"} {
				if v, _ := cmd.Flags().GetString(f); v != "" {
					args = append(args, "--"+f, v)
				}
			}
			if ac.cfg.Workers.KeepWorktrees {
				args = append(args, "--keep-worktrees")
			}
			sup := &jobs.Supervisor{Count: count, Log: log, Command: func(id string) *exec.Cmd {
				c := exec.Command(self, append(args, "--id", id)...)
				c.Stdout, c.Stderr = os.Stderr, os.Stderr
				return c
			}}
			log.Info("worker pool starting", "count", count, "db", redactDB(ac.cfg.Workers.DB))
			return sup.Run(ctx)
		},
	}
	c.Flags().IntVar(&count, "count", 2, "worker processes")
	c.Flags().StringArrayVar(&require, "require", nil, "a tool the jobs need, checked at start (repeatable): go, dotnet, npm, ...")
	return c
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
			log, _, closer := logging.New(ac.cfg.Log)
			defer closer.Close()
			ac.cfg.Workers.Count = 1
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			qcfg := app.QueueService(ac.cfg).Config()
			qcfg.WorkerID = id
			svc := newQueueService(qcfg)
			if err := svc.Start(ctx); err != nil {
				return &exitError{exitConfigError, err}
			}
			log.Info("worker running", "worker", id, "pid", os.Getpid())
			<-ctx.Done()
			// Drain: the running job finishes or is handed back.
			sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := svc.Stop(sctx); err != nil && !errors.Is(err, context.Canceled) {
				return err
			}
			log.Info("worker stopped", "worker", id)
			return nil
		},
	}
	c.Flags().StringVar(&id, "id", "", "the worker's id")
	return c
}

// validateTools checks that each tool runs, logging its version.
func validateTools(log *slog.Logger, tools []string) error {
	for _, t := range tools {
		path, err := exec.LookPath(t)
		if err != nil {
			return fmt.Errorf("tool %q not found on PATH: install it (e.g. apt-get install %s) or remove it from --require", t, t)
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
