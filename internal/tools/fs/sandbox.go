package fs

import (
	"context"
	"errors"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/barrhawk/barrhawk/internal/fspath"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// sandbox confines one call to its allowed roots. Every path argument is
// resolved to a root and a path relative to it, and every operation goes
// through that root's os.Root, which refuses `..` and symbolic links that
// lead out of it. Close it when the call ends.
type sandbox struct {
	roots  []string
	opened map[string]*os.Root
}

// place is a path argument resolved inside a root.
type place struct {
	root    *os.Root
	rootDir string
	// rel is the cleaned path relative to rootDir; "." is the root itself.
	rel string
	// abs is the absolute path, for results and messages.
	abs string
}

// newSandbox returns the sandbox of the roots ctx carries; without any
// (a test, or a call that did not come through the front), the working
// directory is the one root.
func newSandbox(ctx context.Context) (*sandbox, error) {
	roots := tool.RootsFrom(ctx)
	if len(roots) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return nil, tool.Errorf(tool.CodeInternal, "no allowed roots: the working directory is unknown: %v", err)
		}
		if real, err := filepath.EvalSymlinks(wd); err == nil {
			wd = real
		}
		roots = []string{wd}
	}
	return &sandbox{roots: roots, opened: map[string]*os.Root{}}, nil
}

// Close closes the roots opened.
func (s *sandbox) Close() {
	for _, r := range s.opened {
		_ = r.Close() // a directory handle opened for reading; nothing to flush
	}
}

// rootList names the allowed roots for messages.
func (s *sandbox) rootList() string { return strings.Join(s.roots, ", ") }

// resolve places the path p given in argument arg. A relative path is taken
// from the first root (the working directory); the result must be a root or
// inside one, else FORBIDDEN naming the path and the roots. Symbolic links
// on the way are followed to where they lead when that is inside the roots,
// absolute ones too (os.Root refuses a link to an absolute path, even one
// inside the root); the last element too, unless the call works on the
// link itself (resolveLink).
func (s *sandbox) resolve(arg, p string) (*place, error) { return s.place(arg, p, true) }

// resolveLink is resolve for a call that works on a link itself (fs_remove,
// fs_move): the last element is not followed.
func (s *sandbox) resolveLink(arg, p string) (*place, error) { return s.place(arg, p, false) }

func (s *sandbox) place(arg, p string, follow bool) (*place, error) {
	if p == "" {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: a path is required (relative to %s, or absolute inside %s)", arg, s.roots[0], s.rootList())
	}
	if strings.IndexByte(p, 0) >= 0 {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: the path contains a NUL byte", arg)
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(s.roots[0], abs)
	}
	abs = filepath.Clean(abs)
	// The roots are real paths (their links resolved), so a path given
	// through a link (a root declared as /home/me/proj where /home is a
	// link, /tmp on macOS, a link inside a root to another place in the
	// roots) is placed by where it leads, when that is in the roots; a link
	// leading out is left for os.Root to refuse.
	followed := false
	if follow {
		if real, err := filepath.EvalSymlinks(abs); err == nil && s.rootOf(real) != "" {
			abs, followed = real, true
		}
	}
	if !followed { // a path still to be made, a link kept or one leading out
		if real, ok := realDir(abs); ok && s.rootOf(real) != "" {
			abs = real
		}
	}
	best := s.rootOf(abs)
	if best == "" {
		return nil, tool.Errorf(tool.CodeForbidden, "argument %q: path %q (%s) is outside the allowed roots (%s); give a path inside one of them, or allow its directory with tools.roots in barrhawk.yaml or as a root of your MCP client",
			arg, p, abs, s.rootList())
	}
	rel, err := filepath.Rel(best, abs)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInternal, "path %q relative to root %s: %v", abs, best, err)
	}
	root, ok := s.opened[best]
	if !ok {
		root, err = os.OpenRoot(best)
		var fi iofs.FileInfo
		if err != nil {
			fi, _ = os.Stat(best) // os.OpenRoot's "not a directory" is no syscall error
		}
		switch {
		case errors.Is(err, iofs.ErrNotExist):
			return nil, tool.Errorf(tool.CodeNotFound, "argument %q: path %q is in the allowed root %s, which does not exist; create it, or correct tools.roots in barrhawk.yaml or the roots of your MCP client", arg, p, best)
		case fi != nil && !fi.IsDir():
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: path %q is in the allowed root %s, which is not a directory; a root must be a directory: correct tools.roots in barrhawk.yaml or the roots of your MCP client", arg, p, best)
		case err != nil:
			return nil, tool.Errorf(tool.CodeToolError, "open the allowed root %s: %v", best, err)
		}
		s.opened[best] = root
	}
	return &place{root: root, rootDir: best, rel: rel, abs: abs}, nil
}

// rootOf is the widest root holding path (so that moving within it
// works), or "".
func (s *sandbox) rootOf(path string) string {
	best := ""
	for _, r := range s.roots {
		if fspath.Within(path, r) && (best == "" || len(r) < len(best)) {
			best = r
		}
	}
	return best
}

