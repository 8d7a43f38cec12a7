package fs

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/barrhawk/barrhawk/internal/fspath"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tools/text"
)

// Bounds of reading.
const (
	defaultReadBytes = 1 << 20
	maxReadBytes     = 64 << 20
	// maxDiffBytes bounds each side of fs_diff.
	maxDiffBytes = 16 << 20
)

// fileInfo describes one file in results.
type fileInfo struct {
	Path   string `json:"path"`
	Name   string `json:"name,omitempty"`
	Type   string `json:"type"`
	Size   int64  `json:"size"`
	Mode   string `json:"mode"`
	MTime  string `json:"mtime"`
	Target string `json:"target,omitempty"`
}

func describe(path string, fi iofs.FileInfo) fileInfo {
	return fileInfo{Path: path, Name: fi.Name(), Type: kind(fi.Mode()), Size: fi.Size(), Mode: modeString(fi.Mode()), MTime: fi.ModTime().UTC().Format(time.RFC3339Nano)}
}

// modeString is the permission bits in octal, as chmod takes them.
func modeString(m iofs.FileMode) string {
	return fmt.Sprintf("%04o", uint32(m.Perm())|specialBits(m))
}

func specialBits(m iofs.FileMode) uint32 {
	var b uint32
	if m&iofs.ModeSetuid != 0 {
		b |= 0o4000
	}
	if m&iofs.ModeSetgid != 0 {
		b |= 0o2000
	}
	if m&iofs.ModeSticky != 0 {
		b |= 0o1000
	}
	return b
}

func fsRead() tool.Tool {
	type args struct {
		Path     string `json:"path"`
		Encoding string `json:"encoding"`
		MaxBytes int64  `json:"maxBytes"`
	}
	return tool.Tool{
		Def: def("fs_read", "Read a file. Returns {path, size, encoding, content, binary, truncated, note}: utf8 text by default; "+
			"a file that is not valid UTF-8 text (a NUL byte, invalid sequences) comes back as base64 with binary true; "+
			"a file longer than maxBytes is cut there with truncated true and a note.", false,
			schema.Object(
				pathArg("path", "File to read"),
				schema.String("encoding", "utf8 (binary files fall back to base64) or base64").Enum("utf8", "base64").Default("utf8"),
				schema.Integer("maxBytes", "Most bytes returned").Default(defaultReadBytes).Min(1).Max(maxReadBytes),
			)).
			WithPhrases("cat file", "open file", "file contents", "view file", "read text file", "load config file", "read binary as base64", "show file contents", "what is in this file"),
		Run: boxed(func(_ context.Context, s *sandbox, in args, _ *tool.Call) (any, error) {
			pl, err := s.resolve("path", in.Path)
			if err != nil {
				return nil, err
			}
			if in.MaxBytes <= 0 {
				in.MaxBytes = defaultReadBytes
			}
			f, err := pl.root.Open(pl.rel)
			if err != nil {
				return nil, s.fail("fs_read", pl, err)
			}
			defer f.Close()
			fi, err := f.Stat()
			if err != nil {
				return nil, s.fail("fs_read", pl, err)
			}
			if fi.IsDir() {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "fs_read %s: is a directory; use fs_list", pl.abs)
			}
			data, err := io.ReadAll(io.LimitReader(f, in.MaxBytes+1))
			if err != nil {
				return nil, s.fail("fs_read", pl, err)
			}
			out := map[string]any{"path": pl.abs, "size": fi.Size(), "truncated": false}
			if int64(len(data)) > in.MaxBytes {
				data = data[:in.MaxBytes]
				out["truncated"] = true
				out["note"] = fmt.Sprintf("the file is %d bytes; the first %d are returned (raise maxBytes, up to %d)", fi.Size(), in.MaxBytes, maxReadBytes)
			}
			binary := isBinary(data)
			out["binary"] = binary
			if in.Encoding == "base64" || binary {
				out["encoding"] = "base64"
				out["content"] = base64.StdEncoding.EncodeToString(data)
				if binary && in.Encoding != "base64" {
					out["note"] = join(out["note"], "the file is binary (not UTF-8 text), so the content is base64")
				}
			} else {
				out["encoding"] = "utf8"
				out["content"] = string(data)
			}
			return out, nil
		}),
	}
}

