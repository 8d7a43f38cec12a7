package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/barrhawk/barrhawk/internal/app"
	"github.com/barrhawk/barrhawk/internal/jobs"
	"github.com/barrhawk/barrhawk/internal/queue"
	"github.com/spf13/cobra"
)

func taskCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "task",
		Short: "Submit jobs to the worker pool's queue and follow them",
		Long: `Jobs of kind "command" check a repository out into a fresh worktree and run build
and test commands there. They wait in the queue (workers.db: an SQLite file, or a
postgres:// URL shared by pools on several machines) until a pool runs them:
barrhawk serve's embedded pool (workers.count) or barrhawk worker start.

  barrhawk task submit --repo . --build "go build ./..." --test "go test ./..." --artifact "coverage.out"
  barrhawk task status 12 --wait
  barrhawk task logs 12 --follow`,
	}
	cmd.PersistentFlags().String("db", "", "the queue (default workers.db)")
	usageErrorsExit2(cmd)
	cmd.AddCommand(taskSubmitCmd(), taskStatusCmd(), taskListCmd(), taskLogsCmd(), taskCancelCmd())
	return cmd
}

// openQueue opens the configured queue to submit and read (no workers); a
// configuration or a queue that does not open is exit code 2.
func openQueue(cmd *cobra.Command) (*queue.Service, queue.Queue, error) {
	cfg, err := loadConfig(cmd)
	if err != nil {
		return nil, nil, badInput(err)
	}
	db, err := dbFlag(cmd)
	if err != nil {
		return nil, nil, err
	}
	if db != "" {
		cfg.Workers.DB = db
	}
	cfg.Workers.Count = 0
	s := app.QueueService(cfg)
	q, err := s.Queue(cmd.Context())
	if err != nil {
		return nil, nil, badInput(err)
	}
	return s, q, nil
}

// dbFlag is the --db flag: a postgres:// URL, or an SQLite file in a
// directory that exists. Only the default queue's directory is made: a
// mistyped --db would otherwise start an empty queue there, and every job
// would seem gone.
func dbFlag(cmd *cobra.Command) (string, error) {
	db, _ := cmd.Flags().GetString("db")
	if db == "" || strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://") {
		return db, nil
	}
	dir := filepath.Dir(db)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", badInput(fmt.Errorf("--db %s: the directory %s does not exist; give the queue's file (workers.db by default, in the state directory) or a postgres:// URL, or make the directory first", db, dir))
	}
	return db, nil
}

// noJob makes "no job N" (an id the queue does not know) exit code 2.
func noJob(err error) error {
	if err != nil && strings.HasPrefix(err.Error(), "no job ") {
		return badInput(fmt.Errorf("%w (barrhawk task list shows the jobs)", err))
	}
	return err
}

// usageErrorsExit2 makes a bad flag exit code 2, as other bad input.
func usageErrorsExit2(cmd *cobra.Command) {
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badInput(err) })
}

// oneArg wants exactly one argument, named name; anything else is exit
// code 2.
func oneArg(name string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return badInput(fmt.Errorf("%s wants one argument, %s (got %d)", cmd.CommandPath(), name, len(args)))
		}
		return nil
	}
}

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func jobID(arg string) (int64, error) {
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id < 1 {
		return 0, badInput(fmt.Errorf("%q is not a job id (task submit prints it; task list shows them)", arg))
	}
	return id, nil
}

func taskSubmitCmd() *cobra.Command {
	var j jobs.CommandJob
	var env []string
	c := &cobra.Command{
		Use:   "submit",
		Short: "Queue a command job and print its id",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			j.Env = map[string]string{}
			for _, kv := range env {
				k, v, ok := cutEq(kv)
				if !ok {
					return badInput(fmt.Errorf("--env %q: write NAME=value", kv))
				}
				j.Env[k] = v
			}
			if len(j.Build)+len(j.Test) == 0 {
				return badInput(errors.New("give a --build or a --test command (or both) for the job to run"))
			}
			if j.Timeout <= 0 {
				return badInput(fmt.Errorf("--timeout %v: give a positive duration (30s, 10m)", j.Timeout))
			}
			s, q, err := openQueue(cmd)
			if err != nil {
				return err
			}
			defer q.Close()
			if err := queue.CheckRepo(cmd.Context(), &j, queue.Shared(s.Config().DB), "--"); err != nil {
				return badInput(err)
			}
			id, err := q.Submit(cmd.Context(), j)
			if err != nil {
				return badInput(err)
			}
			fmt.Println(id)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&j.Repo, "repo", ".", "the repository")
	f.StringVar(&j.Ref, "ref", "", "commit or branch (default HEAD)")
	f.StringArrayVar(&j.Build, "build", nil, "a build command (repeatable)")
	f.StringArrayVar(&j.Test, "test", nil, "a test command (repeatable)")
	f.StringArrayVar(&env, "env", nil, "NAME=value for the commands (repeatable)")
	f.DurationVar(&j.Timeout, "timeout", jobs.DefaultTimeout, "the whole job's timeout")
	f.StringArrayVar(&j.Artifacts, "artifact", nil, "a glob of files to keep (repeatable)")
	f.IntVar(&j.Priority, "priority", 2, "1 (first) to 4 (last)")
	f.IntVar(&j.Retries, "retries", 0, "further attempts after a failure")
	return c
}