// realDir returns abs with the symbolic links of its directory resolved
// (those of its longest existing part; the rest and the last element kept
// as they are), and whether that changed it.
func realDir(abs string) (string, bool) {
	dir, rest := filepath.Dir(abs), filepath.Base(abs)
	if dir == abs {
		return abs, false // the filesystem's root
	}
	for {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			out := filepath.Join(real, rest)
			return out, out != abs
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return abs, false
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// isEscape reports whether err is os.Root's refusal of a path that leads
// out of the root (through `..` or a symbolic link). The os package does not
// export that error (it is "path escapes from parent"), so it is known by
// its text.
func isEscape(err error) bool {
	for err != nil {
		if err.Error() == "path escapes from parent" {
			return true
		}
		err = errors.Unwrap(err)
	}
	return false
}

// fail turns an error of an operation on pl into a tool error: an escape or
// a permission refusal is FORBIDDEN, a missing file NOT_FOUND, an existing
// one INVALID_ARGS, anything else TOOL_ERROR; each names the path.
func (s *sandbox) fail(op string, pl *place, err error) error {
	var te *tool.Error
	if errors.As(err, &te) {
		return te
	}
	switch {
	// ENOTEMPTY first: syscall.Errno counts it as fs.ErrExist too.
	case errors.Is(err, syscall.ENOTEMPTY):
		return tool.Errorf(tool.CodeInvalidArgs, "%s %s: the directory is not empty; set recursive to true to remove it and everything in it", op, pl.abs)
	case isEscape(err):
		if link, target, ok := pl.escapingLink(); ok {
			how := "outside the root " + pl.rootDir
			if filepath.IsAbs(target) {
				how = "an absolute target"
			}
			return tool.Errorf(tool.CodeForbidden, "%s %s: the symbolic link %s points to %s, %s; links are followed only when relative and staying inside the root %s, "+
				"so give the path it points to if that is inside an allowed root, or make the link relative (allowed roots: %s)", op, pl.abs, link, target, how, pl.rootDir, s.rootList())
		}
		return tool.Errorf(tool.CodeForbidden, "%s %s: a symbolic link on the way leads outside the root %s (links must be relative and stay inside; allowed roots: %s)", op, pl.abs, pl.rootDir, s.rootList())
	case errors.Is(err, iofs.ErrNotExist):
		return tool.Errorf(tool.CodeNotFound, "%s %s: no such file or directory", op, pl.abs)
	case errors.Is(err, iofs.ErrExist):
		return tool.Errorf(tool.CodeInvalidArgs, "%s %s: already exists", op, pl.abs)
	case errors.Is(err, syscall.EPERM), errors.Is(err, iofs.ErrPermission):
		return tool.Errorf(tool.CodeForbidden, "%s %s: not permitted (the server runs as uid %d): %v", op, pl.abs, os.Geteuid(), unwrapPath(err))
	case errors.Is(err, syscall.ENOTDIR):
		return tool.Errorf(tool.CodeInvalidArgs, "%s %s: a part of the path is a file, not a directory", op, pl.abs)
	case errors.Is(err, syscall.EISDIR):
		return tool.Errorf(tool.CodeInvalidArgs, "%s %s: is a directory", op, pl.abs)
	}
	return tool.Errorf(tool.CodeToolError, "%s %s: %v", op, pl.abs, unwrapPath(err))
}

// escapingLink finds the symbolic link on pl's path that os.Root will not
// follow: the first whose target is absolute or climbs out of the root. It
// returns the link's absolute path and its target.
func (pl *place) escapingLink() (link, target string, ok bool) {
	if pl.rel == "." {
		return "", "", false
	}
	prefix := ""
	for _, part := range strings.Split(pl.rel, string(filepath.Separator)) {
		prefix = filepath.Join(prefix, part)
		fi, err := pl.root.Lstat(prefix)
		if err != nil {
			return "", "", false
		}
		if fi.Mode()&iofs.ModeSymlink == 0 {
			continue
		}
		t, err := pl.root.Readlink(prefix)
		if err != nil {
			return "", "", false
		}
		if filepath.IsAbs(t) || !filepath.IsLocal(filepath.Join(filepath.Dir(prefix), t)) {
			return filepath.Join(pl.rootDir, prefix), t, true
		}
	}
	return "", "", false
}

// unwrapPath drops the *PathError wrapper, whose path is the relative one.
func unwrapPath(err error) error {
	var pe *iofs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// sub opens the directory at pl as a root of its own (for walking and
// extracting into it).
func (pl *place) sub() (*os.Root, error) {
	if pl.rel == "." {
		return os.OpenRoot(pl.rootDir)
	}
	return pl.root.OpenRoot(pl.rel)
}

// kind names the type of a file mode.
func kind(m iofs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m.IsDir():
		return "dir"
	case m&iofs.ModeSymlink != 0:
		return "symlink"
	}
	return "other"
}

// special names a file that is neither a file, a directory nor a link, for
// messages: "a named pipe (FIFO)" rather than its mode string p---------.
func special(m iofs.FileMode) string {
	switch {
	case m&iofs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&iofs.ModeSocket != 0:
		return "a Unix socket"
	case m&iofs.ModeCharDevice != 0:
		return "a character device"
	case m&iofs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file (" + m.Type().String() + ")"
}