func join(note any, more string) string {
	if s, _ := note.(string); s != "" {
		return s + "; " + more
	}
	return more
}

// isBinary reports whether data is not UTF-8 text: a NUL byte, or an
// invalid sequence before the last 3 bytes (a cut may split a rune).
func isBinary(data []byte) bool {
	if bytes.IndexByte(data, 0) >= 0 {
		return true
	}
	if utf8.Valid(data) {
		return false
	}
	cut := max(0, len(data)-3)
	return !utf8.Valid(data[:cut]) || !validTail(data[cut:])
}

// validTail accepts the start of a multi-byte rune cut off at the end.
func validTail(b []byte) bool {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return !utf8.Valid(b[i:]) && utf8.RuneStart(b[i]) && len(b)-i < 4
		}
		i += n
	}
	return true
}

// decodeContent turns content in an encoding into bytes.
func decodeContent(content, encoding string) ([]byte, error) {
	if encoding == "base64" {
		data, err := base64.StdEncoding.DecodeString(content)
		if err != nil {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"content\": not valid base64 (encoding is base64): %v", err)
		}
		return data, nil
	}
	return []byte(content), nil
}

// writeFile writes data to pl atomically: into a temporary file beside it,
// then renamed over it, keeping an existing file's mode (perm for a new
// one). A reader never sees half a file and a failure leaves the old one.
// fileTarget checks that pl may be written as a file: not a root nor a
// directory, its parent directories made first when createDirs is set. It
// returns the file's info, or nil when there is no file there yet.
func fileTarget(s *sandbox, op string, pl *place, createDirs bool) (iofs.FileInfo, error) {
	if pl.rel == "." {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "%s %s: is an allowed root (a directory), not a file", op, pl.abs)
	}
	if createDirs {
		if dir := filepath.Dir(pl.rel); dir != "." {
			if err := pl.root.MkdirAll(dir, 0o755); err != nil {
				return nil, s.fail(op, pl, err)
			}
		}
	}
	fi, err := pl.root.Stat(pl.rel)
	switch {
	case err == nil && fi.IsDir():
		return nil, tool.Errorf(tool.CodeInvalidArgs, "%s %s: is a directory; give a file name inside it", op, pl.abs)
	case err == nil:
		return fi, nil
	case errors.Is(err, iofs.ErrNotExist):
		return nil, nil
	default:
		return nil, s.fail(op, pl, err) // a link leading out of the roots, too
	}
}

func writeFile(s *sandbox, op string, pl *place, data []byte, perm iofs.FileMode, createDirs bool) (created bool, err error) {
	fi, err := fileTarget(s, op, pl, createDirs)
	switch {
	case err != nil:
		return false, err
	case fi != nil:
		perm = fi.Mode().Perm()
	default:
		created = true
	}
	tmp := filepath.Join(filepath.Dir(pl.rel), "."+filepath.Base(pl.rel)+".barrhawk-"+rand.Text()[:8])
	f, err := pl.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		if errors.Is(err, iofs.ErrNotExist) && !createDirs {
			return false, tool.Errorf(tool.CodeNotFound, "%s %s: the directory %s does not exist; set createDirs to true to create it", op, pl.abs, filepath.Dir(pl.abs))
		}
		return false, s.fail(op, pl, err)
	}
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Chmod(perm) // the umask may have narrowed it
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = pl.root.Rename(tmp, pl.rel)
	}
	if werr != nil {
		_ = pl.root.Remove(tmp) // the write failed; the old file is untouched
		return false, s.fail(op, pl, werr)
	}
	return created, nil
}

