package spawn

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/barrhawk/barrhawk/internal/jobs"
	"github.com/barrhawk/barrhawk/internal/redact"
)

// Config is how the service runs agents.
type Config struct {
	// Dir keeps each spawn's files under Dir/<id> (status.json, the
	// attempts' manifests, streams and logs, the patch).
	Dir string
	// ClaudePath and GeminiPath are the CLIs (default: claude and gemini on
	// PATH).
	ClaudePath, GeminiPath string
	IdleTimeout            time.Duration
	TotalTimeout           time.Duration
	Recovery               string
	// GitHubAPI is the REST API base for pull requests (GitHub Enterprise).
	GitHubAPI string
	// SecretsDir holds secrets as files named after them (one way to give
	// one besides the environment).
	SecretsDir string
	// Secrets are secrets from the configuration, by name.
	Secrets map[string]string
}

// Options are one spawn's wishes.
type Options struct {
	ID, Prompt, Repo, Ref, LLM, Mode, Recovery string
	IdleTimeout, TotalTimeout                  time.Duration
	// Secrets are the names of the secrets to inject.
	Secrets []string
	PR      bool
	Base    string
	// Ask puts a fix to the user (interactive recovery).
	Ask func(ctx context.Context, question string) (bool, error)
}

// Status is a spawn as spawn_status shows it; it is kept in
// Dir/<id>/status.json, so any process can read it.
type Status struct {
	ID string `json:"id"`
	// JobID is the spawn's job in the queue (task_status shows it too).
	JobID        int64        `json:"jobId,omitempty"`
	Phase        string       `json:"phase"`  // queued, evaluating, running, integrating, done
	Status       string       `json:"status"` // queued, running, completed, failed, idle_timeout, timeout, cancelled, error
	Prompt       string       `json:"prompt"`
	Repo         string       `json:"repo"`
	LLM          string       `json:"llm"`
	StartedAt    time.Time    `json:"startedAt"`
	UpdatedAt    time.Time    `json:"updatedAt"`
	LastActivity time.Time    `json:"lastActivity"`
	Events       int          `json:"events"`
	FilesChanged []string     `json:"filesChanged"`
	Usage        *Usage       `json:"usage,omitempty"`
	CostUSD      *float64     `json:"costUsd,omitempty"`
	Result       *SpawnResult `json:"result,omitempty"`
	Integration  *Integration `json:"integration,omitempty"`
	Error        string       `json:"error,omitempty"`
}

// Queue is the durable job queue agent runs go through: a spawn is a job
// of kind "agent" (package queue), worked by whichever worker of the pool
// claims it. Package app wires it.
type Queue interface {
	// SubmitAgent queues a run and returns its job id.
	SubmitAgent(ctx context.Context, job jobs.AgentJob) (int64, error)
	// CancelJob cancels a job: a queued one never runs, a running one is
	// stopped by its worker.
	CancelJob(ctx context.Context, id int64) error
	// JobState is a job's state (available, running, completed,
	// discarded, cancelled, ...).
	JobState(ctx context.Context, id int64) (string, error)
}

// Service runs spawns and answers for them.
type Service struct {
	cfg     Config
	queue   Queue
	mu      sync.Mutex
	running map[string]context.CancelFunc // runs working in this process
	watches map[string]*watch             // runs started from this process
}

// watch is what the process that started a spawn hears of it: its events
// and questions when the run happens here, and its end wherever it runs.
type watch struct {
	onEvent func(Event)
	ask     func(ctx context.Context, question string) (bool, error)
	done    chan *Status
	once    sync.Once
}

func (w *watch) finish(st *Status) { w.once.Do(func() { w.done <- st }) }

// NewService returns a service.
func NewService(cfg Config) *Service {
	if cfg.Recovery == "" {
		cfg.Recovery = RecoveryModerate
	}
	return &Service{cfg: cfg, running: map[string]context.CancelFunc{}, watches: map[string]*watch{}}
}

// UseQueue makes spawns jobs of the queue q; without one, a spawn runs in
// this process as soon as it is started.
func (s *Service) UseQueue(q Queue) { s.queue = q }

// validID is a spawn's id, at most 64 characters (see isID).
var validID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// isID reports whether id is a spawn id.
func isID(id string) bool { return len(id) <= 64 && validID.MatchString(id) }

