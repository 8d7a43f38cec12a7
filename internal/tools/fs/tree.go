package fs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Bounds of walking.
const (
	defaultListLimit   = 1000
	maxListLimit       = 100000
	defaultSearchLimit = 100
	// maxSearchFile is the largest file whose content fs_search reads.
	maxSearchFile = 10 << 20
)

// entry is one file of a tree: rel is its slash path relative to the top
// ("." for the top itself).
type entry struct {
	rel    string
	info   iofs.FileInfo
	target string // a symlink's
}

// walk lists the tree at pl without following symbolic links, the top
// first and every directory before its contents; visit may stop it with
// iofs.SkipAll. A file is a tree of one entry.
func walk(ctx context.Context, s *sandbox, op string, pl *place, visit func(e entry, depth int) error) error {
	fi, err := pl.root.Lstat(pl.rel)
	if err != nil {
		return s.fail(op, pl, err)
	}
	top := entry{rel: ".", info: fi}
	if fi.Mode()&iofs.ModeSymlink != 0 {
		top.target, _ = pl.root.Readlink(pl.rel)
	}
	if !fi.IsDir() {
		err := visit(top, 0)
		if errors.Is(err, iofs.SkipAll) {
			return nil
		}
		return err
	}
	base := filepath.ToSlash(pl.rel)
	err = iofs.WalkDir(pl.root.FS(), base, func(p string, d iofs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			return err
		}
		rel := "."
		if p != base {
			rel = strings.TrimPrefix(p, base+"/")
			if base == "." {
				rel = p
			}
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		e := entry{rel: rel, info: info}
		if d.Type()&iofs.ModeSymlink != 0 {
			e.target, _ = pl.root.Readlink(filepath.Join(pl.rel, filepath.FromSlash(rel)))
		}
		depth := 0
		if rel != "." {
			depth = strings.Count(rel, "/") + 1
		}
		return visit(e, depth)
	})
	if err != nil && !errors.Is(err, iofs.SkipAll) {
		return s.fail(op, pl, err)
	}
	return nil
}

// at is the place of a tree's entry below pl.
func (pl *place) at(rel string) *place {
	if rel == "." {
		return pl
	}
	r := filepath.Join(pl.rel, filepath.FromSlash(rel))
	return &place{root: pl.root, rootDir: pl.rootDir, rel: r, abs: filepath.Join(pl.rootDir, r)}
}

// treeStats counts what a copy wrote.
type treeStats struct {
	files, dirs, links int
	bytes              int64
}

// copyTree copies the tree at src to dst, keeping modes and modification
// times, symbolic links as links. Without overwrite it refuses, before
// writing anything, to replace a file that exists at the destination.
func copyTree(ctx context.Context, s *sandbox, src, dst *place, overwrite bool) (treeStats, error) {
	var entries []entry
	if err := walk(ctx, s, "fs_copy", src, func(e entry, _ int) error {
		entries = append(entries, e)
		return nil
	}); err != nil {
		return treeStats{}, err
	}
	for _, e := range entries {
		// Refused before anything is written: a copy stopped half-way is
		// worse than none.
		if m := e.info.Mode(); !m.IsDir() && !m.IsRegular() && m&iofs.ModeSymlink == 0 {
			return treeStats{}, tool.Errorf(tool.CodeInvalidArgs, "fs_copy %s: is %s, not a file, directory or link; nothing was copied", src.at(e.rel).abs, special(m))
		}
	}
	if !overwrite {
		var clash []string
		for _, e := range entries {
			if e.info.IsDir() {
				continue
			}
			if _, err := dst.root.Lstat(dst.at(e.rel).rel); err == nil {
				clash = append(clash, dst.at(e.rel).abs)
			}
		}
		if len(clash) > 0 {
			return treeStats{}, tool.Errorf(tool.CodeInvalidArgs, "%d file(s) exist at the destination (%s); set overwrite to true to replace them", len(clash), strings.Join(clash[:min(5, len(clash))], ", "))
		}
	}
	var st treeStats
	var dirs []entry
	for _, e := range entries {
		to := dst.at(e.rel)
		from := src.at(e.rel)
		switch {
		case e.info.IsDir():
			if err := dst.root.MkdirAll(to.rel, 0o700); err != nil {
				return st, s.fail("fs_copy", to, err)
			}
			dirs = append(dirs, e)
			st.dirs++
		case e.info.Mode()&iofs.ModeSymlink != 0:
			_ = dst.root.Remove(to.rel) // overwrite was checked above
			if err := dst.root.Symlink(e.target, to.rel); err != nil {
				return st, s.fail("fs_copy", to, err)
			}
			if err := linkTimes(dst.root, to.rel, e.info.ModTime()); err != nil {
				return st, s.fail("fs_copy", to, err)
			}
			st.links++
		case e.info.Mode().IsRegular():
			n, err := copyFile(ctx, s, from, to, e.info)
			if err != nil {
				return st, err
			}
			st.files++
			st.bytes += n
		default:
			return st, tool.Errorf(tool.CodeInvalidArgs, "fs_copy %s: is %s, not a file, directory or link", from.abs, special(e.info.Mode()))
		}
	}
	for _, e := range slices.Backward(dirs) {
		to := dst.at(e.rel)
		if err := dst.root.Chmod(to.rel, e.info.Mode()&(iofs.ModePerm|iofs.ModeSetgid|iofs.ModeSticky)); err != nil {
			return st, s.fail("fs_copy", to, err)
		}
		if err := dst.root.Chtimes(to.rel, e.info.ModTime(), e.info.ModTime()); err != nil {
			return st, s.fail("fs_copy", to, err)
		}
	}
	return st, nil
}