func fsWrite() tool.Tool {
	type args struct {
		Path       string `json:"path"`
		Content    string `json:"content"`
		Encoding   string `json:"encoding"`
		CreateDirs bool   `json:"createDirs"`
	}
	return tool.Tool{
		Def: def("fs_write", "Write a file, replacing it atomically (a temporary file renamed over it; an existing file keeps its mode). "+
			"Returns {path, bytes, created}.", true,
			schema.Object(
				pathArg("path", "File to write"),
				schema.String("content", "The content: text, or base64 when encoding is base64").Required(),
				schema.String("encoding", "How content is given: utf8 or base64").Enum("utf8", "base64").Default("utf8"),
				schema.Boolean("createDirs", "Create missing parent directories").Default(false),
			)).
			WithPhrases("save file", "create file", "overwrite file", "write to disk", "echo > file", "write config", "write text to a file", "write lines to a file", "save output to a file", "write a report file"),
		Run: boxed(func(_ context.Context, s *sandbox, in args, _ *tool.Call) (any, error) {
			pl, err := s.resolve("path", in.Path)
			if err != nil {
				return nil, err
			}
			data, err := decodeContent(in.Content, in.Encoding)
			if err != nil {
				return nil, err
			}
			created, err := writeFile(s, "fs_write", pl, data, 0o644, in.CreateDirs)
			if err != nil {
				return nil, err
			}
			return map[string]any{"path": pl.abs, "bytes": len(data), "created": created}, nil
		}),
	}
}

func fsExists() tool.Tool {
	type args struct {
		Path string `json:"path"`
	}
	return tool.Tool{
		Def: def("fs_exists", "Check whether a path exists. Returns {path, exists} and, when it does, {type: file|dir|symlink|other, size, mode, mtime, target (a symlink's)}. "+
			"A symbolic link is described itself, not followed.", false,
			schema.Object(pathArg("path", "Path to check"))).
			WithPhrases("does file exist", "test -e", "stat", "file present", "is directory", "file size and mtime", "where a symlink points", "is there already a file", "check if path exists"),
		Run: boxed(func(_ context.Context, s *sandbox, in args, _ *tool.Call) (any, error) {
			pl, err := s.resolveLink("path", in.Path)
			if err != nil {
				return nil, err
			}
			fi, err := pl.root.Lstat(pl.rel)
			if errors.Is(err, iofs.ErrNotExist) {
				return map[string]any{"path": pl.abs, "exists": false}, nil
			}
			if err != nil {
				return nil, s.fail("fs_exists", pl, err)
			}
			d := describe(pl.abs, fi)
			if d.Type == "symlink" {
				d.Target, _ = pl.root.Readlink(pl.rel)
			}
			return map[string]any{"path": pl.abs, "exists": true, "type": d.Type, "size": d.Size, "mode": d.Mode, "mtime": d.MTime, "target": d.Target}, nil
		}),
	}
}

func fsMkdir() tool.Tool {
	type args struct {
		Path      string `json:"path"`
		Recursive *bool  `json:"recursive"`
	}
	return tool.Tool{
		Def: def("fs_mkdir", "Create a directory (mode 0755). Returns {path, created}: created is false when it already existed (with recursive).", true,
			schema.Object(
				pathArg("path", "Directory to create"),
				schema.Boolean("recursive", "Create missing parents too, and accept an existing directory").Default(true),
			)).
			WithPhrases("make directory", "mkdir -p", "create folder", "new folder", "ensure directory exists", "make a folder", "create a directory for"),
		Run: boxed(func(_ context.Context, s *sandbox, in args, _ *tool.Call) (any, error) {
			pl, err := s.resolve("path", in.Path)
			if err != nil {
				return nil, err
			}
			if in.Recursive == nil || *in.Recursive {
				fi, err := pl.root.Stat(pl.rel)
				if err == nil && fi.IsDir() {
					return map[string]any{"path": pl.abs, "created": false}, nil
				}
				if err := pl.root.MkdirAll(pl.rel, 0o755); err != nil {
					return nil, s.fail("fs_mkdir", pl, err)
				}
				return map[string]any{"path": pl.abs, "created": true}, nil
			}
			if err := pl.root.Mkdir(pl.rel, 0o755); err != nil {
				if errors.Is(err, iofs.ErrNotExist) {
					return nil, tool.Errorf(tool.CodeNotFound, "fs_mkdir %s: the parent directory does not exist; set recursive to true to create it", pl.abs)
				}
				return nil, s.fail("fs_mkdir", pl, err)
			}
			return map[string]any{"path": pl.abs, "created": true}, nil
		}),
	}
}

