package mcpconfig

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// DiscoverOptions say where to look.
type DiscoverOptions struct {
	// Dir is the project directory (the working directory by default);
	// it and its parents are searched for .mcp.json, .cursor/mcp.json,
	// .vscode/mcp.json and .gemini/settings.json, up to the filesystem
	// root, or up to but not including Home when Dir is inside it.
	Dir string
	// Home is the user's home (os.UserHomeDir by default), where
	// ~/.claude.json, ~/.cursor/mcp.json, ~/.gemini/settings.json and VS
	// Code's user mcp.json are read: ~/.config/Code/User/mcp.json on Linux,
	// ~/Library/Application Support/Code/User/mcp.json on macOS,
	// %APPDATA%\Code\User\mcp.json on Windows.
	Home string
	// Paths are more files or directories to read; a directory is searched
	// for the names above and mcp.json, .claude.json and
	// claude_desktop_config.json. A relative path is taken from the working
	// directory, a leading ~/ from Home. When Paths is set, only these are
	// read unless Defaults is true.
	Paths []string
	// Defaults reads the project and home files as well as Paths.
	Defaults bool
}

// Found is what Discover returns.
type Found struct {
	// Servers are the servers found: file by file from Dir upward, then
	// the home files, then Paths; within a file in the order written.
	// Names are kept as written, so two files may give the same name.
	Servers []Server `json:"servers"`
	// Searched is every file looked at, found or not.
	Searched []string `json:"searched"`
	// Errors are the files that exist but could not be read or parsed,
	// the server entries in them that are not valid, and Paths that do
	// not exist.
	Errors []FileError `json:"errors,omitempty"`
}

// projectFiles are the files searched for in the project directory and
// its parents, with their formats.
var projectFiles = []struct {
	name   string
	format Format
}{
	{".mcp.json", FormatClaudeProject},
	{filepath.Join(".cursor", "mcp.json"), FormatCursor},
	{filepath.Join(".vscode", "mcp.json"), FormatVSCode},
	{filepath.Join(".gemini", "settings.json"), FormatGemini},
}

// Discover reads the MCP servers configured for the project directory by
// the clients this package knows, and those in Paths. It does not stop at
// a file it cannot read: that goes into Errors and the search goes on.
func Discover(opts DiscoverOptions) Found {
	d := discovery{home: opts.Home, seen: map[string]bool{}}
	if d.home == "" {
		d.home, _ = os.UserHomeDir()
	}
	if d.home != "" {
		d.home = absolute(d.home)
	}
	d.dir = opts.Dir
	if d.dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			d.found.Errors = append(d.found.Errors, FileError{Path: ".", Message: "the working directory: " + err.Error()})
		}
		d.dir = wd
	}
	if d.dir != "" {
		d.dir = absolute(d.dir)
	}
	if len(opts.Paths) == 0 || opts.Defaults {
		d.project()
		d.homeFiles()
	}
	for _, p := range opts.Paths {
		d.path(p)
	}
	return d.found
}

// discovery is one Discover under way.
type discovery struct {
	dir, home string
	seen      map[string]bool
	found     Found
}

// project searches the project directory and its parents.
func (d *discovery) project() {
	if d.dir == "" {
		return
	}
	for dir := d.dir; ; {
		atHome := d.home != "" && dir == d.home
		if atHome && dir != d.dir {
			return // above a project, the home directory's files are the user's, read by homeFiles
		}
		for _, f := range projectFiles {
			if atHome && (f.format == FormatCursor || f.format == FormatGemini) {
				continue // there they are the user's files, read by homeFiles
			}
			d.read(filepath.Join(dir, f.name), f.format, dir, false)
		}
		if atHome {
			return // the project is the home directory itself: its project files are read, and no further
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return
		}
		dir = parent
	}
}

// homeFiles reads the user-level files in the home directory.
func (d *discovery) homeFiles() {
	if d.home == "" {
		return
	}
	d.read(filepath.Join(d.home, ".claude.json"), FormatClaudeUser, d.dir, false)
	d.read(filepath.Join(d.home, ".cursor", "mcp.json"), FormatCursor, d.dir, false)
	d.read(filepath.Join(d.home, ".gemini", "settings.json"), FormatGemini, d.dir, false)
	d.read(vscodeUserFile(d.home, runtime.GOOS, os.Getenv("APPDATA")), FormatVSCode, d.dir, false)
}

// vscodeUserFile is VS Code's user mcp.json on the system goos.
func vscodeUserFile(home, goos, appData string) string {
	switch goos {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "Code", "User", "mcp.json")
	case "windows":
		if appData == "" {
			appData = filepath.Join(home, "AppData", "Roaming")
		}
		return filepath.Join(appData, "Code", "User", "mcp.json")
	}
	return filepath.Join(home, ".config", "Code", "User", "mcp.json")
}

// dirFiles are the names read in a directory given in Paths.
var dirFiles = []string{".mcp.json", ".claude.json", "mcp.json", "claude_desktop_config.json",
	filepath.Join(".cursor", "mcp.json"), filepath.Join(".vscode", "mcp.json"), filepath.Join(".gemini", "settings.json")}

// path reads a file or directory given in Paths.
func (d *discovery) path(p string) {
	if rest, ok := strings.CutPrefix(p, "~"+string(filepath.Separator)); ok && d.home != "" {
		p = filepath.Join(d.home, rest)
	} else if rest, ok := strings.CutPrefix(p, "~/"); ok && d.home != "" {
		p = filepath.Join(d.home, rest)
	}
	p = absolute(p)
	info, err := os.Stat(p)
	if err != nil {
		d.note(p)
		d.found.Errors = append(d.found.Errors, FileError{Path: p, Message: readMessage(err)})
		return
	}
	if !info.IsDir() {
		d.read(p, FormatAuto, workspaceOf(p, d.dir, d.home), true)
		return
	}
	names := dirFiles
	if filepath.Base(p) == ".gemini" {
		names = append(names[:len(names):len(names)], "settings.json")
	}
	for _, name := range names {
		file := filepath.Join(p, name)
		d.read(file, FormatAuto, workspaceOf(file, d.dir, d.home), false)
	}
}

// read reads one file, once; a file that does not exist is only searched
// unless explicit.
func (d *discovery) read(path string, format Format, workspace string, explicit bool) {
	if !d.note(path) {
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !explicit {
			return
		}
		d.found.Errors = append(d.found.Errors, FileError{Path: path, Message: readMessage(err)})
		return
	}
	servers, errs := parse(input{path: path, data: data, format: format, projectDir: d.dir, workspace: workspace, home: d.home})
	d.found.Servers = append(d.found.Servers, servers...)
	d.found.Errors = append(d.found.Errors, errs...)
}

// note adds path to Searched, reporting whether it is new there.
func (d *discovery) note(path string) bool {
	if d.seen[path] {
		return false
	}
	d.seen[path] = true
	d.found.Searched = append(d.found.Searched, path)
	return true
}

// readMessage says why a file could not be read, without repeating its
// path.
func readMessage(err error) string {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		err = pathErr.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "cannot be read: no such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "cannot be read: permission denied"
	}
	return "cannot be read: " + err.Error()
}

// absolute is path made absolute and clean, or path as it is if that
// fails.
func absolute(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}
