// Package jobs runs the jobs of the worker pool (Task 027.a): a job of kind
// "command" checks the repository out into a fresh worktree, runs its build
// and test commands there in a process group of their own under the job's
// timeout, with the parent's environment minus its secrets, captures their
// output to the job's log, collects artifacts, records the result, and
// always cleans up. The queue that hands jobs to workers is built on this.
package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/proc"
	"github.com/barrhawk/barrhawk/internal/worktree"
)

// CommandJob is a job of kind "command".
type CommandJob struct {
	// Repo is the repository (a directory inside it); Ref the commit to
	// check out (HEAD when empty).
	Repo string `json:"repo"`
	Ref  string `json:"ref,omitempty"`
	// Build and Test are shell command lines, run in that order in the
	// worktree; the first to fail fails the job.
	Build []string `json:"build,omitempty"`
	Test  []string `json:"test,omitempty"`
	// Env is added to the commands' environment.
	Env map[string]string `json:"env,omitempty"`
	// Timeout bounds the whole job (default 30 minutes); past it the
	// process tree is stopped.
	Timeout time.Duration `json:"timeout,omitempty"`
	// Artifacts are globs, relative to the worktree, of files copied out.
	Artifacts []string `json:"artifacts,omitempty"`
	Priority  int      `json:"priority,omitempty"`
	Retries   int      `json:"retries,omitempty"`
}

// RunEnv is where and as whom a job runs.
type RunEnv struct {
	TaskID, WorkerID, ConfigPath string
	// WorktreeDir is where worktrees go ("" for the repository's
	// .barrhawk/worktrees).
	WorktreeDir string
	// TempDir is the worker's temporary directory (TMPDIR of the commands).
	TempDir string
	// LogDir keeps each job's log (<TaskID>.log); ArtifactDir its artifacts
	// (<TaskID>/...).
	LogDir, ArtifactDir string
	// KeepWorktree leaves the worktree after the job (for debugging).
	KeepWorktree bool
	// EnvAllow names sensitive variables to pass on anyway.
	EnvAllow []string
	// KillGrace is how long commands get between SIGTERM and SIGKILL
	// (default 10 s).
	KillGrace time.Duration
	// WorkerLog also receives the commands' output (default: the
	// process's worker log, SetWorkerLog).
	WorkerLog io.Writer
	// Ended, if set, is given the outcome once the commands have ended and
	// the artifacts are collected, before the worktree is removed: the
	// worker makes it durable there, so that a worker killed during the
	// cleanup does not make the job run again. The outcome RunCommand
	// returns may say more (a cleanup that failed).
	Ended func(*Outcome)
}

// Outcome is a job's recorded result.
type Outcome struct {
	Status     string   `json:"status"` // succeeded, failed, timeout, cancelled
	Phase      string   `json:"phase,omitempty"`
	Command    string   `json:"command,omitempty"` // the command that failed
	ExitCode   int      `json:"exitCode"`
	ExitStatus string   `json:"exitStatus,omitempty"`
	Log        string   `json:"log"`
	Artifacts  []string `json:"artifacts"`
	Worktree   string   `json:"worktree,omitempty"`
	DurationMs int64    `json:"durationMs"`
	// CleanupError says what cleanup could not do; it does not fail the job.
	CleanupError string `json:"cleanupError,omitempty"`
}

// DefaultKillGrace is how long commands get between SIGTERM and SIGKILL
// when RunEnv sets no KillGrace.
const DefaultKillGrace = 10 * time.Second

// DefaultTimeout bounds a job that sets none.
const DefaultTimeout = 30 * time.Minute

// sensitive are the parts of a variable's name that mark it a secret.
var sensitive = []string{"KEY", "SECRET", "TOKEN", "PASSWORD", "CREDENTIAL"}

