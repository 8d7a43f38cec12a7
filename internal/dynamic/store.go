package dynamic

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// toolExts are the file extensions of tool files, in order of precedence:
// when both name.ts and name.js exist, name.ts wins.
var toolExts = []string{".ts", ".js"}

// MaxToolNameLen is the longest tool name Write accepts.
const MaxToolNameLen = 64

var toolNameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// ValidToolName reports an error unless name is a valid tool name: a
// lowercase letter followed by lowercase letters, digits or underscores
// (^[a-z][a-z0-9_]*$), at most MaxToolNameLen characters. The error is a
// *tool.Error with code INVALID_ARGS that states the rule.
func ValidToolName(name string) error {
	if !toolNameRE.MatchString(name) || len(name) > MaxToolNameLen {
		return tool.Errorf(tool.CodeInvalidArgs,
			"invalid tool name %q: a tool name is a lowercase letter followed by lowercase letters, digits or underscores (^[a-z][a-z0-9_]*$), at most %d characters",
			name, MaxToolNameLen)
	}
	return nil
}

// IsToolFile reports whether a file name (a base name, not a path) is a tool
// file: it ends in .ts or .js, is not a declaration file (*.d.ts, such as
// barrhawk.d.ts), and is not hidden or temporary (.name.tmp, an editor's
// .#lock, *~ backups, *.swp swap files: none of these end in .ts or .js
// except dot files, which are excluded as hidden).
func IsToolFile(name string) bool {
	if name == "" || strings.HasPrefix(name, ".") || strings.HasSuffix(name, "~") ||
		strings.HasSuffix(name, ".swp") || strings.HasSuffix(name, ".d.ts") {
		return false
	}
	ext := filepath.Ext(name)
	if ext != ".ts" && ext != ".js" {
		return false
	}
	return len(name) > len(ext)
}

// toolBase returns the tool name of a tool file: its base name without the
// extension.
func toolBase(file string) string {
	b := filepath.Base(file)
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// File is one tool file in the tools directory.
type File struct {
	// Name is the base name without extension ("reverse_string").
	Name string
	// Path is the file's path (Store.Dir joined with the base name).
	Path string
	// Ext is ".ts" or ".js".
	Ext     string
	ModTime time.Time
	Size    int64
}

// Store is the dynamic tools directory. Its methods touch only tool files
// (see IsToolFile) and, in Init, barrhawk.d.ts. A Store holds no state but
// Dir, so several processes may share one directory: writes are atomic.
type Store struct {
	// Dir is the tools directory, e.g. ~/.barrhawk/dynamic-tools.
	Dir string
}

// Init creates the tools directory (0755) if needed and writes barrhawk.d.ts
// into it.
func (s *Store) Init() error {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return fmt.Errorf("init dynamic tools dir: %w", err)
	}
	if err := WriteTypes(s.Dir); err != nil {
		return fmt.Errorf("init dynamic tools dir %s: %w", s.Dir, err)
	}
	return nil
}

// List returns the tool files in the directory, sorted by Name and then by
// extension (.ts before .js). A name can therefore appear twice, once per
// extension. Subdirectories, declaration files and hidden or temporary files
// are skipped; a symbolic link counts when it points to a regular file.
func (s *Store) List() ([]File, error) {
	files, err := listToolFiles(s.Dir)
	if err != nil {
		return nil, fmt.Errorf("list dynamic tools: %w", err)
	}
	return files, nil
}

// listToolFiles lists the tool files in dir (see Store.List).
func listToolFiles(dir string) ([]File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []File
	for _, e := range entries {
		if !IsToolFile(e.Name()) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		info, err := e.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed since ReadDir
			}
			return nil, err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			if info, err = os.Stat(path); err != nil {
				continue // dangling link
			}
		}
		if !info.Mode().IsRegular() {
			continue
		}
		out = append(out, File{
			Name:    toolBase(e.Name()),
			Path:    path,
			Ext:     filepath.Ext(e.Name()),
			ModTime: info.ModTime(),
			Size:    info.Size(),
		})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Ext == ".ts" && out[j].Ext != ".ts"
	})
	return out, nil
}