// secret finds a secret by name: the environment, then SecretsDir/<name>,
// then the configuration.
func (s *Service) secret(name string) (string, bool) {
	if v := os.Getenv(name); v != "" {
		return v, true
	}
	if s.cfg.SecretsDir != "" {
		if b, err := os.ReadFile(filepath.Join(s.cfg.SecretsDir, filepath.Base(name))); err == nil {
			return strings.TrimRight(string(b), "\r\n"), true
		}
	}
	v, ok := s.cfg.Secrets[name]
	return v, ok
}

// cliPath finds the agent CLI llm names.
func (s *Service) cliPath(llm string) (string, error) {
	path := map[string]string{"claude": s.cfg.ClaudePath, "gemini": s.cfg.GeminiPath}
	cli, known := path[llm]
	if !known {
		return "", fmt.Errorf("llm %q: use claude or gemini", llm)
	}
	if cli == "" {
		cli = llm
	}
	if !filepath.IsAbs(cli) {
		p, err := lookPath(cli)
		if err != nil {
			return "", fmt.Errorf("the %s CLI is not installed (npm install -g %s), or set spawn.%sPath", llm, map[string]string{"claude": "@anthropic-ai/claude-code", "gemini": "@google/gemini-cli"}[llm], llm)
		}
		cli = p
	}
	return cli, nil
}

// credentialNames are the variables each CLI logs in with. The agent's HOME
// is a fresh directory, so a login kept there (~/.claude, ~/.gemini) is out
// of its reach; these, when set, go to the CLI's environment.
var credentialNames = map[string][]string{
	"claude": {"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN"},
	"gemini": {"GEMINI_API_KEY", "GOOGLE_API_KEY"},
}

// modelSettings are the variables, not secrets, by which a CLI reaches its
// model: a gateway's address, the model, a proxy. Taken from BarrHawk's
// environment as they are (the sandbox's is otherwise empty).
var modelSettings = map[string][]string{
	"claude": {"ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL"},
	"gemini": {"GOOGLE_GEMINI_BASE_URL", "GEMINI_MODEL"},
	"":       {"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"},
}

// reachModel is the part of BarrHawk's environment llm's CLI needs to
// reach its model.
func reachModel(llm string) map[string]string {
	out := map[string]string{}
	for _, name := range append(slices.Clone(modelSettings[llm]), modelSettings[""]...) {
		if v := os.Getenv(name); v != "" {
			out[name] = v
		}
	}
	return out
}

// credentials looks up llm's login variables where secrets are found (the
// environment, spawn.secretsDir, spawn.secrets).
func (s *Service) credentials(llm string) map[string]string {
	out := map[string]string{}
	for _, name := range credentialNames[llm] {
		if v, ok := s.secret(name); ok && v != "" {
			out[name] = v
		}
	}
	return out
}

// secrets looks up the named secrets.
func (s *Service) secrets(names []string) (map[string]string, error) {
	out := map[string]string{}
	for _, name := range names {
		v, ok := s.secret(name)
		if !ok {
			return nil, fmt.Errorf("secret %q not found: set it in the environment, in spawn.secretsDir (%s), or in spawn.secrets", name, s.cfg.SecretsDir)
		}
		out[name] = v
	}
	return out, nil
}

// Check refuses what would make a spawn fail before its agent runs (an
// empty prompt, a bad id, an unknown or missing CLI, a repo outside git, a
// secret nobody gave), so it is said at once rather than queued; it fills
// in the defaults (LLM claude, an id, Repo absolute).
func (s *Service) Check(ctx context.Context, o *Options) error {
	_, err := s.check(ctx, o)
	return err
}

// check is Check, returning the secrets it looked up.
func (s *Service) check(ctx context.Context, o *Options) (map[string]string, error) {
	if strings.TrimSpace(o.Prompt) == "" {
		return nil, errors.New("the prompt is empty: say what the agent should do")
	}
	if o.ID == "" {
		o.ID = strings.ToLower(rand.Text()[:10])
	}
	if !isID(o.ID) {
		return nil, fmt.Errorf("spawn id %q: use lower-case letters, digits and '-'", o.ID)
	}
	if o.LLM == "" {
		o.LLM = "claude"
	}
	if _, err := s.cliPath(o.LLM); err != nil {
		return nil, err
	}
	if o.Repo == "" {
		o.Repo = "."
	}
	repo, err := filepath.Abs(o.Repo)
	if err != nil {
		return nil, err
	}
	o.Repo = repo
	if err := exec.CommandContext(ctx, "git", "-C", repo, "rev-parse", "--show-toplevel").Run(); err != nil {
		return nil, fmt.Errorf("repo %s is not inside a git repository: a spawn works on a branch of one (give repo, or run from inside one)", repo)
	}
	return s.secrets(o.Secrets)
}