func fsRemove() tool.Tool {
	type args struct {
		Path      string `json:"path"`
		Recursive bool   `json:"recursive"`
		Force     bool   `json:"force"`
	}
	return tool.Tool{
		Def: def("fs_remove", "Remove a file, a symbolic link (not its target) or a directory. Returns {path, removed, type}. "+
			"A non-empty directory needs recursive; a missing path is an error unless force. An allowed root itself is never removed.", true,
			schema.Object(
				pathArg("path", "Path to remove"),
				schema.Boolean("recursive", "Remove a directory and everything in it").Default(false),
				schema.Boolean("force", "A missing path is not an error (removed is then false)").Default(false),
			)).
			WithPhrases("rm -rf", "delete file", "delete folder", "rm", "unlink", "clean directory", "erase file", "delete symlink"),
		Run: boxed(func(_ context.Context, s *sandbox, in args, _ *tool.Call) (any, error) {
			pl, err := s.resolveLink("path", in.Path)
			if err != nil {
				return nil, err
			}
			if pl.rel == "." {
				return nil, tool.Errorf(tool.CodeForbidden, "fs_remove %s: is an allowed root; it cannot be removed (remove what is inside it instead)", pl.abs)
			}
			fi, err := pl.root.Lstat(pl.rel)
			if errors.Is(err, iofs.ErrNotExist) && in.Force {
				return map[string]any{"path": pl.abs, "removed": false}, nil
			}
			if err != nil {
				return nil, s.fail("fs_remove", pl, err)
			}
			if fi.IsDir() && in.Recursive {
				err = pl.root.RemoveAll(pl.rel)
			} else {
				err = pl.root.Remove(pl.rel)
			}
			if err != nil {
				return nil, s.fail("fs_remove", pl, err)
			}
			return map[string]any{"path": pl.abs, "removed": true, "type": kind(fi.Mode())}, nil
		}),
	}
}

