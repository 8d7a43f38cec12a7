package fs

import (
	"context"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// Reader reads files inside the allowed roots of one call, the way the
// fs_* tools do, for other tool families that take a path to read (the
// test reports of the report_* and test_* tools, say): a relative path
// starts in the first root (the server's working directory), and every
// file is opened through its root's os.Root, so `..`, an absolute path
// elsewhere and a symbolic link leading out are refused with FORBIDDEN
// naming the path and the roots. A tool using it sets Def.UsesRoots, so
// that the front sends the roots with each call.
type Reader struct {
	ctx context.Context
	s   *sandbox
}

// NewReader returns the reader of the roots ctx carries (tool.RootsFrom),
// or of the working directory when it carries none. Close it when the call
// ends.
func NewReader(ctx context.Context) (*Reader, error) {
	s, err := newSandbox(ctx)
	if err != nil {
		return nil, err
	}
	return &Reader{ctx: ctx, s: s}, nil
}

// Close closes the roots the reader opened.
func (r *Reader) Close() { r.s.Close() }

// Open opens the file or directory at p, given in argument arg, for
// reading, and returns it with its absolute path. A path outside the roots
// is FORBIDDEN, a missing one NOT_FOUND; each error names the path.
func (r *Reader) Open(arg, p string) (*os.File, string, error) {
	pl, err := r.s.resolve(arg, p)
	if err != nil {
		return nil, "", err
	}
	f, err := pl.root.Open(pl.rel)
	if err != nil {
		return nil, "", r.s.fail("open", pl, err)
	}
	return f, pl.abs, nil
}

// Glob returns the absolute paths of the regular files matching pattern,
// given in argument arg, in lexical order; more than limit of them is
// INVALID_ARGS naming the limit. The pattern's leading elements without a
// meta character (* ? [ \) name a directory, placed as Open places a path;
// the rest is matched element by element as path.Match matches, and an
// element ** matches any number of directories (reports/**/*.xml); as in
// a shell, * and ** pass over names starting with a dot. Symbolic links
// are listed, not followed, so a link is never matched.
func (r *Reader) Glob(arg, pattern string, limit int) ([]string, error) {
	elems := strings.Split(filepath.ToSlash(pattern), "/")
	first := len(elems)
	for i, e := range elems {
		if strings.ContainsAny(e, `*?[\`) {
			first = i
			break
		}
	}
	if first == len(elems) {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: %q is not a glob (it has no *, ? or [)", arg, pattern)
	}
	rest := elems[first:]
	for _, e := range rest {
		if _, err := path.Match(e, ""); err != nil && e != "**" {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: %q is not a valid glob (use *, ?, [a-z] and ** for any directories): %v", arg, pattern, err)
		}
	}
	dir := strings.Join(elems[:first], "/")
	switch {
	case dir == "" && strings.HasPrefix(pattern, "/"):
		dir = "/"
	case dir == "":
		dir = "."
	}
	pl, err := r.s.resolve(arg, filepath.FromSlash(dir))
	if err != nil {
		return nil, err
	}
	deep := false
	for _, e := range rest {
		deep = deep || e == "**"
	}
	var out []string
	over := false
	err = walk(r.ctx, r.s, "glob", pl, func(e entry, depth int) error {
		if e.rel == "." {
			if !e.info.IsDir() {
				return tool.Errorf(tool.CodeInvalidArgs, "argument %q: %s, the directory of the glob %q, is a file", arg, pl.abs, pattern)
			}
			return nil
		}
		if e.info.IsDir() {
			if !deep && depth >= len(rest) {
				return iofs.SkipDir
			}
			return nil
		}
		if !e.info.Mode().IsRegular() || !matchElems(rest, strings.Split(e.rel, "/")) {
			return nil
		}
		if len(out) == limit {
			over = true
			return iofs.SkipAll
		}
		out = append(out, pl.at(e.rel).abs)
		return nil
	})
	if over {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: the glob %q matches more than %d files, the most one call reads; narrow it", arg, pattern, limit)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// matchElems matches the elements of a path against those of a pattern,
// where ** matches any number of elements (none included). As in a shell,
// a name starting with a dot is matched only by a pattern element
// starting with one: ** and * pass over hidden files and directories.
func matchElems(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchElems(pat[1:], name[i:]) {
					return true
				}
				if i < len(name) && strings.HasPrefix(name[i], ".") {
					return false
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if strings.HasPrefix(name[0], ".") && !strings.HasPrefix(pat[0], ".") {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