// FilterEnv returns environ without the variables whose names hold KEY,
// SECRET, TOKEN, PASSWORD or CREDENTIAL (any case), except those allowed.
func FilterEnv(environ, allow []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		up := strings.ToUpper(name)
		secret := false
		for _, s := range sensitive {
			if strings.Contains(up, s) {
				secret = true
				break
			}
		}
		if secret && !slices.Contains(allow, name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// RunCommand runs a command job to its end and returns its outcome. An
// error is returned only when the job could not start (no repository, no
// worktree); a command that fails is an outcome.
func RunCommand(ctx context.Context, job CommandJob, env RunEnv) (out *Outcome, err error) {
	if env.TaskID == "" {
		return nil, errors.New("a job needs a task id")
	}
	if len(job.Build)+len(job.Test) == 0 {
		return nil, errors.New("the job has no build or test command")
	}
	if job.Timeout <= 0 {
		job.Timeout = DefaultTimeout
	}
	if env.KillGrace <= 0 {
		env.KillGrace = DefaultKillGrace
	}
	start := time.Now()
	m, err := worktree.New(ctx, job.Repo, env.WorktreeDir)
	if err != nil {
		return nil, err
	}
	name := "task-" + env.TaskID
	// git is never stopped half-way through making the worktree (a cancel
	// then left its branch behind): it runs to its end, and a cancel that
	// came meanwhile is seen after, with the tree removed.
	gitCtx := context.WithoutCancel(ctx)
	wt, err := m.Create(gitCtx, name, job.Ref)
	stale := ""
	if err != nil && strings.Contains(err.Error(), "exists") {
		// Left by an earlier attempt of this job whose worker died (a job
		// runs on one worker at a time): a fresh tree replaces it.
		if rerr := m.Remove(gitCtx, name, false); rerr != nil {
			return nil, fmt.Errorf("the worktree of an earlier attempt is in the way: %w (removing it: %v)", err, rerr)
		}
		stale = "removed the worktree an earlier attempt left\n"
		wt, err = m.Create(gitCtx, name, job.Ref)
	}
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		_ = m.Remove(gitCtx, name, false)
		return nil, context.Cause(ctx)
	}
	out = &Outcome{Log: filepath.Join(env.LogDir, env.TaskID+".log"), Artifacts: []string{}, Worktree: wt.Path}
	// Cleanup always runs; its failure is recorded, not fatal.
	defer func() {
		out.DurationMs = time.Since(start).Milliseconds()
		if env.KeepWorktree {
			return
		}
		if cerr := m.Remove(context.WithoutCancel(ctx), name, false); cerr != nil {
			out.CleanupError = cerr.Error()
		}
	}()
	if err := os.MkdirAll(env.LogDir, 0o755); err != nil {
		return nil, fmt.Errorf("the log directory: %w", err)
	}
	// An earlier attempt's output (its worker died, the job was handed
	// back) stays above this one's.
	logf, err := os.OpenFile(out.Log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("the job's log: %w", err)
	}
	defer logf.Close()
	if st, err := logf.Stat(); err == nil && st.Size() > 0 {
		fmt.Fprintf(logf, "\n=== attempt on worker %s at %s (an earlier attempt's output is above)\n", env.WorkerID, time.Now().UTC().Format(time.RFC3339))
	}
	var sink io.Writer = logf
	if env.WorkerLog == nil {
		if p := processWorkerLog.Load(); p != nil {
			env.WorkerLog = *p
		}
	}
	if env.WorkerLog != nil {
		// The worker's log is a copy: its failure must not cut the job's.
		sink = io.MultiWriter(logf, bestEffort{env.WorkerLog})
	}
	w := &lockedWriter{w: sink}
	fmt.Fprint(w, stale)

	cmdEnv := FilterEnv(os.Environ(), env.EnvAllow)
	for k, v := range map[string]string{"TASK_ID": env.TaskID, "WORKER_ID": env.WorkerID, "WORKTREE_PATH": wt.Path, "CONFIG_PATH": env.ConfigPath} {
		cmdEnv = append(cmdEnv, "BARRHAWK_"+k+"="+v, "ACODE_"+k+"="+v)
	}
	if env.TempDir != "" {
		if err := os.MkdirAll(env.TempDir, 0o700); err != nil {
			return nil, fmt.Errorf("the worker's temporary directory: %w", err)
		}
		cmdEnv = append(cmdEnv, "TMPDIR="+env.TempDir)
	}
	for k, v := range job.Env {
		cmdEnv = append(cmdEnv, k+"="+v)
	}

	deadline := time.NewTimer(job.Timeout)
	defer deadline.Stop()
	steps := []struct{ phase, cmd string }{}
	for _, c := range job.Build {
		steps = append(steps, struct{ phase, cmd string }{"build", c})
	}
	for _, c := range job.Test {
		steps = append(steps, struct{ phase, cmd string }{"test", c})
	}
	out.Status = "succeeded"
	for _, st := range steps {
		fmt.Fprintf(w, "$ %s\n", st.cmd)
		c := exec.Command("/bin/sh", "-c", st.cmd)
		c.Dir, c.Env, c.Stdout, c.Stderr = wt.Path, cmdEnv, w, w
		p, err := proc.StartTied(c)
		if err != nil {
			out.Status, out.Phase, out.Command, out.ExitCode = "failed", st.phase, st.cmd, -1
			fmt.Fprintf(w, "could not start: %v\n", err)
			break
		}
		stopped := ""
		select {
		case <-p.Done():
		case <-deadline.C:
			stopped = "timeout"
			p.Stop(env.KillGrace)
		case <-ctx.Done():
			stopped = "cancelled"
			p.Stop(env.KillGrace)
		}
		out.ExitStatus = p.ExitStatus()
		out.ExitCode = p.ExitCode()
		if stopped != "" {
			out.Status, out.Phase, out.Command = stopped, st.phase, st.cmd
			fmt.Fprintf(w, "%s: stopped (%s) after %v\n", stopped, out.ExitStatus, time.Since(start).Round(time.Millisecond))
			break
		}
		if out.ExitCode != 0 {
			out.Status, out.Phase, out.Command = "failed", st.phase, st.cmd
			fmt.Fprintf(w, "failed: %s\n", out.ExitStatus)
			break
		}
	}
	out.Artifacts, err = collectArtifacts(wt.Path, job.Artifacts, filepath.Join(env.ArtifactDir, env.TaskID))
	if err != nil {
		fmt.Fprintf(w, "artifacts: %v\n", err)
	}
	if env.Ended != nil {
		ended := *out
		ended.DurationMs = time.Since(start).Milliseconds()
		env.Ended(&ended)
	}
	return out, nil
}

// CheckArtifactGlob says what is wrong with an artifact glob: it must be a
// valid pattern relative to the worktree, with no ".." step out of it.
func CheckArtifactGlob(g string) error {
	if g == "" {
		return errors.New("artifact glob \"\": give a pattern relative to the worktree, such as \"*.out\" or \"build/*.xml\"")
	}
	if filepath.IsAbs(g) || strings.HasPrefix(g, "/") || slices.Contains(strings.Split(filepath.ToSlash(g), "/"), "..") {
		return fmt.Errorf("artifact glob %q: give a pattern relative to the worktree, without \"..\" (such as \"*.out\" or \"build/*.xml\")", g)
	}
	if _, err := filepath.Match(g, ""); err != nil {
		return fmt.Errorf("artifact glob %q: %w", g, err)
	}
	return nil
}

// collectArtifacts copies the files matching globs (relative to dir) into
// dest, keeping their relative paths, and returns the copies' paths.
func collectArtifacts(dir string, globs []string, dest string) ([]string, error) {
	out := []string{}
	var errs []error
	for _, g := range globs {
		if err := CheckArtifactGlob(g); err != nil {
			errs = append(errs, err)
			continue
		}
		matches, err := filepath.Glob(filepath.Join(dir, g))
		if err != nil {
			errs = append(errs, fmt.Errorf("artifact glob %q: %w", g, err))
			continue
		}
		for _, m := range matches {
			fi, err := os.Lstat(m)
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			rel, _ := filepath.Rel(dir, m)
			to := filepath.Join(dest, rel)
			if err := copyFile(m, to); err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, to)
		}
	}
	return out, errors.Join(errs...)
}

