package jobs

import "time"

// AgentJob is a job of kind "agent": a task handed to a sub-agent (Claude
// Code or Gemini CLI) in a worktree of its own. Package spawn runs it; the
// queue only carries it. It names the secrets to inject and never holds
// their values: the worker that runs the job looks them up where it runs.
type AgentJob struct {
	// SpawnID names the run: its files are under spawn.dir/<SpawnID> and
	// its branch is spawn/<SpawnID>.
	SpawnID string `json:"spawnId"`
	Prompt  string `json:"prompt"`
	// Repo is the repository (absolute); Ref the commit to start from.
	Repo string `json:"repo"`
	Ref  string `json:"ref,omitempty"`
	// LLM is the agent CLI (claude or gemini); Mode structured or
	// passthrough; Recovery moderate, aggressive or interactive.
	LLM      string `json:"llm"`
	Mode     string `json:"mode,omitempty"`
	Recovery string `json:"recovery,omitempty"`
	// IdleTimeout and TotalTimeout override the worker's defaults.
	IdleTimeout  time.Duration `json:"idleTimeout,omitempty"`
	TotalTimeout time.Duration `json:"totalTimeout,omitempty"`
	// Secrets are the names of the secrets given to the agent.
	Secrets []string `json:"secrets,omitempty"`
	// PR asks for a pull request against Base (default: the current
	// branch) when the origin is on GitHub.
	PR   bool   `json:"pr,omitempty"`
	Base string `json:"base,omitempty"`
}