// copyFile copies one regular file with its mode and modification time.
func copyFile(ctx context.Context, s *sandbox, from, to *place, fi iofs.FileInfo) (int64, error) {
	in, err := from.root.Open(from.rel)
	if err != nil {
		return 0, s.fail("fs_copy", from, err)
	}
	defer in.Close()
	out, err := to.root.OpenFile(to.rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, s.fail("fs_copy", to, err)
	}
	n, err := io.Copy(out, ctxReader{ctx, in})
	if err == nil {
		err = out.Chmod(fi.Mode() & (iofs.ModePerm | iofs.ModeSetuid | iofs.ModeSetgid | iofs.ModeSticky))
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = to.root.Chtimes(to.rel, fi.ModTime(), fi.ModTime())
	}
	if err != nil {
		return n, s.fail("fs_copy", to, err)
	}
	return n, nil
}

// checkGlob reports a malformed glob pattern.
func checkGlob(arg, pattern string) error {
	if _, err := path.Match(pattern, ""); err != nil {
		return tool.Errorf(tool.CodeInvalidArgs, "argument %q: %q is not a valid glob (use *, ?, [a-z]): %v", arg, pattern, err)
	}
	return nil
}

// globMatch matches pattern against the name, or against the relative
// path when the pattern holds a slash.
func globMatch(pattern, rel string) bool {
	subject := path.Base(rel)
	if strings.Contains(pattern, "/") {
		subject = rel
	}
	ok, _ := path.Match(pattern, subject)
	return ok
}

func fsList() tool.Tool {
	type args struct {
		Path      string `json:"path"`
		Recursive bool   `json:"recursive"`
		Pattern   string `json:"pattern"`
		Limit     int    `json:"limit"`
	}
	return tool.Tool{
		Def: def("fs_list", "List a directory. Returns {path, entries: [{path (relative to the directory), name, type: file|dir|symlink|other, size, mode, mtime, target}], count, truncated}, "+
			"sorted by path; symbolic links are listed, not followed.", false,
			schema.Object(
				pathArg("path", "Directory to list"),
				schema.Boolean("recursive", "Descend into subdirectories").Default(false),
				schema.String("pattern", "Glob the entries must match (*.go, test_?.txt); matched against the name, or the relative path when it holds a /"),
				schema.Integer("limit", "Most entries returned").Default(defaultListLimit).Min(1).Max(maxListLimit),
			)).
			WithPhrases("ls", "list files in folder", "directory contents", "dir listing", "what files are here", "ls -la", "recursive listing", "browse folder", "what files a folder has", "what is in the folder", "what is inside a directory"),
		Run: boxed(func(ctx context.Context, s *sandbox, in args, _ *tool.Call) (any, error) {
			pl, err := s.resolve("path", in.Path)
			if err != nil {
				return nil, err
			}
			if in.Pattern != "" {
				if err := checkGlob("pattern", in.Pattern); err != nil {
					return nil, err
				}
			}
			if in.Limit <= 0 {
				in.Limit = defaultListLimit
			}
			fi, err := pl.root.Stat(pl.rel)
			if err != nil {
				return nil, s.fail("fs_list", pl, err)
			}
			if !fi.IsDir() {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "fs_list %s: is not a directory; use fs_exists or fs_read", pl.abs)
			}
			entries := []fileInfo{}
			truncated := false
			err = walk(ctx, s, "fs_list", pl, func(e entry, depth int) error {
				if depth == 0 {
					return nil
				}
				var next error // descend, or not
				if e.info.IsDir() && !in.Recursive {
					next = iofs.SkipDir
				}
				if in.Pattern != "" && !globMatch(in.Pattern, e.rel) {
					return next
				}
				if len(entries) == in.Limit {
					truncated = true
					return iofs.SkipAll
				}
				d := describe(e.rel, e.info)
				d.Target = e.target
				entries = append(entries, d)
				return next
			})
			if err != nil {
				return nil, err
			}
			out := map[string]any{"path": pl.abs, "entries": entries, "count": len(entries), "truncated": truncated}
			if truncated {
				out["note"] = fmt.Sprintf("stopped at limit %d; raise limit or narrow with pattern", in.Limit)
			}
			return out, nil
		}),
	}
}