// Start checks a spawn and queues it as a job of kind "agent" (or, with no
// queue, begins it in this process), and returns its id at once; done
// receives its final status, wherever it ran. When the run happens in this
// process, onEvent sees every event (redacted) and o.Ask is how
// interactive recovery asks; elsewhere, recovery behaves as moderate.
func (s *Service) Start(ctx context.Context, o Options, onEvent func(Event)) (string, <-chan *Status, error) {
	secrets, err := s.check(ctx, &o)
	if err != nil {
		return "", nil, err
	}
	repo := o.Repo
	red := redact.New(slices.Collect(maps.Values(secrets))...)
	dir := filepath.Join(s.cfg.Dir, o.ID)
	if _, err := os.Stat(dir); err == nil {
		return "", nil, fmt.Errorf("a spawn %q exists already", o.ID)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, err
	}
	now := time.Now().UTC()
	st := &Status{ID: o.ID, Phase: "queued", Status: "queued", Prompt: red.String(o.Prompt), Repo: repo, LLM: o.LLM, StartedAt: now, UpdatedAt: now, LastActivity: now, FilesChanged: []string{}}
	if err := s.save(st); err != nil {
		return "", nil, err
	}
	w := &watch{onEvent: onEvent, ask: o.Ask, done: make(chan *Status, 1)}
	s.mu.Lock()
	s.watches[o.ID] = w
	s.mu.Unlock()
	job := jobs.AgentJob{SpawnID: o.ID, Prompt: o.Prompt, Repo: repo, Ref: o.Ref, LLM: o.LLM, Mode: o.Mode, Recovery: o.Recovery,
		IdleTimeout: o.IdleTimeout, TotalTimeout: o.TotalTimeout, Secrets: o.Secrets, PR: o.PR, Base: o.Base}
	if s.queue == nil {
		go s.RunJob(context.WithoutCancel(ctx), 0, job)
		return o.ID, w.done, nil
	}
	jobID, err := s.queue.SubmitAgent(ctx, job)
	if err != nil {
		s.forget(o.ID)
		st.Phase, st.Status, st.Error = "done", "error", err.Error()
		_ = s.save(st)
		return "", nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "job"), []byte(strconv.FormatInt(jobID, 10)), 0o644); err != nil {
		return "", nil, err
	}
	go s.follow(o.ID, w)
	return o.ID, w.done, nil
}

// follow waits for a queued spawn's end wherever it runs: its status file
// says done, or its job ended without it (see Status).
func (s *Service) follow(id string, w *watch) {
	defer s.forget(id)
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for range t.C {
		if st, err := s.Status(id); err == nil && st.Phase == "done" {
			w.finish(st) // a no-op when the run ended here
			return
		}
	}
}

func (s *Service) forget(id string) {
	s.mu.Lock()
	delete(s.watches, id)
	s.mu.Unlock()
}