func fsCopy() tool.Tool {
	type args struct {
		Source      string `json:"source"`
		Destination string `json:"destination"`
		Recursive   bool   `json:"recursive"`
		Overwrite   bool   `json:"overwrite"`
	}
	return tool.Tool{
		Def: def("fs_copy", "Copy a file, or a directory with recursive, keeping modes and modification times; a source that is a symbolic link is copied as what it points to, symbolic links inside a directory as links. "+
			"An existing directory as destination receives the source inside it, as cp does. Returns {source, destination, files, dirs, links, bytes}.", true,
			schema.Object(
				pathArg("source", "File or directory to copy"),
				pathArg("destination", "Where the copy goes"),
				schema.Boolean("recursive", "Copy a directory and everything in it").Default(false),
				schema.Boolean("overwrite", "Replace files that exist at the destination (otherwise such a copy is refused before anything is written)").Default(false),
			)).
			WithPhrases("cp -r", "duplicate file", "copy folder", "clone directory", "cp", "copy to"),
		Run: boxed(func(ctx context.Context, s *sandbox, in args, _ *tool.Call) (any, error) {
			src, dst, err := s.pair(in.Source, in.Destination)
			if err != nil {
				return nil, err
			}
			fi, err := src.root.Lstat(src.rel)
			if err != nil {
				return nil, s.fail("fs_copy", src, err)
			}
			if fi.Mode()&iofs.ModeSymlink != 0 {
				// The source named is a link: what it points to is copied (as
				// cp does), since the link's text, relative to where it is,
				// would mean another file, or none, at the destination.
				if fi, err = src.root.Stat(src.rel); err != nil {
					return nil, s.fail("fs_copy", src, err)
				}
				if fi.IsDir() {
					if !in.Recursive {
						return nil, tool.Errorf(tool.CodeInvalidArgs, "fs_copy %s: is a link to a directory; set recursive to true to copy the directory", src.abs)
					}
					sub, err := src.root.OpenRoot(src.rel)
					if err != nil {
						return nil, s.fail("fs_copy", src, err)
					}
					defer sub.Close()
					src = &place{root: sub, rootDir: src.abs, rel: ".", abs: src.abs}
				} else if fi.Mode().IsRegular() {
					if _, err := dst.root.Lstat(dst.rel); err == nil && !in.Overwrite {
						return nil, tool.Errorf(tool.CodeInvalidArgs, "1 file(s) exist at the destination (%s); set overwrite to true to replace them", dst.abs)
					}
					_ = dst.root.Remove(dst.rel) // a link there is replaced, not written through
					n, err := copyFile(ctx, s, src, dst, fi)
					if err != nil {
						return nil, err
					}
					return map[string]any{"source": src.abs, "destination": dst.abs, "files": 1, "dirs": 0, "links": 0, "bytes": n}, nil
				}
			}
			if fi.IsDir() && !in.Recursive {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "fs_copy %s: is a directory; set recursive to true to copy it", src.abs)
			}
			st, err := copyTree(ctx, s, src, dst, in.Overwrite)
			if err != nil {
				return nil, err
			}
			return map[string]any{"source": src.abs, "destination": dst.abs, "files": st.files, "dirs": st.dirs, "links": st.links, "bytes": st.bytes}, nil
		}),
	}
}

// pair resolves source and destination; a destination that is an existing
// directory receives the source inside it. A source that is a link is the
// link (fs_copy copies links as links, fs_move moves them).
func (s *sandbox) pair(source, destination string) (src, dst *place, err error) {
	if src, err = s.resolveLink("source", source); err != nil {
		return nil, nil, err
	}
	if dst, err = s.resolve("destination", destination); err != nil {
		return nil, nil, err
	}
	if fi, err := dst.root.Stat(dst.rel); err == nil && fi.IsDir() {
		if dst, err = s.resolve("destination", filepath.Join(dst.abs, filepath.Base(filepath.Clean(source)))); err != nil {
			return nil, nil, err
		}
	}
	if src.abs == dst.abs {
		return nil, nil, tool.Errorf(tool.CodeInvalidArgs, "source and destination are the same path: %s", src.abs)
	}
	if fspath.Within(dst.abs, src.abs) {
		return nil, nil, tool.Errorf(tool.CodeInvalidArgs, "destination %s is inside source %s", dst.abs, src.abs)
	}
	return src, dst, nil
}

