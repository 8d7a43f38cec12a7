package spawn

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Manifest is what a run may touch (the SandboxManifest): paths, the
// agent's tools, the commands on its PATH, the environment, the secrets
// it gets (by name), and how hard the task looks.
type Manifest struct {
	Readable   []string          `json:"readable"`
	Writable   []string          `json:"writable"`
	Tools      []string          `json:"tools"`
	Commands   []string          `json:"commands"`
	Env        map[string]string `json:"env,omitempty"`
	Secrets    []string          `json:"secrets,omitempty"`
	Complexity string            `json:"complexity"` // low, medium, high
	// Why lists how the manifest was made (one line a rule), for the run's
	// record.
	Why []string `json:"why"`
}

// baseTools are the agent's tools for reading and editing its worktree.
// Claude Code's Edit rule covers every file-editing tool (Edit, Write,
// MultiEdit, NotebookEdit); scoped to ./** it lets the agent write inside
// the worktree and nowhere else, where a bare Write or Edit let it write
// anywhere the process could (seen with the real CLI).
var baseTools = []string{"Read", "Glob", "Grep", editRule(".")}

// editRule is Claude Code's Edit rule for a directory and what is under
// it: ./** for the worktree, //ABS/** for an absolute path.
func editRule(dir string) string {
	if dir == "." {
		return "Edit(./**)"
	}
	return "Edit(/" + filepath.Clean(dir) + "/**)"
}

// privateFiles are where a HOME keeps credentials: the agent's HOME is a
// fresh directory, and these of the real one are also refused to its file
// tools by path (an absolute path would otherwise still resolve).
var privateFiles = []string{".ssh", ".aws", ".gnupg", ".kube", ".docker", ".config", ".claude", ".gemini", ".local/share",
	".netrc", ".git-credentials", ".npmrc", ".pypirc", ".claude.json", ".bash_history", ".zsh_history"}

// deniedRules are Claude Code rules refusing the file tools the
// credentials under home.
func deniedRules(home string) []string {
	if home == "" || !filepath.IsAbs(home) {
		return nil
	}
	var out []string
	for _, f := range privateFiles {
		p := "/" + filepath.Join(home, f)
		out = append(out, "Read("+p+")", "Read("+p+"/**)", "Edit("+p+")", "Edit("+p+"/**)")
	}
	return out
}

// projectKinds: a file that marks a kind of project, and the commands its
// builds and tests need.
var projectKinds = []struct {
	file     string
	commands []string
}{
	{"go.mod", []string{"go", "gofmt"}},
	{"package.json", []string{"node", "npm", "npx"}},
	{"Cargo.toml", []string{"cargo", "rustc"}},
	{"pyproject.toml", []string{"python3", "pip"}},
	{"requirements.txt", []string{"python3", "pip"}},
	{"Makefile", []string{"make"}},
	{"pom.xml", []string{"mvn", "java"}},
	{"build.gradle", []string{"gradle", "java"}},
}

// Evaluate builds the manifest of a task: the worktree readable and
// writable; git, and the commands the repository's kind of project needs
// (a go.mod allows go build and go test, a package.json npm test, ...);
// the read and edit tools plus Bash for exactly those commands; the
// complexity from the prompt.
func Evaluate(prompt, repo string) *Manifest {
	m := &Manifest{Tools: slices.Clone(baseTools), Commands: []string{"git"}, Readable: []string{"."}, Writable: []string{"."}}
	m.Why = append(m.Why, "the worktree is readable and writable; git is allowed")
	for _, k := range projectKinds {
		if _, err := os.Stat(filepath.Join(repo, k.file)); err == nil {
			for _, c := range k.commands {
				m.addCommand(c)
			}
			m.Why = append(m.Why, fmt.Sprintf("%s found: %s allowed", k.file, strings.Join(k.commands, ", ")))
		}
	}
	m.Complexity = complexity(prompt)
	return m
}

// addCommand allows a command and the Bash tool for it.
func (m *Manifest) addCommand(c string) bool {
	if slices.Contains(m.Commands, c) {
		return false
	}
	m.Commands = append(m.Commands, c)
	m.Tools = append(m.Tools, "Bash("+c+":*)")
	return true
}

// addTool allows a tool.
func (m *Manifest) addTool(t string) bool {
	if slices.Contains(m.Tools, t) {
		return false
	}
	m.Tools = append(m.Tools, t)
	return true
}

// complexity guesses from the prompt: long, multi-part or cross-cutting
// tasks are high; small and local ones low.
func complexity(prompt string) string {
	p := strings.ToLower(prompt)
	words := len(strings.Fields(p))
	score := 0
	for _, w := range []string{"refactor", "migrate", "redesign", "architecture", "across", "every", "all ", "rewrite"} {
		if strings.Contains(p, w) {
			score += 2
		}
	}
	score += strings.Count(p, "\n- ") + strings.Count(p, " and ")
	switch {
	case words > 150 || score >= 4:
		return "high"
	case words > 40 || score >= 2:
		return "medium"
	}
	return "low"
}

// Save writes the manifest as JSON.
func (m *Manifest) Save(path string) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Brief is the prompt of mode structured: the task rewritten as a precise
// brief (task, manifest, constraints, definition of done), the form the
// improbability drive calls AISP. Mode passthrough sends the prompt as
// given.
func Brief(prompt string, m *Manifest) string {
	var b strings.Builder
	b.WriteString("# Task\n\n" + strings.TrimSpace(prompt) + "\n\n")
	b.WriteString("# What you may use\n\n")
	fmt.Fprintf(&b, "- Work only inside the current directory (a git worktree of the repository on its own branch).\n")
	fmt.Fprintf(&b, "- Commands on your PATH: %s. Nothing else is installed for you.\n", strings.Join(m.Commands, ", "))
	fmt.Fprintf(&b, "- Tools: %s.\n", strings.Join(m.Tools, ", "))
	if len(m.Secrets) > 0 {
		fmt.Fprintf(&b, "- Environment variables given to you: %s (secrets: never print them).\n", strings.Join(m.Secrets, ", "))
	}
	b.WriteString("\n# Constraints\n\n")
	b.WriteString("- Change only what the task needs; keep the project's style.\n")
	b.WriteString("- Do not touch files outside this directory, and do not push.\n")
	b.WriteString("\n# Definition of done\n\n")
	b.WriteString("- The task above is done.\n")
	for _, c := range m.Commands {
		switch c {
		case "go":
			b.WriteString("- `go build ./...` and `go test ./...` pass.\n")
		case "npm":
			b.WriteString("- `npm test` passes.\n")
		case "cargo":
			b.WriteString("- `cargo test` passes.\n")
		case "make":
			b.WriteString("- `make` succeeds.\n")
		}
	}
	b.WriteString("- Your changes are committed with a message that says why.\n")
	b.WriteString("- Your last message summarises what you changed.\n")
	return b.String()
}