// RunJob runs an agent job to its end in this process: the worker's side
// of a spawn. jobID is the queue's (0 when there is none). The status is
// kept in spawn.dir/<id>/status.json as the run goes, and returned.
func (s *Service) RunJob(ctx context.Context, jobID int64, job jobs.AgentJob) *Status {
	dir := filepath.Join(s.cfg.Dir, job.SpawnID)
	st, err := s.Status(job.SpawnID)
	if err != nil {
		now := time.Now().UTC()
		st = &Status{ID: job.SpawnID, Prompt: job.Prompt, Repo: job.Repo, LLM: job.LLM, StartedAt: now, FilesChanged: []string{}}
	}
	if jobID > 0 {
		st.JobID = jobID
	}
	st.Phase, st.Status = "evaluating", "running"
	s.mu.Lock()
	w := s.watches[job.SpawnID]
	s.mu.Unlock()
	if w == nil {
		w = &watch{done: make(chan *Status, 1)}
	}
	end := func(status, msg string) *Status {
		st.Phase, st.Status, st.Error = "done", status, msg
		_ = s.save(st)
		w.finish(st)
		return st
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return end("error", err.Error())
	}
	cli, err := s.cliPath(job.LLM)
	if err != nil {
		return end("error", err.Error())
	}
	secrets, err := s.secrets(job.Secrets)
	if err != nil {
		return end("error", err.Error())
	}
	creds := s.credentials(job.LLM)
	red := redact.New(append(slices.Collect(maps.Values(secrets)), slices.Collect(maps.Values(creds))...)...)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	s.running[job.SpawnID] = cancel
	s.mu.Unlock()
	var mu sync.Mutex
	lastSave := time.Time{}
	req := SpawnRequest{
		Request: Request{ID: job.SpawnID, Repo: job.Repo, Ref: job.Ref, Prompt: job.Prompt, CLI: job.LLM, CLIPath: cli, StateDir: dir, Env: reachModel(job.LLM),
			IdleTimeout: firstDuration(job.IdleTimeout, s.cfg.IdleTimeout), TotalTimeout: firstDuration(job.TotalTimeout, s.cfg.TotalTimeout)},
		Mode: job.Mode, Recovery: firstString(job.Recovery, s.cfg.Recovery), Secrets: secrets, Inject: job.Secrets, Credentials: creds, Ask: w.ask,
	}
	mu.Lock()
	st.Phase = "running"
	_ = s.save(st)
	mu.Unlock()
	res, err := Spawn(rctx, req, func(e Event) {
		mu.Lock()
		st.Events++
		st.LastActivity = time.Now().UTC()
		if e.Kind == EventFileWrite && !slices.Contains(st.FilesChanged, e.Path) {
			st.FilesChanged = append(st.FilesChanged, e.Path)
		}
		if e.Kind == EventResult {
			st.Usage, st.CostUSD = e.Usage, e.CostUSD
		}
		if time.Since(lastSave) > 500*time.Millisecond {
			lastSave = time.Now()
			_ = s.save(st)
		}
		mu.Unlock()
		if w.onEvent != nil {
			w.onEvent(e)
		}
	})
	mu.Lock()
	defer mu.Unlock()
	switch {
	case err != nil && rctx.Err() != nil:
		// Cancelled before the agent ran (while the worktree was made).
		st.Phase, st.Status = "done", "cancelled"
	case err != nil:
		st.Phase, st.Status, st.Error = "done", "error", red.String(err.Error())
	default:
		st.Result, st.Status = res, res.Status
		st.FilesChanged = res.Changed
		if res.Status == "completed" && len(res.Commits) > 0 {
			st.Phase = "integrating"
			_ = s.save(st)
			in, err := Integrate(context.WithoutCancel(rctx), job.Repo, res.Branch, "spawn "+job.SpawnID+": "+firstLine(job.Prompt), prBody(res), dir,
				PROptions{Open: job.PR, Base: job.Base, APIBase: s.cfg.GitHubAPI, Redact: red.String, Progress: func(in Integration) {
					// mu is held: the run's events are over.
					st.Integration = &in
					_ = s.save(st)
				}})
			st.Integration = in
			if err != nil {
				st.Error = red.String(err.Error())
			}
		}
		st.Phase = "done"
	}
	_ = s.save(st)
	// Not running any more before anyone hears it ended.
	s.mu.Lock()
	delete(s.running, job.SpawnID)
	s.mu.Unlock()
	w.finish(st)
	if s.queue == nil {
		s.forget(job.SpawnID)
	}
	return st
}

// prBody describes a run for its pull request.
func prBody(r *SpawnResult) string {
	var b strings.Builder
	b.WriteString("Opened by a BarrHawk sub-agent.\n\n## Summary\n\n" + r.Summary + "\n\n## Changed files\n\n")
	for _, f := range r.Changed {
		b.WriteString("- " + f + "\n")
	}
	if len(r.Escalations) > 0 {
		fmt.Fprintf(&b, "\n%d permission escalation(s) during the run.\n", len(r.Escalations))
	}
	return b.String()
}

func firstDuration(a, b time.Duration) time.Duration {
	if a > 0 {
		return a
	}
	return b
}

