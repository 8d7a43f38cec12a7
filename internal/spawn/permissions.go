package spawn

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Fix is a change to the manifest that answers a permission denial.
type Fix struct {
	Kind   string `json:"kind"` // command, tool, path, env, secret
	Value  string `json:"value"`
	Reason string `json:"reason"`
}

// Problem is a denial and, when one exists, its fix.
type Problem struct {
	Denial string `json:"denial"`
	// Fix is nil for what cannot be fixed (network access).
	Fix *Fix `json:"fix,omitempty"`
}

// textPatterns find denials in text (tool results, errors, stderr) when
// the structured events say nothing.
var textPatterns = []struct {
	re   *regexp.Regexp
	kind string
}{
	{regexp.MustCompile(`(?i)(?:^|\W)([\w.+-]+): (?:command not found|not found)`), "command"},
	{regexp.MustCompile(`(?i)permission to use (\w+) (?:has been )?denied`), "tool"},
	{regexp.MustCompile(`(?i)environment variable ([A-Z][A-Z0-9_]*) (?:is )?not set`), "env"},
	{regexp.MustCompile(`(?i)(?:network|connect|dial|getaddrinfo|ENOTFOUND|Could not resolve host)`), "network"},
}

// Detect finds the denials of a run: first the structured ones the CLI
// reported (Claude's permission_denials; failed tool results), then text
// patterns. Each comes with its fix when one exists.
func Detect(events []Event, stderr string) []Problem {
	var out []Problem
	seen := map[string]bool{}
	add := func(p Problem) {
		key := p.Denial
		if p.Fix != nil {
			key = p.Fix.Kind + ":" + p.Fix.Value
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	uses := map[string]Event{}
	for _, e := range events {
		for _, d := range e.Denials {
			add(fixFor(d))
		}
		// Gemini CLI reports a call its policy refused as a failed tool
		// result ("policy_violation"); the call itself says what it was.
		switch {
		case e.Kind == EventToolUse && e.ToolID != "":
			uses[e.ToolID] = e
		case e.Kind == EventToolResult && e.IsError && strings.Contains(e.Text, "denied by policy"):
			if u, ok := uses[e.ToolID]; ok {
				add(fixFor(Denial{Tool: u.Tool, Input: u.Input}))
			}
		}
	}
	var texts []string
	for _, e := range events {
		if (e.Kind == EventToolResult || e.Kind == EventError) && e.IsError {
			texts = append(texts, e.Text)
		}
	}
	texts = append(texts, stderr)
	for _, t := range texts {
		for _, p := range textPatterns {
			m := p.re.FindStringSubmatch(t)
			if m == nil {
				continue
			}
			switch p.kind {
			case "network":
				add(Problem{Denial: "network access: " + firstLine(t)})
			case "command":
				add(Problem{Denial: firstLine(t), Fix: &Fix{Kind: "command", Value: m[1], Reason: m[1] + " is not on the agent's PATH"}})
			case "tool":
				add(Problem{Denial: firstLine(t), Fix: &Fix{Kind: "tool", Value: m[1], Reason: "the CLI refused the tool " + m[1]}})
			case "env":
				add(Problem{Denial: firstLine(t), Fix: &Fix{Kind: "env", Value: m[1], Reason: "the agent needs " + m[1]}})
			}
		}
	}
	return out
}

// fixFor turns a structured denial into its fix: a shell command denied
// allows the command; a file tool denied on a path outside the worktree
// adds the path; any other tool is allowed.
func fixFor(d Denial) Problem {
	var in map[string]any
	_ = json.Unmarshal(d.Input, &in)
	desc := d.Tool
	if len(d.Input) > 0 {
		desc += " " + string(d.Input)
	}
	switch d.Tool {
	case "Bash", "run_shell_command":
		cmd, _ := in["command"].(string)
		if f := strings.Fields(cmd); len(f) > 0 {
			name := filepath.Base(f[0])
			return Problem{Denial: desc, Fix: &Fix{Kind: "command", Value: name, Reason: fmt.Sprintf("the agent was refused %q", cmd)}}
		}
	case "WebFetch", "WebSearch", "web_fetch", "google_web_search":
		return Problem{Denial: desc + " (network access cannot be granted to a sandbox)"}
	case "Read", "Write", "Edit", "MultiEdit", "read_file", "write_file", "replace":
		if p, _ := in["file_path"].(string); p != "" && filepath.IsAbs(p) {
			return Problem{Denial: desc, Fix: &Fix{Kind: "path", Value: filepath.Dir(p), Reason: "the agent needs " + p}}
		}
	}
	return Problem{Denial: desc, Fix: &Fix{Kind: "tool", Value: d.Tool, Reason: "the CLI refused the tool " + d.Tool}}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// Apply applies fix to the manifest; secrets names the secrets that may be
// given on request. It reports whether the manifest changed.
func (m *Manifest) Apply(f Fix, secrets map[string]string) bool {
	switch f.Kind {
	case "command":
		return m.addCommand(f.Value)
	case "tool":
		return m.addTool(f.Value)
	case "path":
		for _, p := range m.Writable {
			if p == f.Value {
				return false
			}
		}
		m.Readable = append(m.Readable, f.Value)
		m.Writable = append(m.Writable, f.Value)
		m.addTool(editRule(f.Value))
		return true
	case "env", "secret":
		if _, ok := secrets[f.Value]; !ok {
			return false
		}
		for _, s := range m.Secrets {
			if s == f.Value {
				return false
			}
		}
		m.Secrets = append(m.Secrets, f.Value)
		return true
	}
	return false
}
