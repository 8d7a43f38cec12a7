package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/app"
	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/docs"
)

const repoRoot = "../.."

// The tool reference in docs/tools.md and the families in the README are
// generated from the registry; this fails when they disagree, and
// UPDATE_DOCS=1 rewrites them.
func TestToolsReference(t *testing.T) {
	t.Setenv("BARRHAWK_TEST_TOOLS", "") // fault tools are never documented
	d, err := app.NewDoctor(config.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := d.Registry().List()
	for _, c := range []struct {
		file, begin, end, want string
	}{
		{"docs/tools.md", docs.ToolsBegin, docs.ToolsEnd, docs.Reference(tools)},
		{"README.md", docs.SummaryBegin, docs.SummaryEnd, docs.Summary(tools, "docs/tools.md")},
	} {
		checkGenerated(t, c.file, c.begin, c.end, c.want, "TestToolsReference")
	}
}

// The configuration reference in docs/configuration.md is generated from
// the config package's own definitions (its structs' koanf keys and doc
// comments, config.Default and config.EnvVars); this fails when they
// disagree, and UPDATE_DOCS=1 rewrites it.
func TestConfigReference(t *testing.T) {
	def := config.Default()
	env := make([]docs.EnvVar, len(config.EnvVars))
	for i, e := range config.EnvVars {
		env[i] = docs.EnvVar{Name: e.Name, Key: e.Key, Doc: e.Doc}
	}
	want, err := docs.ConfigReference(filepath.Join(repoRoot, "internal", "config"), def, docs.ConfigOptions{
		Home:    def.Home,
		Machine: map[string]string{"igors.maxWorkers": "the number of CPU cores"},
		Env:     env,
	})
	if err != nil {
		t.Fatal(err)
	}
	checkGenerated(t, "docs/configuration.md", docs.ConfigBegin, docs.ConfigEnd, want, "TestConfigReference")
}

// checkGenerated fails when the part of file between begin and end is not
// want, or rewrites it with UPDATE_DOCS=1.
func checkGenerated(t *testing.T, file, begin, end, want, test string) {
	t.Helper()
	path := filepath.Join(repoRoot, file)
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	updated, err := docs.Splice(string(text), begin, end, want)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if updated == string(text) {
		return
	}
	if os.Getenv("UPDATE_DOCS") == "1" {
		if err := os.WriteFile(path, []byte(updated), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is out of date with the code; run: UPDATE_DOCS=1 go test ./cmd/barrhawk -run %s", file, test)
}

// The README leads to the tool reference.
func TestReadmeLinksToolsReference(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range docs.Links(string(readme)) {
		if l == "docs/tools.md" {
			return
		}
	}
	t.Error("README.md has no link to docs/tools.md")
}

// Every relative link in README.md and docs/*.md names a file that exists,
// and a #anchor in it a heading of that Markdown file, so that a page moved
// or a heading renamed fails here rather than for a reader.
func TestDocLinks(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join(repoRoot, "README.md")}, pages...)
	anchors := map[string]map[string]bool{} // by cleaned path
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		anchors[path] = docs.Anchors(string(text))
		return anchors[path]
	}
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(repoRoot, page)
		for _, link := range docs.Links(string(text)) {
			u, err := url.Parse(link)
			if err != nil {
				t.Errorf("%s: link %q: %v", name, link, err)
				continue
			}
			if u.Scheme != "" || u.Host != "" || strings.HasPrefix(link, "/") {
				continue // not relative
			}
			target := filepath.Clean(page)
			if u.Path != "" {
				target = filepath.Join(filepath.Dir(page), filepath.FromSlash(u.Path))
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s: link %q: no such file", name, link)
					continue
				}
			}
			if u.Fragment == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			if !anchorsOf(target)[u.Fragment] {
				t.Errorf("%s: link %q: no heading with anchor #%s in %s", name, link, u.Fragment, filepath.ToSlash(u.Path))
			}
		}
	}
}

// The configuration page documents every configuration environment
// variable.
func TestDocsDocumentEnvVars(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(repoRoot, "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range config.EnvVars {
		if !strings.Contains(string(page), "`"+e.Name+"`") {
			t.Errorf("docs/configuration.md does not document %s", e.Name)
		}
	}
}