func fsMove() tool.Tool {
	type args struct {
		Source      string `json:"source"`
		Destination string `json:"destination"`
		Overwrite   bool   `json:"overwrite"`
	}
	return tool.Tool{
		Def: def("fs_move", "Move or rename a file or directory (an existing directory as destination receives it inside). "+
			"Within one root it is a rename; across roots a copy then a removal. Returns {source, destination}.", true,
			schema.Object(
				pathArg("source", "File or directory to move"),
				pathArg("destination", "New path"),
				schema.Boolean("overwrite", "Replace a file at the destination").Default(false),
			)).
			WithPhrases("mv", "rename file", "rename folder", "relocate file", "move to folder"),
		Run: boxed(func(ctx context.Context, s *sandbox, in args, _ *tool.Call) (any, error) {
			src, dst, err := s.pair(in.Source, in.Destination)
			if err != nil {
				return nil, err
			}
			if src.rel == "." {
				return nil, tool.Errorf(tool.CodeForbidden, "fs_move %s: is an allowed root; it cannot be moved", src.abs)
			}
			if _, err := src.root.Lstat(src.rel); err != nil {
				return nil, s.fail("fs_move", src, err)
			}
			if _, err := dst.root.Lstat(dst.rel); err == nil && !in.Overwrite {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "fs_move: destination %s exists; set overwrite to true to replace it", dst.abs)
			}
			if src.rootDir == dst.rootDir {
				if err := src.root.Rename(src.rel, dst.rel); err != nil {
					return nil, s.fail("fs_move", dst, err)
				}
			} else {
				if _, err := copyTree(ctx, s, src, dst, in.Overwrite); err != nil {
					return nil, err
				}
				if err := src.root.RemoveAll(src.rel); err != nil {
					return nil, s.fail("fs_move (removing the source after copying it)", src, err)
				}
			}
			return map[string]any{"source": src.abs, "destination": dst.abs}, nil
		}),
	}
}

// parseMode reads an octal mode such as "755" or "0644".
func parseMode(s string) (iofs.FileMode, error) {
	n, err := strconv.ParseUint(s, 8, 32)
	if err != nil || n > 0o7777 {
		return 0, tool.Errorf(tool.CodeInvalidArgs, "argument \"mode\": %q is not an octal mode such as \"644\" or \"0755\"", s)
	}
	m := iofs.FileMode(n & 0o777)
	if n&0o4000 != 0 {
		m |= iofs.ModeSetuid
	}
	if n&0o2000 != 0 {
		m |= iofs.ModeSetgid
	}
	if n&0o1000 != 0 {
		m |= iofs.ModeSticky
	}
	return m, nil
}

func fsChmod() tool.Tool {
	type args struct {
		Path string `json:"path"`
		Mode string `json:"mode"`
	}
	return tool.Tool{
		Def: def("fs_chmod", "Change the permission bits of a file or directory (a symbolic link's target). Returns {path, mode, previous}.", true,
			schema.Object(
				pathArg("path", "File or directory"),
				schema.String("mode", "Octal mode, such as \"644\", \"0755\" or \"1777\"").Required().Min(1),
			)).
			WithPhrases("set permissions", "chmod +x", "make executable", "file mode", "chmod 755", "rwx", "chmod 600", "readable only by owner", "make script executable"),
		Run: boxed(func(_ context.Context, s *sandbox, in args, _ *tool.Call) (any, error) {
			pl, err := s.resolve("path", in.Path)
			if err != nil {
				return nil, err
			}
			mode, err := parseMode(in.Mode)
			if err != nil {
				return nil, err
			}
			fi, err := pl.root.Stat(pl.rel)
			if err != nil {
				return nil, s.fail("fs_chmod", pl, err)
			}
			if err := pl.root.Chmod(pl.rel, mode); err != nil {
				return nil, s.fail("fs_chmod", pl, err)
			}
			return map[string]any{"path": pl.abs, "mode": modeString(mode), "previous": modeString(fi.Mode())}, nil
		}),
	}
}

