package main

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/app"
	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/docs"
	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// docPages returns README.md and every page of docs/, relative to the
// repository.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(repoRoot, "README.md")}, pages...)
}

// pageBlock is a code block of a page, named relative to the repository.
type pageBlock struct {
	page string
	docs.Block
}

// docBlocks returns the code blocks of README.md and docs/.
func docBlocks(t *testing.T) []pageBlock {
	t.Helper()
	var out []pageBlock
	for _, page := range docPages(t) {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(repoRoot, page)
		for _, b := range docs.CodeBlocks(string(text)) {
			out = append(out, pageBlock{name, b})
		}
	}
	return out
}

// isShell reports whether a code block's language is a shell's.
func isShell(lang string) bool {
	switch lang {
	case "sh", "bash", "shell", "console":
		return true
	}
	return false
}

// shellText is the commands of a shell block: the prompted lines of a
// session, or every line.
func shellText(block string) string {
	tr := docs.Transcripts(block)
	if tr == nil {
		return block
	}
	cmds := make([]string, len(tr))
	for i, c := range tr {
		cmds[i] = c.Command
	}
	return strings.Join(cmds, "\n")
}

// barrhawkArgs returns the arguments a command line gives bin/barrhawk
// (scripts/run passes its own through, serve by default), and whether it
// runs barrhawk at all.
func barrhawkArgs(words []string) ([]string, bool) {
	switch name := words[0]; {
	case name == "barrhawk" || strings.HasSuffix(name, "/barrhawk"):
		return words[1:], true
	case name == "scripts/run":
		if len(words) == 1 {
			return []string{"serve"}, true
		}
		return words[1:], true
	}
	return nil, false
}

// checkCLI reports what is wrong with args as a barrhawk command line: an
// unknown command, an unknown flag or a bad flag value, or the wrong number
// of arguments, as the CLI itself would say.
func checkCLI(args []string) error {
	root := rootCmd()
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if cmd == root {
		return errors.New("names no command")
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return err
	}
	return cmd.ValidateArgs(cmd.Flags().Args())
}

// The code examples of the README and docs/ are real: a json block is one
// or more JSON values, a yaml block loads as a barrhawk.yaml, every
// barrhawk (or scripts/run) command line of a shell block names a real
// command with real flags, and every scripts/ command exists.
func TestDocExamples(t *testing.T) {
	jsonBlocks, yamlBlocks, commands := 0, 0, 0
	for _, b := range docBlocks(t) {
		name := b.page
		switch {
		case b.Lang == "json":
			jsonBlocks++
			dec := json.NewDecoder(strings.NewReader(b.Text))
			for n := 0; ; n++ {
				var v any
				err := dec.Decode(&v)
				if err == io.EOF && n > 0 {
					break
				}
				if err != nil {
					t.Errorf("%s:%d: json block does not parse: %v", name, b.Line, err)
					break
				}
			}
		case b.Lang == "yaml":
			// Every YAML example is (a part of) a barrhawk.yaml: it loads.
			yamlBlocks++
			file := filepath.Join(t.TempDir(), config.FileName)
			if err := os.WriteFile(file, []byte(b.Text), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := config.Load(file, nil); err != nil {
				t.Errorf("%s:%d: yaml block is not a barrhawk.yaml: %v", name, b.Line, err)
			}
		case isShell(b.Lang):
			for _, words := range docs.ShellCommands(shellText(b.Text)) {
				if strings.HasPrefix(words[0], "scripts/") {
					if _, err := os.Stat(filepath.Join(repoRoot, words[0])); err != nil {
						t.Errorf("%s:%d: %s: no such script", name, b.Line, words[0])
					}
				}
				args, ok := barrhawkArgs(words)
				if !ok {
					continue
				}
				commands++
				if err := checkCLI(args); err != nil {
					t.Errorf("%s:%d: barrhawk %s: %v", name, b.Line, strings.Join(args, " "), err)
				}
			}
		}
	}
	if jsonBlocks < 10 || yamlBlocks < 3 || commands < 10 {
		t.Errorf("found only %d json blocks, %d yaml blocks and %d barrhawk command lines: is the reader broken?", jsonBlocks, yamlBlocks, commands)
	}
}

// The checks of TestDocExamples catch what they should.
func TestCheckCLI(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--http", "127.0.0.1:8765", "--stdio=false"},
		{"call", "hash_text", `{"text":"a"}`},
		{"worker", "attach", "ID", "-n", "10"},
		{"task", "submit", "--repo", ".", "--build", "go build ./..."},
		{"serve", "--config", "x.yaml", "--log-level", "debug"},
	} {
		if err := checkCLI(args); err != nil {
			t.Errorf("checkCLI(%q) = %v, want nil", args, err)
		}
	}
	for _, args := range [][]string{
		{"serv"},
		{"serve", "--htp", "x"},
		{"call"},
		{"worker", "start", "--count", "many"},
		{},
	} {
		if err := checkCLI(args); err == nil {
			t.Errorf("checkCLI(%q) = nil, want an error", args)
		}
	}
}

