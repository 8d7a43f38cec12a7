package spawn

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

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
	ID           string       `json:"id"`
	Phase        string       `json:"phase"`  // evaluating, running, integrating, done
	Status       string       `json:"status"` // running, completed, failed, idle_timeout, timeout, cancelled, error
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

// Service runs spawns and answers for them.
type Service struct {
	cfg     Config
	mu      sync.Mutex
	running map[string]context.CancelFunc
}

// NewService returns a service.
func NewService(cfg Config) *Service {
	if cfg.Recovery == "" {
		cfg.Recovery = RecoveryModerate
	}
	return &Service{cfg: cfg, running: map[string]context.CancelFunc{}}
}

var validID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)

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

// Start begins a spawn in the background and returns its id at once; done
// receives its final status. onEvent sees every event (redacted).
func (s *Service) Start(ctx context.Context, o Options, onEvent func(Event)) (string, <-chan *Status, error) {
	if strings.TrimSpace(o.Prompt) == "" {
		return "", nil, errors.New("the prompt is empty: say what the agent should do")
	}
	if o.ID == "" {
		o.ID = strings.ToLower(rand.Text()[:10])
	}
	if !validID.MatchString(o.ID) {
		return "", nil, fmt.Errorf("spawn id %q: use lower-case letters, digits and '-'", o.ID)
	}
	if o.LLM == "" {
		o.LLM = "claude"
	}
	path := map[string]string{"claude": s.cfg.ClaudePath, "gemini": s.cfg.GeminiPath}
	cli, known := path[o.LLM]
	if !known {
		return "", nil, fmt.Errorf("llm %q: use claude or gemini", o.LLM)
	}
	if cli == "" {
		cli = o.LLM
	}
	if !filepath.IsAbs(cli) {
		p, err := lookPath(cli)
		if err != nil {
			return "", nil, fmt.Errorf("the %s CLI is not installed (npm install -g %s), or set spawn.%sPath", o.LLM, map[string]string{"claude": "@anthropic-ai/claude-code", "gemini": "@google/gemini-cli"}[o.LLM], o.LLM)
		}
		cli = p
	}
	if o.Repo == "" {
		o.Repo = "."
	}
	repo, err := filepath.Abs(o.Repo)
	if err != nil {
		return "", nil, err
	}
	secrets := map[string]string{}
	for _, name := range o.Secrets {
		v, ok := s.secret(name)
		if !ok {
			return "", nil, fmt.Errorf("secret %q not found: set it in the environment, in %s, or in spawn.secrets", name, s.cfg.SecretsDir)
		}
		secrets[name] = v
	}
	red := redact.New(slices.Collect(mapValues(secrets))...)
	dir := filepath.Join(s.cfg.Dir, o.ID)
	if _, err := os.Stat(dir); err == nil {
		return "", nil, fmt.Errorf("a spawn %q exists already", o.ID)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, err
	}
	now := time.Now().UTC()
	st := &Status{ID: o.ID, Phase: "evaluating", Status: "running", Prompt: red.String(o.Prompt), Repo: repo, LLM: o.LLM, StartedAt: now, UpdatedAt: now, LastActivity: now, FilesChanged: []string{}}
	if err := s.save(st); err != nil {
		return "", nil, err
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.mu.Lock()
	s.running[o.ID] = cancel
	s.mu.Unlock()
	done := make(chan *Status, 1)
	go func() {
		defer cancel()
		var mu sync.Mutex
		lastSave := time.Time{}
		req := SpawnRequest{
			Request: Request{ID: o.ID, Repo: repo, Ref: o.Ref, Prompt: o.Prompt, CLI: o.LLM, CLIPath: cli, StateDir: dir,
				IdleTimeout: firstDuration(o.IdleTimeout, s.cfg.IdleTimeout), TotalTimeout: firstDuration(o.TotalTimeout, s.cfg.TotalTimeout)},
			Mode: o.Mode, Recovery: firstString(o.Recovery, s.cfg.Recovery), Secrets: secrets, Inject: o.Secrets, Ask: o.Ask,
		}
		mu.Lock()
		st.Phase = "running"
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
			if onEvent != nil {
				onEvent(e)
			}
		})
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			st.Phase, st.Status, st.Error = "done", "error", red.String(err.Error())
		} else {
			st.Result, st.Status = res, res.Status
			st.FilesChanged = res.Changed
			if res.Status == "completed" && len(res.Commits) > 0 {
				st.Phase = "integrating"
				_ = s.save(st)
				in, err := Integrate(context.WithoutCancel(rctx), repo, res.Branch, "spawn "+o.ID+": "+firstLine(o.Prompt), prBody(res), dir,
					PROptions{Open: o.PR, Base: o.Base, APIBase: s.cfg.GitHubAPI, Redact: red.String})
				st.Integration = in
				if err != nil {
					st.Error = red.String(err.Error())
				}
			}
			st.Phase = "done"
		}
		st.UpdatedAt = time.Now().UTC()
		_ = s.save(st)
		// Not running any more before anyone hears it ended.
		s.mu.Lock()
		delete(s.running, o.ID)
		s.mu.Unlock()
		done <- st
	}()
	return o.ID, done, nil
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

func mapValues(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
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

// Status reads a spawn's status.
func (s *Service) Status(id string) (*Status, error) {
	if !validID.MatchString(id) {
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

// Cancel stops a running spawn (its agent's process tree).
func (s *Service) Cancel(id string) error {
	s.mu.Lock()
	cancel, ok := s.running[id]
	s.mu.Unlock()
	if !ok {
		if st, err := s.Status(id); err == nil {
			return fmt.Errorf("spawn %q is not running here (its phase: %s)", id, st.Phase)
		}
		return fmt.Errorf("no spawn %q", id)
	}
	cancel()
	return nil
}