func fsChown() tool.Tool {
	type args struct {
		Path string `json:"path"`
		UID  int    `json:"uid"`
		GID  int    `json:"gid"`
	}
	return tool.Tool{
		Def: def("fs_chown", "Change the owner and group of a file or directory (numeric ids; -1 keeps one). Usually needs root or CAP_CHOWN: "+
			"when not permitted the error is FORBIDDEN naming the uid the server runs as. Returns {path, uid, gid}.", true,
			schema.Object(
				pathArg("path", "File or directory"),
				schema.Integer("uid", "New owner's user id, or -1 to keep it").Required().Min(-1),
				schema.Integer("gid", "New group id, or -1 to keep it").Required().Min(-1),
			)).
			WithPhrases("change ownership", "chown user:group", "set uid gid", "file owner", "fix ownership", "make a user own a folder", "give a folder to a user and group"),
		Run: boxed(func(_ context.Context, s *sandbox, in args, _ *tool.Call) (any, error) {
			pl, err := s.resolve("path", in.Path)
			if err != nil {
				return nil, err
			}
			if err := pl.root.Chown(pl.rel, in.UID, in.GID); err != nil {
				return nil, chownError(s, pl, in.UID, in.GID, err)
			}
			return map[string]any{"path": pl.abs, "uid": in.UID, "gid": in.GID}, nil
		}),
	}
}

// chownError explains a refused chown.
func chownError(s *sandbox, pl *place, uid, gid int, err error) error {
	if errors.Is(err, syscall.EPERM) || errors.Is(err, iofs.ErrPermission) {
		return tool.Errorf(tool.CodeForbidden, "fs_chown %s to uid %d gid %d: not permitted: the server runs as uid %d; changing the owner needs root (or CAP_CHOWN), and a group you belong to otherwise",
			pl.abs, uid, gid, os.Geteuid())
	}
	if errors.Is(err, syscall.EINVAL) {
		return tool.Errorf(tool.CodeInvalidArgs, "fs_chown %s: uid %d / gid %d is not valid here (not mapped in this user namespace)", pl.abs, uid, gid)
	}
	return s.fail("fs_chown", pl, err)
}

func fsHash() tool.Tool {
	type args struct {
		Path      string `json:"path"`
		Algorithm string `json:"algorithm"`
	}
	return tool.Tool{
		Def: def("fs_hash", "Hash a file's content, streamed (any size). Returns {path, algorithm, hash (hex), size}.", false,
			schema.Object(
				pathArg("path", "File to hash"),
				schema.String("algorithm", "Hash function").Enum("md5", "sha1", "sha256", "sha512").Default("sha256"),
			)).
			WithPhrases("checksum", "sha256sum", "md5sum", "file checksum", "verify download integrity", "sha1 of file", "sha512"),
		Run: boxed(func(ctx context.Context, s *sandbox, in args, _ *tool.Call) (any, error) {
			pl, err := s.resolve("path", in.Path)
			if err != nil {
				return nil, err
			}
			if in.Algorithm == "" {
				in.Algorithm = "sha256"
			}
			var h hash.Hash
			switch in.Algorithm {
			case "md5":
				h = md5.New()
			case "sha1":
				h = sha1.New()
			case "sha256":
				h = sha256.New()
			case "sha512":
				h = sha512.New()
			}
			f, err := pl.root.Open(pl.rel)
			if err != nil {
				return nil, s.fail("fs_hash", pl, err)
			}
			defer f.Close()
			if fi, err := f.Stat(); err == nil && fi.IsDir() {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "fs_hash %s: is a directory; give a file", pl.abs)
			}
			n, err := io.Copy(h, ctxReader{ctx, f})
			if err != nil {
				return nil, s.fail("fs_hash", pl, err)
			}
			return map[string]any{"path": pl.abs, "algorithm": in.Algorithm, "hash": hex.EncodeToString(h.Sum(nil)), "size": n}, nil
		}),
	}
}

// ctxReader stops a long read when ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// readText reads a whole file of at most limit bytes.
func readText(s *sandbox, op string, pl *place, limit int64) ([]byte, error) {
	f, err := pl.root.Open(pl.rel)
	if err != nil {
		return nil, s.fail(op, pl, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "%s %s: is a directory; give a file", op, pl.abs)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, s.fail(op, pl, err)
	}
	if int64(len(data)) > limit {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "%s %s: longer than %d bytes", op, pl.abs, limit)
	}
	return data, nil
}