func copyFile(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}

// lockedWriter serialises the writes of a command's stdout and stderr.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// bestEffort writes to w and reports success whatever happens.
type bestEffort struct{ w io.Writer }

func (b bestEffort) Write(p []byte) (int, error) {
	_, _ = b.w.Write(p)
	return len(p), nil
}

// MarshalJSON writes Timeout as a duration ("30m0s"), as people read it
// (task status, task_status) and write it (--timeout 30m).
func (j CommandJob) MarshalJSON() ([]byte, error) {
	type plain CommandJob
	var timeout string
	if j.Timeout != 0 {
		timeout = j.Timeout.String()
	}
	return json.Marshal(struct {
		plain
		Timeout string `json:"timeout,omitempty"`
	}{plain(j), timeout})
}

// UnmarshalJSON reads Timeout as a duration ("30m", "1h30m"), or as
// nanoseconds, as queues written before kept it.
func (j *CommandJob) UnmarshalJSON(b []byte) error {
	type plain CommandJob
	var v struct {
		*plain
		Timeout json.RawMessage `json:"timeout"`
	}
	v.plain = (*plain)(j)
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	j.Timeout = 0
	if len(v.Timeout) == 0 || string(v.Timeout) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(v.Timeout, &s); err == nil {
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("timeout %q: write a duration such as 30m or 1h30m: %w", s, err)
		}
		j.Timeout = d
		return nil
	}
	var ns int64
	if err := json.Unmarshal(v.Timeout, &ns); err != nil {
		return fmt.Errorf("timeout %s: write a duration such as \"30m\"", v.Timeout)
	}
	j.Timeout = time.Duration(ns)
	return nil
}
