package mcpconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"
)

// tree is a home with a project four levels down, each level with a
// client's file, and the home with one file of each client.
type tree struct {
	root, home, work, repo, pkg, dir string
	vscodeUser                       string
}

func newTree(t *testing.T) tree {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	tr := tree{root: root, home: home, work: filepath.Join(home, "work")}
	tr.repo = filepath.Join(tr.work, "repo")
	tr.pkg = filepath.Join(tr.repo, "pkg")
	tr.dir = filepath.Join(tr.pkg, "nested")
	tr.vscodeUser = vscodeUserFile(home, runtime.GOOS, os.Getenv("APPDATA"))
	if err := os.MkdirAll(tr.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {"above-home": {"command": "x"}}}`)
	writeFile(t, filepath.Join(home, ".mcp.json"), `{"mcpServers": {"in-home": {"command": "x"}}}`)
	writeFile(t, filepath.Join(tr.work, ".vscode", "mcp.json"), `{"servers": {"work-vscode": {"type": "stdio", "command": "node", "args": ["${workspaceFolder}/srv.js"]}}}`)
	writeFile(t, filepath.Join(tr.repo, ".mcp.json"), `{"mcpServers": {"repo-claude": {"type": "http", "url": "https://example.com/mcp"}}}`)
	writeFile(t, filepath.Join(tr.repo, ".gemini", "settings.json"), `{"mcpServers": {"repo-gemini": {"command": "python", "cwd": "tools"}}}`)
	writeFile(t, filepath.Join(tr.pkg, ".cursor", "mcp.json"), `{"mcpServers": {"pkg-cursor": {"command": "npx", "args": ["-y", "pkg"]}}}`)
	writeFile(t, filepath.Join(home, ".claude.json"), `{
  "mcpServers": {"user-one": {"type": "stdio", "command": "user"}},
  "projects": {
    "`+tr.dir+`": {"mcpServers": {"local-one": {"type": "stdio", "command": "local"}}},
    "`+tr.repo+`": {"mcpServers": {"not-here": {"type": "stdio", "command": "x"}}}
  }
}`)
	writeFile(t, filepath.Join(home, ".cursor", "mcp.json"), `{"mcpServers": {"cursor-user": {"url": "https://cursor.example.com/mcp"}}}`)
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"), `{"mcpServers": {"broken": {"command": "x"}`)
	writeFile(t, tr.vscodeUser, `{"servers": {"vscode-user": {"type": "sse", "url": "http://127.0.0.1:3001/sse"}}}`)
	return tr
}

// projectSearch is the files Discover looks for in dirs, in order.
func projectSearch(dirs ...string) []string {
	var out []string
	for _, d := range dirs {
		for _, f := range projectFiles {
			out = append(out, filepath.Join(d, f.name))
		}
	}
	return out
}

// names returns the servers' names.
func names(servers []Server) []string {
	var out []string
	for _, s := range servers {
		out = append(out, s.Name)
	}
	return out
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	found := Discover(DiscoverOptions{Dir: tr.dir, Home: tr.home})

	wantSearched := append(projectSearch(tr.dir, tr.pkg, tr.repo, tr.work),
		filepath.Join(tr.home, ".claude.json"), filepath.Join(tr.home, ".cursor", "mcp.json"),
		filepath.Join(tr.home, ".gemini", "settings.json"), tr.vscodeUser)
	if !reflect.DeepEqual(found.Searched, wantSearched) {
		t.Errorf("Searched:\n got %q\nwant %q", found.Searched, wantSearched)
	}
	wantNames := []string{"pkg-cursor", "repo-claude", "repo-gemini", "work-vscode", "local-one", "user-one", "cursor-user", "vscode-user"}
	if got := names(found.Servers); !reflect.DeepEqual(got, wantNames) {
		t.Errorf("servers %q, want %q", got, wantNames)
	}
	if len(found.Errors) != 1 || found.Errors[0].Path != filepath.Join(tr.home, ".gemini", "settings.json") ||
		!contains(found.Errors[0].Message, "invalid JSON") {
		t.Errorf("Errors %+v, want the malformed ~/.gemini/settings.json", found.Errors)
	}

	byName := map[string]Server{}
	for _, s := range found.Servers {
		byName[s.Name] = s
	}
	checks := []struct {
		name, client, source string
	}{
		{"pkg-cursor", "cursor", filepath.Join(tr.pkg, ".cursor", "mcp.json")},
		{"repo-claude", "claude-code", filepath.Join(tr.repo, ".mcp.json")},
		{"repo-gemini", "gemini", filepath.Join(tr.repo, ".gemini", "settings.json")},
		{"work-vscode", "vscode", filepath.Join(tr.work, ".vscode", "mcp.json")},
		{"local-one", "claude-code", filepath.Join(tr.home, ".claude.json") + " (project " + tr.dir + ")"},
		{"user-one", "claude-code", filepath.Join(tr.home, ".claude.json") + " (user)"},
		{"cursor-user", "cursor", filepath.Join(tr.home, ".cursor", "mcp.json")},
		{"vscode-user", "vscode", tr.vscodeUser},
	}
	for _, c := range checks {
		if s := byName[c.name]; s.Client != c.client || s.Source != c.source {
			t.Errorf("%s: client %q source %q, want %q %q", c.name, s.Client, s.Source, c.client, c.source)
		}
	}
	if got, want := byName["repo-gemini"].Cwd, filepath.Join(tr.repo, "tools"); got != want {
		t.Errorf("repo-gemini cwd %q, want %q (relative to its project)", got, want)
	}
	if got := byName["cursor-user"].Transport; got != "http" {
		t.Errorf("cursor-user transport %q, want http", got)
	}
}

func TestDiscoverOutsideHome(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	dir := filepath.Join(tr.root, "elsewhere", "proj")
	writeFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {"proj": {"command": "p"}}}`)
	found := Discover(DiscoverOptions{Dir: dir, Home: tr.home})
	// Up to the filesystem root: the file above home is found, home's own .mcp.json is not.
	if got := names(found.Servers); !slices.Contains(got, "proj") || !slices.Contains(got, "above-home") || slices.Contains(got, "in-home") {
		t.Errorf("servers %q", got)
	}
	if rootFile := filepath.Join(filepath.VolumeName(dir)+string(filepath.Separator), ".mcp.json"); !slices.Contains(found.Searched, rootFile) {
		t.Errorf("Searched does not reach %s: %q", rootFile, found.Searched)
	}
	if got := names(found.Servers); slices.Contains(got, "local-one") {
		t.Errorf("local-scope servers of another project found: %q", got)
	}
}

func TestDiscoverPaths(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	extra := writeFile(t, filepath.Join(tr.root, "extra", "servers.json"), `{"mcpServers": {"extra-file": {"command": "e"}}}`)
	dir := filepath.Join(tr.root, "extra-dir")
	writeFile(t, filepath.Join(dir, "mcp.json"), `{"servers": {"dir-vscode": {"type": "http", "url": "http://127.0.0.1:1/mcp"}}}`)
	writeFile(t, filepath.Join(dir, ".cursor", "mcp.json"), `{"mcpServers": {"dir-cursor": {"command": "c"}}}`)
	gemini := filepath.Join(tr.root, "g", ".gemini")
	writeFile(t, filepath.Join(gemini, "settings.json"), `{"mcpServers": {"dir-gemini": {"command": "g"}}}`)
	missing := filepath.Join(tr.root, "missing.json")
	dirSearch := func(d string, more ...string) []string {
		var out []string
		for _, name := range append(slices.Clone(dirFiles), more...) {
			out = append(out, filepath.Join(d, name))
		}
		return out
	}

	tests := []struct {
		name         string
		opts         DiscoverOptions
		wantNames    []string
		wantSearched []string
		wantErrors   []string // paths
	}{
		{"a file", DiscoverOptions{Dir: tr.dir, Home: tr.home, Paths: []string{extra}},
			[]string{"extra-file"}, []string{extra}, nil},
		{"a directory", DiscoverOptions{Dir: tr.dir, Home: tr.home, Paths: []string{dir}},
			[]string{"dir-vscode", "dir-cursor"}, dirSearch(dir), nil},
		{"a .gemini directory", DiscoverOptions{Dir: tr.dir, Home: tr.home, Paths: []string{gemini}},
			[]string{"dir-gemini"}, dirSearch(gemini, "settings.json"), nil},
		{"from home", DiscoverOptions{Dir: tr.dir, Home: tr.home, Paths: []string{"~/.cursor/mcp.json"}},
			[]string{"cursor-user"}, []string{filepath.Join(tr.home, ".cursor", "mcp.json")}, nil},
		{"missing", DiscoverOptions{Dir: tr.dir, Home: tr.home, Paths: []string{missing, extra}},
			[]string{"extra-file"}, []string{missing, extra}, []string{missing}},
		{"with defaults", DiscoverOptions{Dir: tr.dir, Home: tr.home, Paths: []string{extra, filepath.Join(tr.repo, ".mcp.json")}, Defaults: true},
			[]string{"pkg-cursor", "repo-claude", "repo-gemini", "work-vscode", "local-one", "user-one", "cursor-user", "vscode-user", "extra-file"},
			nil, []string{filepath.Join(tr.home, ".gemini", "settings.json")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			found := Discover(tt.opts)
			if got := names(found.Servers); !reflect.DeepEqual(got, tt.wantNames) {
				t.Errorf("servers %q, want %q", got, tt.wantNames)
			}
			if tt.wantSearched != nil && !reflect.DeepEqual(found.Searched, tt.wantSearched) {
				t.Errorf("Searched:\n got %q\nwant %q", found.Searched, tt.wantSearched)
			}
			var errPaths []string
			for _, e := range found.Errors {
				errPaths = append(errPaths, e.Path)
			}
			if !reflect.DeepEqual(errPaths, tt.wantErrors) {
				t.Errorf("errors %+v, want for %q", found.Errors, tt.wantErrors)
			}
		})
	}
}

func TestDiscoverUnreadable(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	if err := os.Mkdir(filepath.Join(tr.dir, ".mcp.json"), 0o755); err != nil { // exists, cannot be read as a file
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(tr.dir, ".cursor", "mcp.json"), `{"mcpServers": {"ok": {"command": "ok"}, "bad": {"args": ["x"]}}}`)
	found := Discover(DiscoverOptions{Dir: tr.dir, Home: tr.home})
	if got := names(found.Servers); len(got) == 0 || got[0] != "ok" {
		t.Errorf("servers %q, want ok first and the rest still found", got)
	}
	want := []FileError{
		{Path: filepath.Join(tr.dir, ".mcp.json"), Message: "cannot be read: is a directory"},
		{Path: filepath.Join(tr.dir, ".cursor", "mcp.json"), Server: "bad", Message: `has neither "command" nor "url": give "command" (and "args") to run a stdio server, or "url" to reach an HTTP one`},
	}
	if len(found.Errors) < 2 || !reflect.DeepEqual(found.Errors[:2], want) {
		t.Errorf("Errors:\n got %+v\nwant %+v first", found.Errors, want)
	}
}

// TestDiscoverDefaults changes the working directory, so it runs alone.
func TestDiscoverDefaults(t *testing.T) {
	tr := newTree(t)
	t.Chdir(tr.dir)
	t.Setenv("HOME", tr.home)
	t.Setenv("USERPROFILE", tr.home)
	found := Discover(DiscoverOptions{})
	if got := names(found.Servers); !slices.Contains(got, "pkg-cursor") || !slices.Contains(got, "local-one") || !slices.Contains(got, "cursor-user") {
		t.Errorf("servers %q", got)
	}
}

func TestVSCodeUserFile(t *testing.T) {
	t.Parallel()
	home := filepath.Join("/", "home", "me")
	tests := []struct{ goos, appData, want string }{
		{"linux", "", filepath.Join(home, ".config", "Code", "User", "mcp.json")},
		{"darwin", "", filepath.Join(home, "Library", "Application Support", "Code", "User", "mcp.json")},
		{"windows", filepath.Join("/", "roaming"), filepath.Join("/", "roaming", "Code", "User", "mcp.json")},
		{"windows", "", filepath.Join(home, "AppData", "Roaming", "Code", "User", "mcp.json")},
	}
	for _, tt := range tests {
		if got := vscodeUserFile(home, tt.goos, tt.appData); got != tt.want {
			t.Errorf("vscodeUserFile(%s, %q) = %q, want %q", tt.goos, tt.appData, got, tt.want)
		}
	}
}

// A project that is the home directory itself (a client started in ~)
// has its .mcp.json read; ~/.cursor and ~/.gemini are still the user's.
func TestDiscoverProjectAtHome(t *testing.T) {
	home := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".mcp.json", `{"mcpServers": {"at-home": {"command": "a"}}}`)
	write(".cursor/mcp.json", `{"mcpServers": {"cursor-user": {"command": "c"}}}`)
	found := Discover(DiscoverOptions{Dir: home, Home: home})
	var names, sources []string
	for _, s := range found.Servers {
		names = append(names, s.Name)
		sources = append(sources, s.Source)
	}
	if fmt.Sprint(names) != "[at-home cursor-user]" || len(found.Errors) != 0 {
		t.Errorf("servers %v from %v, errors %v", names, sources, found.Errors)
	}
	n := 0
	for _, p := range found.Searched {
		if p == filepath.Join(home, ".cursor", "mcp.json") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("~/.cursor/mcp.json searched %d times: %v", n, found.Searched)
	}
}
