package spawn

import (
	"fmt"
	"slices"
	"strings"
)

// RunOptions are what a run may do, as the CLIs' flags say it.
type RunOptions struct {
	Model string
	// AllowedTools and DisallowedTools name the agent's tools (Claude:
	// "Read", "Edit", "Bash(go test:*)").
	AllowedTools, DisallowedTools []string
	// Dirs are directories beyond the working directory the agent may use.
	Dirs []string
	// PermissionMode is Claude's --permission-mode (acceptEdits, plan,
	// dontAsk) or Gemini's --approval-mode (auto_edit, plan); "" or
	// "default" passes no flag, leaving each CLI's own default.
	PermissionMode string
	// PolicyFile is Gemini CLI's --policy: the policy-engine rules that
	// allow its tools (headless, it registers no tool that would need an
	// approval nobody can give).
	PolicyFile string
}

// Modes that would let an agent act without any permission check: never
// passed, whatever the configuration says (DESIGN.md).
var forbiddenModes = []string{"bypassPermissions", "yolo"}

// ClaudeArgs is the command line for Claude Code, headless and streaming
// typed events: `-p PROMPT --output-format stream-json --verbose` (stream-json
// needs --verbose with -p), the permission mode, the tools and directories.
// The prompt comes first: --allowedTools and --add-dir take several values.
// Every flag is one `claude --help` (2.1.x) lists; never
// --dangerously-skip-permissions.
func ClaudeArgs(prompt string, o RunOptions) ([]string, error) {
	args := []string{"-p", prompt, "--output-format", "stream-json", "--verbose"}
	// Claude Code 2.1.x has no "default" choice (its default is named
	// "manual"): the flag is left out for it.
	if o.PermissionMode != "" && o.PermissionMode != "default" {
		if slices.Contains(forbiddenModes, o.PermissionMode) || !slices.Contains([]string{"acceptEdits", "plan", "dontAsk"}, o.PermissionMode) {
			return nil, fmt.Errorf("permission mode %q: use default, acceptEdits, plan or dontAsk (no mode that skips permission checks)", o.PermissionMode)
		}
		args = append(args, "--permission-mode", o.PermissionMode)
	}
	if o.Model != "" {
		args = append(args, "--model", o.Model)
	}
	if len(o.AllowedTools) > 0 {
		args = append(args, append([]string{"--allowedTools"}, o.AllowedTools...)...)
	}
	if len(o.DisallowedTools) > 0 {
		args = append(args, append([]string{"--disallowedTools"}, o.DisallowedTools...)...)
	}
	if len(o.Dirs) > 0 {
		args = append(args, append([]string{"--add-dir"}, o.Dirs...)...)
	}
	return args, nil
}

// GeminiArgs is the command line for Gemini CLI, headless and streaming:
// `-p PROMPT --output-format stream-json`, the approval mode (never yolo),
// the model, the policy file that allows its tools (--allowed-tools is
// deprecated in favour of the policy engine) and the extra directories.
func GeminiArgs(prompt string, o RunOptions) ([]string, error) {
	args := []string{"-p", prompt, "--output-format", "stream-json"}
	mode := o.PermissionMode
	if mode == "acceptEdits" {
		mode = "auto_edit"
	}
	if mode != "" && mode != "default" {
		if slices.Contains(forbiddenModes, mode) || !slices.Contains([]string{"auto_edit", "plan"}, mode) {
			return nil, fmt.Errorf("approval mode %q: use default, auto_edit or plan (no mode that skips approval)", mode)
		}
		args = append(args, "--approval-mode", mode)
	}
	if o.Model != "" {
		args = append(args, "--model", o.Model)
	}
	if o.PolicyFile != "" {
		args = append(args, "--policy", o.PolicyFile)
	}
	if len(o.Dirs) > 0 {
		args = append(args, "--include-directories", strings.Join(o.Dirs, ","))
	}
	return args, nil
}