// The `barrhawk call` examples whose answers the docs show are run, and
// their answers (stdout and stderr) compared with the docs: the docs show
// only deterministic calls, so any difference is a drift.
func TestDocCallExamples(t *testing.T) {
	bin, err := testbin.Path()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	ran := 0
	for _, b := range docBlocks(t) {
		name := b.page
		if !isShell(b.Lang) {
			continue
		}
		for _, tr := range docs.Transcripts(b.Text) {
			cmds := docs.ShellCommands(tr.Command)
			if tr.Output == "" || len(cmds) != 1 {
				continue
			}
			args, ok := barrhawkArgs(cmds[0])
			if !ok || len(args) < 2 || args[0] != "call" {
				t.Errorf("%s:%d: %q shows an answer but is not a barrhawk call: only those are checked", name, b.Line, tr.Command)
				continue
			}
			ran++
			cmd := exec.Command(bin, args...)
			cmd.Dir = home
			cmd.Env = append(os.Environ(), "BARRHAWK_HOME="+home, "BARRHAWK_CONFIG=")
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(string(out)); got != tr.Output {
				t.Errorf("%s:%d: %s\nanswers:\n%s\nthe page shows:\n%s", name, b.Line, tr.Command, got, tr.Output)
			}
		}
	}
	if ran < 5 {
		t.Errorf("ran only %d call examples", ran)
	}
}

// Every tool has its section in docs/tools.md, and every family of tools is
// linked from a page of docs/ other than the reference itself, so that no
// family is documented only as a table.
func TestEveryToolFamilyHasAPage(t *testing.T) {
	t.Setenv("BARRHAWK_TEST_TOOLS", "")
	d, err := app.NewDoctor(config.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := os.ReadFile(filepath.Join(repoRoot, "docs", "tools.md"))
	if err != nil {
		t.Fatal(err)
	}
	anchors := docs.Anchors(string(ref))
	linked := map[string]bool{}
	for _, page := range docPages(t)[1:] {
		if filepath.Base(page) == "tools.md" {
			continue
		}
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range docs.Links(string(text)) {
			if a, ok := strings.CutPrefix(l, "tools.md#"); ok {
				linked[a] = true
			}
		}
	}
	families := map[string]bool{}
	for _, tl := range d.Registry().List() {
		if tl.Category == tool.CategoryTest {
			continue
		}
		if !anchors[docs.Slug(tl.Name)] {
			t.Errorf("docs/tools.md has no section for %s", tl.Name)
		}
		families[tl.Group] = true
	}
	for f := range families {
		if !linked[docs.Slug(f)] {
			t.Errorf("no page of docs/ links to the %q family (docs/tools.md#%s)", f, docs.Slug(f))
		}
	}
}