func cutEq(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], i > 0
		}
	}
	return "", "", false
}

func taskStatusCmd() *cobra.Command {
	var wait bool
	c := &cobra.Command{
		Use:   "status ID",
		Short: "Print a job's state and outcome (exit status 1 once it failed)",
		Args:  oneArg("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := jobID(args[0])
			if err != nil {
				return err
			}
			_, q, err := openQueue(cmd)
			if err != nil {
				return err
			}
			defer q.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			for {
				in, err := q.Get(ctx, id)
				if err != nil {
					return noJob(err)
				}
				done := in.State == "completed" || in.State == "discarded" || in.State == "cancelled"
				if !wait || done {
					if err := printJSON(in); err != nil {
						return err
					}
					if in.State == "discarded" || in.State == "cancelled" {
						return &exitError{exitTaskFailed, fmt.Errorf("job %d %s", id, in.State)}
					}
					return nil
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(250 * time.Millisecond):
				}
			}
		},
	}
	c.Flags().BoolVar(&wait, "wait", false, "wait until the job ends")
	return c
}

func taskListCmd() *cobra.Command {
	var limit int
	c := &cobra.Command{
		Use:   "list",
		Short: "List the newest jobs",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := queue.CheckListLimit(limit); err != nil {
				return badInput(fmt.Errorf("--%w", err))
			}
			_, q, err := openQueue(cmd)
			if err != nil {
				return err
			}
			defer q.Close()
			list, err := q.List(cmd.Context(), limit)
			if err != nil {
				return err
			}
			for _, in := range list {
				status := ""
				if in.Outcome != nil {
					status = fmt.Sprintf("%s, exit %d", in.Outcome.Status, in.Outcome.ExitCode)
				}
				fmt.Printf("%d\t%s\t%s\t%s\n", in.ID, in.State, in.Job.Repo, status)
			}
			return nil
		},
	}
	c.Flags().IntVar(&limit, "limit", 50, "most jobs")
	return c
}

func taskLogsCmd() *cobra.Command {
	var follow bool
	c := &cobra.Command{
		Use:   "logs ID",
		Short: "Print a job's output (--follow until it ends)",
		Args:  oneArg("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := jobID(args[0])
			if err != nil {
				return err
			}
			s, q, err := openQueue(cmd)
			if err != nil {
				return err
			}
			defer q.Close()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if _, err := q.Get(ctx, id); err != nil {
				return noJob(err)
			}
			var off int64
			for {
				text, next, lerr := s.Logs(id, off, 1<<20)
				if lerr == nil {
					fmt.Print(text)
					off = next
				}
				if !follow {
					if lerr != nil || text == "" {
						return lerr
					}
					// The whole log, not its first chunk.
					continue
				}
				in, err := q.Get(ctx, id)
				if err != nil {
					return noJob(err)
				}
				if (in.State == "completed" || in.State == "discarded" || in.State == "cancelled") && text == "" && lerr == nil {
					return nil
				}
				select {
				case <-ctx.Done():
					return nil
				case <-time.After(200 * time.Millisecond):
				}
			}
		},
	}
	c.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing as the job runs")
	return c
}

func taskCancelCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "cancel ID",
		Short: "Cancel a job (a running one is stopped)",
		Args:  oneArg("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := jobID(args[0])
			if err != nil {
				return err
			}
			_, q, err := openQueue(cmd)
			if err != nil {
				return err
			}
			defer q.Close()
			in, err := q.Cancel(cmd.Context(), id)
			if err != nil {
				return noJob(err)
			}
			if err := queue.EndedBeforeCancel(in); err != nil {
				return &exitError{exitTaskFailed, err}
			}
			return printJSON(in)
		},
	}
}