func fsSearch() tool.Tool {
	type args struct {
		Path       string `json:"path"`
		Pattern    string `json:"pattern"`
		Type       string `json:"type"`
		MaxDepth   int    `json:"maxDepth"`
		Limit      int    `json:"limit"`
		IgnoreCase bool   `json:"ignoreCase"`
	}
	return tool.Tool{
		Def: def("fs_search", "Search a directory tree for files by name (a glob) or by content (a regular expression, RE2 syntax, line by line). "+
			"Directories named .git are skipped, and so are binary files and files over 10 MiB in a content search. "+
			"Returns {matches, count, truncated, filesScanned}: for name, matches are [{path, type, size}]; for content, [{path, line, text}].", false,
			schema.Object(
				pathArg("path", "Directory to search"),
				schema.String("pattern", "A glob for type name (*.go; matched against the relative path when it holds a /), a regular expression for type content").Required().Min(1),
				schema.String("type", "What pattern matches").Enum("name", "content").Default("name"),
				schema.Integer("maxDepth", "Deepest level searched (1: the directory's own entries); 0 for no bound").Default(0).Min(0),
				schema.Integer("limit", "Most matches returned").Default(defaultSearchLimit).Min(1).Max(maxListLimit),
				schema.Boolean("ignoreCase", "Match case-insensitively").Default(false),
			)).
			WithPhrases("grep", "find files", "grep -r", "ripgrep", "find by name", "search file contents", "find . -name", "locate file", "regex in files", "files containing text", "which files contain a string", "which spec files mention", "where in the codebase do we mention", "find all files matching a pattern"),
		Run: boxed(func(ctx context.Context, s *sandbox, in args, _ *tool.Call) (any, error) {
			pl, err := s.resolve("path", in.Path)
			if err != nil {
				return nil, err
			}
			if in.Limit <= 0 {
				in.Limit = defaultSearchLimit
			}
			var re *regexp.Regexp
			pattern := in.Pattern
			if in.Type == "content" {
				if in.IgnoreCase {
					pattern = "(?i)" + pattern
				}
				if re, err = regexp.Compile(pattern); err != nil {
					return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"pattern\": not a valid regular expression: %v", err)
				}
			} else {
				if in.IgnoreCase {
					pattern = strings.ToLower(pattern)
				}
				if err := checkGlob("pattern", pattern); err != nil {
					return nil, err
				}
			}
			matches := []map[string]any{}
			truncated := false
			scanned := 0
			err = walk(ctx, s, "fs_search", pl, func(e entry, depth int) error {
				if e.info.IsDir() && e.info.Name() == ".git" && depth > 0 {
					return iofs.SkipDir
				}
				if depth == 0 && e.info.IsDir() {
					return nil
				}
				var next error // descend, or not
				if e.info.IsDir() && in.MaxDepth > 0 && depth >= in.MaxDepth {
					next = iofs.SkipDir
				}
				if len(matches) >= in.Limit {
					truncated = true
					return iofs.SkipAll
				}
				if re == nil {
					subject := e.rel
					if in.IgnoreCase {
						subject = strings.ToLower(subject)
					}
					scanned++
					if globMatch(pattern, subject) {
						matches = append(matches, map[string]any{"path": e.rel, "type": kind(e.info.Mode()), "size": e.info.Size()})
					}
					return next
				}
				if !e.info.Mode().IsRegular() || e.info.Size() > maxSearchFile {
					return next
				}
				scanned++
				found, full, err := grep(pl.at(e.rel), re, in.Limit-len(matches))
				if err != nil {
					return nil // unreadable files are passed over, as grep -s does
				}
				for _, m := range found {
					m["path"] = e.rel
					matches = append(matches, m)
				}
				if full {
					truncated = true
					return iofs.SkipAll
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			return map[string]any{"path": pl.abs, "matches": matches, "count": len(matches), "truncated": truncated, "filesScanned": scanned}, nil
		}),
	}
}

// grep returns up to limit matching lines of a text file; full is true
// when there were more.
func grep(pl *place, re *regexp.Regexp, limit int) (found []map[string]any, full bool, err error) {
	f, err := pl.root.Open(pl.rel)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	head, _ := br.Peek(8192)
	if bytes.IndexByte(head, 0) >= 0 {
		return nil, false, nil
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), maxSearchFile)
	for n := 1; sc.Scan(); n++ {
		if re.Match(sc.Bytes()) {
			if len(found) == limit {
				return found, true, nil
			}
			line := sc.Text()
			if len(line) > 500 {
				line = line[:500] + "…"
			}
			found = append(found, map[string]any{"line": n, "text": line})
		}
	}
	return found, false, sc.Err()
}
