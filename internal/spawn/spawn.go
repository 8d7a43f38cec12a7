package spawn

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/barrhawk/barrhawk/internal/redact"
)

// Recovery strategies: how many times a denial is fixed and the run tried
// again in a fresh sandbox.
const (
	RecoveryModerate    = "moderate"    // once
	RecoveryAggressive  = "aggressive"  // while fixes change something (bounded by maxAggressive)
	RecoveryInteractive = "interactive" // each fix asked of the user; moderate without a way to ask
)

// maxAggressive bounds "unlimited" escalations: a run that needs more
// fixes than this is not converging.
const maxAggressive = 10

// Modes of the prompt.
const (
	ModeStructured  = "structured"  // the prompt rewritten as a brief (AISP)
	ModePassthrough = "passthrough" // the prompt as given
)

// SpawnRequest is a whole delegation: one or more runs of the agent, the
// later ones with the permissions the earlier ones lacked.
type SpawnRequest struct {
	Request
	Mode     string
	Recovery string
	// Secrets are values the agent may get as environment variables, by
	// name; those named in Inject are given from the start, the others only
	// when a run asks for them. Every value is redacted everywhere.
	Secrets map[string]string
	Inject  []string
	// Credentials are the CLI's own login (API keys, by variable name):
	// in every run's environment, never named to the agent, redacted like
	// secrets.
	Credentials map[string]string
	// Ask puts a fix to the user (interactive recovery); nil means no way
	// to ask.
	Ask func(ctx context.Context, question string) (bool, error)
}

// Escalation is one fix applied between runs.
type Escalation struct {
	Attempt  int       `json:"attempt"`
	Problems []Problem `json:"problems"`
	Applied  []Fix     `json:"applied"`
}

// SpawnResult is the delegation's outcome: the last run's result, the
// manifest it ran under, and the escalations on the way.
type SpawnResult struct {
	*Result
	Mode        string       `json:"mode"`
	Manifest    *Manifest    `json:"manifest"`
	Attempts    int          `json:"attempts"`
	Escalations []Escalation `json:"escalations,omitempty"`
	// Unfixed are the denials no fix could answer (network access, a
	// secret nobody gave), or that the escalation limit left.
	Unfixed []Problem `json:"unfixed,omitempty"`
}

// Spawn evaluates the task into a manifest, runs the agent under it, and
// when the run met denials, fixes the manifest and runs again in a fresh
// sandbox as the recovery strategy allows. Secrets are injected as
// environment variables and redacted from logs, events and results.
func Spawn(ctx context.Context, req SpawnRequest, onEvent func(Event)) (*SpawnResult, error) {
	if req.ID == "" {
		req.ID = strings.ToLower(rand.Text()[:10])
	}
	if req.Mode == "" {
		req.Mode = ModeStructured
	}
	if req.Mode != ModeStructured && req.Mode != ModePassthrough {
		return nil, fmt.Errorf("mode %q: use structured or passthrough", req.Mode)
	}
	if req.Recovery == "" {
		req.Recovery = RecoveryModerate
	}
	limit := map[string]int{RecoveryModerate: 1, RecoveryAggressive: maxAggressive, RecoveryInteractive: maxAggressive}[req.Recovery]
	if limit == 0 {
		return nil, fmt.Errorf("recovery %q: use moderate, aggressive or interactive", req.Recovery)
	}
	if req.Recovery == RecoveryInteractive && req.Ask == nil {
		limit = 1 // no way to ask: behave as moderate
	}
	values := make([]string, 0, len(req.Secrets)+len(req.Credentials))
	for _, v := range req.Secrets {
		values = append(values, v)
	}
	for _, v := range req.Credentials {
		values = append(values, v)
	}
	red := redact.New(values...)
	req.Redact = red.String

	top, err := exec.CommandContext(ctx, "git", "-C", req.Repo, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return nil, fmt.Errorf("%s is not inside a git repository", req.Repo)
	}
	m := Evaluate(req.Prompt, strings.TrimSpace(string(top)))
	for _, name := range req.Inject {
		if _, ok := req.Secrets[name]; !ok {
			return nil, fmt.Errorf("secret %q was asked for but not given (set it in the environment, a file or the config)", name)
		}
		m.Secrets = append(m.Secrets, name)
	}
	home := req.RealHome
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	denied := deniedRules(home)
	base := req.StateDir
	out := &SpawnResult{Mode: req.Mode}
	for attempt := 1; ; attempt++ {
		if attempt > 1 && ctx.Err() != nil { // cancelled between attempts
			out.Status = "cancelled"
			return out, nil
		}
		run := req.Request
		run.ID = runID(req.ID, attempt)
		run.StateDir = filepath.Join(base, fmt.Sprintf("attempt-%d", attempt))
		if err := os.MkdirAll(run.StateDir, 0o700); err != nil {
			return nil, err
		}
		_ = m.Save(filepath.Join(run.StateDir, "manifest.json"))
		run.Prompt = req.Prompt
		if req.Mode == ModeStructured {
			run.Prompt = Brief(req.Prompt, m)
		}
		run.Commands = without(m.Commands, "git")
		run.Options.AllowedTools = m.Tools
		run.Options.DisallowedTools = denied
		run.Options.Dirs = without(m.Writable, ".")
		run.Env = map[string]string{}
		for k, v := range req.Env {
			run.Env[k] = v
		}
		for k, v := range m.Env {
			run.Env[k] = v
		}
		for _, name := range m.Secrets {
			run.Env[name] = req.Secrets[name]
		}
		for k, v := range req.Credentials {
			run.Env[k] = v
		}
		var events []Event
		res, err := Run(ctx, run, func(e Event) {
			events = append(events, e)
			if onEvent != nil {
				onEvent(e)
			}
		})
		if err != nil {
			return nil, err
		}
		out.Result, out.Manifest, out.Attempts = res, m, attempt
		stderr, _ := os.ReadFile(res.StderrLog)
		problems := Detect(events, string(stderr))
		if len(problems) == 0 || res.Status == "cancelled" {
			out.Unfixed = nil
			return out, nil
		}
		var applied []Fix
		out.Unfixed = nil
		for _, p := range problems {
			if p.Fix == nil {
				out.Unfixed = append(out.Unfixed, p)
				continue
			}
			if req.Recovery == RecoveryInteractive && req.Ask != nil {
				ok, err := req.Ask(ctx, fmt.Sprintf("The agent was refused: %s. Allow %s %q (%s)?", p.Denial, p.Fix.Kind, p.Fix.Value, p.Fix.Reason))
				if err != nil || !ok {
					out.Unfixed = append(out.Unfixed, p)
					continue
				}
			}
			if m.Apply(*p.Fix, req.Secrets) {
				applied = append(applied, *p.Fix)
			} else {
				out.Unfixed = append(out.Unfixed, p)
			}
		}
		if len(applied) == 0 || attempt > limit {
			if len(applied) > 0 { // over the limit: these were not tried
				for _, f := range applied {
					out.Unfixed = append(out.Unfixed, Problem{Denial: f.Reason, Fix: &f})
				}
			}
			return out, nil
		}
		out.Escalations = append(out.Escalations, Escalation{Attempt: attempt, Problems: problems, Applied: applied})
		// The retry starts afresh: this attempt's branch goes.
		_ = exec.Command("git", "-C", req.Repo, "branch", "-D", "--quiet", res.Branch).Run()
	}
}

func without(list []string, drop string) []string {
	var out []string
	for _, s := range list {
		if s != drop {
			out = append(out, s)
		}
	}
	return out
}