// checkFileName refuses a name that could leave the directory or name a
// hidden file. Read and Delete use it instead of ValidToolName so that a
// hand-made file that List returns (My-Tool.ts) can still be read and deleted.
func checkFileName(name string) error {
	if name == "" || name == "." || name == ".." || strings.HasPrefix(name, ".") ||
		strings.ContainsAny(name, `/\`) || strings.ContainsRune(name, 0) {
		return tool.Errorf(tool.CodeInvalidArgs, "invalid tool name %q: a tool name is a file name without extension, with no path separator and no leading dot", name)
	}
	return nil
}

// candidates returns the files that name means: name.ts and name.js, or,
// when name already ends in .ts or .js ("name.js", a File's Name+Ext), that
// one file.
func candidates(name string) []string {
	if IsToolFile(name) {
		return []string{name}
	}
	out := make([]string, len(toolExts))
	for i, ext := range toolExts {
		out[i] = name + ext
	}
	return out
}

// Read returns the source and path of tool name: name.ts, or name.js when
// there is no name.ts. name may also be a file name with its extension
// ("name.js") to read exactly that file. A missing tool is a *tool.Error
// with code NOT_FOUND.
func (s *Store) Read(name string) (source, path string, err error) {
	if err := checkFileName(name); err != nil {
		return "", "", fmt.Errorf("read dynamic tool: %w", err)
	}
	for _, c := range candidates(name) {
		path = filepath.Join(s.Dir, c)
		b, err := os.ReadFile(path)
		if err == nil {
			return string(b), path, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", "", fmt.Errorf("read dynamic tool %s: %w", name, err)
		}
	}
	return "", "", tool.Errorf(tool.CodeNotFound, "dynamic tool %q not found in %s", name, s.Dir)
}

// Write writes source as name.ts, atomically: into a hidden temporary file
// in the same directory, synced, then renamed over name.ts, so a reader or
// the watcher never sees a partial file. name must satisfy ValidToolName.
// Write neither scans nor compiles: callers Compile first. An existing
// name.js is left alone (name.ts takes precedence).
func (s *Store) Write(name, source string) (path string, err error) {
	if err := ValidToolName(name); err != nil {
		return "", fmt.Errorf("write dynamic tool: %w", err)
	}
	if err := writeFileAtomic(s.Dir, name+".ts", []byte(source), 0o644); err != nil {
		return "", fmt.Errorf("write dynamic tool %s: %w", name, err)
	}
	return filepath.Join(s.Dir, name+".ts"), nil
}

// Delete removes tool name: name.ts and name.js, whichever exist (or, for
// a name with its extension, "name.js", just that file). When none does, the
// error is a *tool.Error with code NOT_FOUND.
func (s *Store) Delete(name string) error {
	if err := checkFileName(name); err != nil {
		return fmt.Errorf("delete dynamic tool: %w", err)
	}
	removed := false
	for _, c := range candidates(name) {
		err := os.Remove(filepath.Join(s.Dir, c))
		switch {
		case err == nil:
			removed = true
		case errors.Is(err, fs.ErrNotExist):
		default:
			return fmt.Errorf("delete dynamic tool %s: %w", name, err)
		}
	}
	if !removed {
		return tool.Errorf(tool.CodeNotFound, "dynamic tool %q not found in %s", name, s.Dir)
	}
	return nil
}

// writeFileAtomic writes data to dir/name through a hidden temporary file in
// dir (".name.*.tmp", which IsToolFile ignores): write, fsync, chmod, close,
// rename over dir/name, then fsync the directory so the rename is durable.
func writeFileAtomic(dir, name string, data []byte, perm fs.FileMode) (err error) {
	f, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync() // best effort: some file systems refuse to sync a directory
		d.Close()
	}
	return nil
}
