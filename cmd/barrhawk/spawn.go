package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/barrhawk/barrhawk/internal/app"
	"github.com/barrhawk/barrhawk/internal/spawn"
	"github.com/spf13/cobra"
)

func spawnCmd() *cobra.Command {
	var o spawn.Options
	var wait bool
	cmd := &cobra.Command{
		Use:   `spawn "PROMPT"`,
		Short: "Hand a task to a sub-agent (Claude Code or Gemini CLI) in its own worktree and branch",
		Long: `Run a sub-agent on the repository: a fresh git worktree on branch spawn/<id>,
a sandbox (its own HOME, a PATH of the commands the project needs, no
environment but what it is given), the agent CLI headless with its events
streamed, timeouts that stop the whole process tree, permission denials fixed
and retried as --recovery allows, and at the end the branch with its commits,
a pull request (--pr, GitHub origins) or a patch file.

The run is a job of kind "agent" on the worker pool's queue (workers.db).
With --wait this process works the queue (one job at a time) until the run
ends, so it needs no pool running; a pool (barrhawk serve, barrhawk worker
start) may take the job first, and then this process follows it. Progress
goes to stderr and the result, as JSON, to stdout; the exit status is 0 when
the run completed. Without --wait the same happens in a process of its own
in the background, and the id is printed; follow the run with the
spawn_status and spawn_logs tools, or in <spawn.dir>/<id>/status.json.

  barrhawk spawn "add a test for ParseConfig" --wait
  barrhawk spawn "fix the flaky login test" --llm gemini --pr --secret API_TOKEN`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			o.Prompt = args[0]
			if !wait {
				// What would fail at once is said here, not in the
				// background process's log.
				_, svc := app.Services(cfg)
				if err := svc.Check(cmd.Context(), &o); err != nil {
					return err
				}
				return spawnDetached(cfg.Spawn.Dir, &o)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// This process works the queue while it waits: one job at a time.
			cfg.Workers.Count = 1
			qs, svc := app.Services(cfg)
			if err := qs.Start(context.WithoutCancel(ctx)); err != nil {
				return &exitError{exitConfigError, err}
			}
			defer func() {
				sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				_ = qs.Stop(sctx)
			}()
			if o.ID == "" {
				o.ID = newSpawnID()
			}
			if o.Recovery == spawn.RecoveryInteractive && isTerminal(os.Stdin) {
				in := bufio.NewReader(os.Stdin)
				o.Ask = func(_ context.Context, q string) (bool, error) {
					fmt.Fprintf(os.Stderr, "%s [y/N] ", q)
					line, err := in.ReadString('\n')
					return strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y"), err
				}
			}
			id, done, err := svc.Start(ctx, o, func(e spawn.Event) {
				switch e.Kind {
				case spawn.EventToolUse, spawn.EventFileWrite, spawn.EventResult, spawn.EventError:
					fmt.Fprintf(os.Stderr, "[%s] %s %s\n", o.ID, e.Kind, strings.TrimSpace(e.Tool+" "+e.Path+" "+firstLineOf(e.Text)))
				}
			})
			if err != nil {
				return err
			}
			o.ID = id
			fmt.Fprintf(os.Stderr, "spawn %s: running in %s\n", id, filepath.Join(cfg.Spawn.Dir, id))
			var st *spawn.Status
			select {
			case st = <-done:
			case <-ctx.Done():
				_ = svc.Cancel(id)
				st = <-done
			}
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(st); err != nil {
				return err
			}
			if st.Status != "completed" {
				return fmt.Errorf("spawn %s ended %s%s", id, st.Status, map[bool]string{true: ": " + st.Error, false: ""}[st.Error != ""])
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.LLM, "llm", "claude", "agent CLI: claude or gemini")
	f.StringVar(&o.Mode, "mode", spawn.ModeStructured, "structured (the prompt rewritten as a brief) or passthrough")
	f.StringVar(&o.Recovery, "recovery", "", "how denials are fixed: moderate, aggressive or interactive (default spawn.recovery)")
	f.DurationVar(&o.IdleTimeout, "idle-timeout", 0, "stop the agent after this long without output (default spawn.idleTimeout, 120s)")
	f.DurationVar(&o.TotalTimeout, "total-timeout", 0, "stop a run after this long (default spawn.totalTimeout, 30m)")
	f.StringArrayVar(&o.Secrets, "secret", nil, "a secret to give the agent, by name (from the environment, spawn.secretsDir or the config); repeatable")
	f.BoolVar(&o.PR, "pr", false, "push the branch and open a pull request when the origin is on GitHub")
	f.BoolVar(&wait, "wait", false, "run in the foreground until the end")
	f.StringVar(&o.Repo, "repo", ".", "the repository")
	f.StringVar(&o.Ref, "ref", "", "commit or branch to start from (default HEAD)")
	f.StringVar(&o.Base, "base", "", "branch the pull request targets (default: the current one)")
	f.StringVar(&o.ID, "id", "", "the spawn's id (default: made up)")
	return cmd
}

// spawnDetached starts this command again with --wait, in a session of its
// own that outlives the terminal, and prints the id.
func spawnDetached(dir string, o *spawn.Options) error {
	if o.ID == "" {
		o.ID = newSpawnID()
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	args := append([]string{}, os.Args[1:]...)
	args = append(args, "--wait", "--id", o.ID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	logPath := filepath.Join(dir, o.ID+".cli.log")
	log, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer log.Close()
	c := exec.Command(self, args...)
	c.Stdout, c.Stderr = log, log
	detach(c)
	if err := c.Start(); err != nil {
		return fmt.Errorf("start the spawn in the background: %w", err)
	}
	_ = c.Process.Release()
	fmt.Printf("%s\n", o.ID)
	fmt.Fprintf(os.Stderr, "spawn %s runs in the background: %s (status), %s (its output)\n", o.ID, filepath.Join(dir, o.ID, "status.json"), logPath)
	return nil
}

func newSpawnID() string { return strings.ToLower(rand.Text()[:10]) }

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// isTerminal reports whether f is a terminal (a character device).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