func fsDiff() tool.Tool {
	type args struct {
		File1   string `json:"file1"`
		File2   string `json:"file2"`
		Context *int   `json:"context"`
	}
	return tool.Tool{
		Def: def("fs_diff", "Compare two files line by line (the minimal diff string_diff uses). Returns {equal, added, removed, unified, binary}: "+
			"unified is a unified diff (--- file1 / +++ file2, @@ hunks with context lines); binary files are compared byte for byte.", false,
			schema.Object(
				pathArg("file1", "The old side"),
				pathArg("file2", "The new side"),
				schema.Integer("context", "Unchanged lines shown around each change").Default(3).Min(0),
			)).
			WithPhrases("compare files on disk", "diff two files", "unified diff", "what changed between files", "compare two local files", "changes made to a file", "diff -u", "file differences"),
		Run: boxed(func(ctx context.Context, s *sandbox, in args, _ *tool.Call) (any, error) {
			p1, err := s.resolve("file1", in.File1)
			if err != nil {
				return nil, err
			}
			p2, err := s.resolve("file2", in.File2)
			if err != nil {
				return nil, err
			}
			a, err := readText(s, "fs_diff", p1, maxDiffBytes)
			if err != nil {
				return nil, err
			}
			b, err := readText(s, "fs_diff", p2, maxDiffBytes)
			if err != nil {
				return nil, err
			}
			if isBinary(a) || isBinary(b) {
				return map[string]any{"equal": bytes.Equal(a, b), "binary": true, "added": 0, "removed": 0, "unified": ""}, nil
			}
			n := 3
			if in.Context != nil {
				n = *in.Context
			}
			d, err := text.Diff(ctx, p1.abs, p2.abs, string(a), string(b), n)
			if err != nil {
				return nil, tool.Errorf(tool.CodeTimeout, "fs_diff: %v", err)
			}
			return map[string]any{"equal": d.Equal, "binary": false, "added": d.Added, "removed": d.Removed, "unified": d.Unified}, nil
		}),
	}
}

func fsTemplate() tool.Tool {
	type args struct {
		Template  string                     `json:"template"`
		Variables map[string]json.RawMessage `json:"variables"`
		Output    string                     `json:"output"`
		Strict    bool                       `json:"strict"`
	}
	return tool.Tool{
		Def: def("fs_template", "Render a template file into an output file, with template_render's rules: {{name}} and dotted paths ({{user.name}}, {{items.0}}), "+
			"strings inserted as they are, other values as JSON; a placeholder without a value is left and listed in missing (an error with strict). "+
			"Returns {output, bytes, used, missing}.", true,
			schema.Object(
				pathArg("template", "Template file to read"),
				schema.Map("variables", "Values by name").Required(),
				pathArg("output", "File to write (parent directories are created)"),
				schema.Boolean("strict", "Fail with INVALID_ARGS, writing nothing, when a placeholder has no value").Default(false),
			)).
			WithPhrases("render config file", "fill placeholders in file", "mustache file", "file from template", "write filled template file", "envsubst", "handlebars file"),
		Run: boxed(func(_ context.Context, s *sandbox, in args, _ *tool.Call) (any, error) {
			tp, err := s.resolve("template", in.Template)
			if err != nil {
				return nil, err
			}
			out, err := s.resolve("output", in.Output)
			if err != nil {
				return nil, err
			}
			tmpl, err := readText(s, "fs_template", tp, maxDiffBytes)
			if err != nil {
				return nil, err
			}
			rendered, used, missing := text.Render(string(tmpl), in.Variables)
			if in.Strict && len(missing) > 0 {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"variables\": no value for %q (strict); nothing was written", missing)
			}
			if _, err := writeFile(s, "fs_template", out, []byte(rendered), 0o644, true); err != nil {
				return nil, err
			}
			return map[string]any{"output": out.abs, "bytes": len(rendered), "used": used, "missing": missing}, nil
		}),
	}
}