func firstString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// save writes the status atomically.
func (s *Service) save(st *Status) error {
	st.UpdatedAt = time.Now().UTC()
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(s.cfg.Dir, st.ID, "status.json")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Status reads a spawn's status. A spawn whose job ended without its run
// saying so (the worker running it died, or it was cancelled before it
// ran) is reported as the queue knows it.
func (s *Service) Status(id string) (*Status, error) {
	st, err := s.read(id)
	if err != nil || st.Phase == "done" {
		return st, err
	}
	jobID := s.jobID(id)
	if jobID == 0 || s.queue == nil {
		return st, nil
	}
	st.JobID = jobID
	state, err := s.queue.JobState(context.Background(), jobID)
	if err != nil {
		return st, nil
	}
	switch state {
	case "cancelled":
		st.Phase, st.Status = "done", "cancelled"
	case "discarded", "completed":
		// Read again: the run may have saved its end since.
		if again, err := s.read(id); err == nil && again.Phase == "done" {
			return again, nil
		}
		st.Phase, st.Status = "done", "error"
		st.Error = fmt.Sprintf("the worker running it stopped before the run ended (job %d %s; see task_status)", jobID, state)
	}
	return st, nil
}

// read reads a spawn's status.json.
func (s *Service) read(id string) (*Status, error) {
	if !isID(id) {
		return nil, fmt.Errorf("spawn id %q is not one spawn_agent gives", id)
	}
	b, err := os.ReadFile(filepath.Join(s.cfg.Dir, id, "status.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("no spawn %q (spawns are kept in %s)", id, s.cfg.Dir)
	}
	if err != nil {
		return nil, err
	}
	var st Status
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("spawn %q: status.json: %w", id, err)
	}
	return &st, nil
}

// jobID is the queue's job of a spawn, 0 when it has none.
func (s *Service) jobID(id string) int64 {
	b, err := os.ReadFile(filepath.Join(s.cfg.Dir, id, "job"))
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n
}

// Logs returns a spawn's stream (its latest attempt, secrets redacted)
// from offset, at most limit bytes, the offset to ask next, and whether
// the spawn is over.
func (s *Service) Logs(id string, offset int64, limit int) (string, int64, bool, error) {
	st, err := s.Status(id)
	if err != nil {
		return "", 0, false, err
	}
	attempts, _ := filepath.Glob(filepath.Join(s.cfg.Dir, id, "attempt-*", "stream.jsonl"))
	if len(attempts) == 0 {
		return "", 0, st.Phase == "done", nil
	}
	slices.Sort(attempts)
	f, err := os.Open(attempts[len(attempts)-1])
	if err != nil {
		return "", 0, false, err
	}
	defer f.Close()
	fi, _ := f.Stat()
	if offset > fi.Size() {
		offset = fi.Size()
	}
	buf := make([]byte, min(int64(limit), fi.Size()-offset))
	n, _ := f.ReadAt(buf, offset)
	return string(buf[:n]), offset + int64(n), st.Phase == "done" && offset+int64(n) >= fi.Size(), nil
}

// Cancel stops a spawn: one running in this process at once, one queued
// or running elsewhere through its job (a queued one never runs; a
// running one's worker stops it).
func (s *Service) Cancel(id string) error {
	s.mu.Lock()
	cancel, ok := s.running[id]
	s.mu.Unlock()
	if ok {
		cancel()
		return nil
	}
	st, err := s.Status(id)
	if err != nil {
		return fmt.Errorf("no spawn %q", id)
	}
	jobID := s.jobID(id)
	if st.Phase == "done" || jobID == 0 || s.queue == nil {
		return fmt.Errorf("spawn %q is not running here (its phase: %s, status: %s)", id, st.Phase, st.Status)
	}
	if err := s.queue.CancelJob(context.Background(), jobID); err != nil {
		return fmt.Errorf("cancel spawn %q (job %d): %w", id, jobID, err)
	}
	// A job cancelled before it ran leaves its status to be written here.
	if state, err := s.queue.JobState(context.Background(), jobID); err == nil && state == "cancelled" {
		if st, err := s.read(id); err == nil && st.Phase == "queued" {
			st.Phase, st.Status = "done", "cancelled"
			return s.save(st)
		}
	}
	return nil
}
