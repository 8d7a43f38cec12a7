package fs

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/fspath"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// A backup is a manifest and the tree it describes, either as a directory
// (manifest.json and files/) or as a tar.gz (manifest.json first, then
// files/...). The manifest records each entry's type, mode, mtime, link
// target and SHA-256, so that fs_restore puts back exactly what was there
// and notices a damaged backup.
const (
	manifestName   = "manifest.json"
	filesDir       = "files"
	backupVersion  = 1
	maxManifestLen = 256 << 20
)

// manifest describes a backup.
type manifest struct {
	Version int    `json:"version"`
	Source  string `json:"source"`
	// Kind is dir or file: what source was.
	Kind    string          `json:"kind"`
	Created string          `json:"created"`
	Entries []manifestEntry `json:"entries"`
}

// manifestEntry is one file of a backup; Path is relative to the source
// ("." for the source itself).
type manifestEntry struct {
	Path   string `json:"path"`
	Type   string `json:"type"`
	Size   int64  `json:"size,omitempty"`
	Mode   uint32 `json:"mode"`
	MTime  string `json:"mtime"`
	Target string `json:"target,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
}

// stored is an entry's name inside the backup.
func stored(rel string) string {
	if rel == "." {
		return filesDir
	}
	return filesDir + "/" + rel
}

// modeBits keeps the permission and special bits of a mode.
func modeBits(m iofs.FileMode) iofs.FileMode {
	return m & (iofs.ModePerm | iofs.ModeSetuid | iofs.ModeSetgid | iofs.ModeSticky)
}

func fsBackup() tool.Tool {
	type args struct {
		Source      string `json:"source"`
		Destination string `json:"destination"`
		Compress    *bool  `json:"compress"`
	}
	return tool.Tool{
		Def: def("fs_backup", "Back up a file or directory tree exactly: content, modes, modification times, symbolic links inside the tree, empty directories. "+
			"compress writes a .tar.gz, otherwise a directory (manifest.json and files/). The manifest holds each file's SHA-256, checked by fs_restore. "+
			"Returns {backup, kind, entries, bytes}.", true,
			schema.Object(
				pathArg("source", "File or directory to back up"),
				schema.String("destination", "Where the backup goes; default <source>.backup-<UTC time>[.tar.gz] beside the source"+pathNote),
				schema.Boolean("compress", "Write a .tar.gz instead of a directory").Default(true),
			)).
			WithPhrases("snapshot directory", "backup folder", "back up a folder", "tar.gz backup", "save copy before change", "archive with checksums", "preserve state", "copy to restore later", "exact copy with permissions and symlinks", "back up first so I can put it back"),
		Run: boxed(func(ctx context.Context, s *sandbox, in args, _ *tool.Call) (any, error) {
			src, err := s.resolve("source", in.Source)
			if err != nil {
				return nil, err
			}
			compress := in.Compress == nil || *in.Compress
			dest := in.Destination
			if dest == "" {
				dest = src.abs + ".backup-" + time.Now().UTC().Format("20060102T150405.000Z")
				if compress {
					dest += ".tar.gz"
				}
			}
			dst, err := s.resolve("destination", dest)
			if err != nil {
				return nil, err
			}
			if fspath.Within(dst.abs, src.abs) {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "destination %s is inside source %s; the backup would hold itself", dst.abs, src.abs)
			}
			if _, err := dst.root.Lstat(dst.rel); err == nil {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "fs_backup: destination %s exists; choose another (backups are never overwritten)", dst.abs)
			}
			m, bytes, err := buildManifest(ctx, s, src)
			if err != nil {
				return nil, err
			}
			if compress {
				err = writeTarBackup(ctx, s, src, dst, m)
			} else {
				err = writeDirBackup(ctx, s, src, dst, m)
			}
			if err != nil {
				return nil, err
			}
			return map[string]any{"backup": dst.abs, "kind": m.Kind, "entries": len(m.Entries), "bytes": bytes, "compressed": compress}, nil
		}),
	}
}

// buildManifest walks the source, hashing every file.
func buildManifest(ctx context.Context, s *sandbox, src *place) (*manifest, int64, error) {
	m := &manifest{Version: backupVersion, Source: src.abs, Kind: "file", Created: time.Now().UTC().Format(time.RFC3339Nano)}
	var total int64
	err := walk(ctx, s, "fs_backup", src, func(e entry, _ int) error {
		if e.rel == "." && e.info.IsDir() {
			m.Kind = "dir"
		}
		me := manifestEntry{Path: e.rel, Type: kind(e.info.Mode()), Mode: uint32(modeBits(e.info.Mode())), MTime: e.info.ModTime().UTC().Format(time.RFC3339Nano), Target: e.target}
		switch me.Type {
		case "file":
			h := sha256.New()
			f, err := src.root.Open(src.at(e.rel).rel)
			if err != nil {
				return err
			}
			n, err := io.Copy(h, ctxReader{ctx, f})
			f.Close()
			if err != nil {
				return err
			}
			me.Size, me.SHA256 = n, hex.EncodeToString(h.Sum(nil))
			total += n
		case "other":
			return tool.Errorf(tool.CodeInvalidArgs, "fs_backup %s: is %s; only files, directories and symbolic links are backed up: remove it, or back up the parts of the tree around it", src.at(e.rel).abs, special(e.info.Mode()))
		}
		m.Entries = append(m.Entries, me)
		return nil
	})
	if err != nil {
		return nil, 0, s.fail("fs_backup", src, err)
	}
	return m, total, nil
}

func writeDirBackup(ctx context.Context, s *sandbox, src, dst *place, m *manifest) error {
	if err := dst.root.MkdirAll(dst.rel, 0o755); err != nil {
		return s.fail("fs_backup", dst, err)
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return tool.Errorf(tool.CodeInternal, "fs_backup: manifest: %v", err)
	}
	if err := dst.root.WriteFile(dst.at(manifestName).rel, data, 0o644); err != nil {
		return s.fail("fs_backup", dst, err)
	}
	_, err = copyTree(ctx, s, src, dst.at(filesDir), false)
	return err
}

func writeTarBackup(ctx context.Context, s *sandbox, src, dst *place, m *manifest) (err error) {
	if dir := filepath.Dir(dst.rel); dir != "." {
		if err := dst.root.MkdirAll(dir, 0o755); err != nil {
			return s.fail("fs_backup", dst, err)
		}
	}
	tmp := dst.rel + ".partial"
	f, err := dst.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return s.fail("fs_backup", dst, err)
	}
	defer func() {
		if err != nil {
			_ = dst.root.Remove(tmp) // a half-written backup is worth nothing
		}
	}()
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	data, err := json.Marshal(m)
	if err != nil {
		return tool.Errorf(tool.CodeInternal, "fs_backup: manifest: %v", err)
	}
	now := time.Now()
	if err := tw.WriteHeader(&tar.Header{Name: manifestName, Mode: 0o644, Size: int64(len(data)), ModTime: now, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
		return s.fail("fs_backup", dst, err)
	}
	if _, err := tw.Write(data); err != nil {
		return s.fail("fs_backup", dst, err)
	}
	for _, e := range m.Entries {
		mt, _ := time.Parse(time.RFC3339Nano, e.MTime)
		hdr := &tar.Header{Name: stored(e.Path), Mode: int64(e.Mode), ModTime: mt, Format: tar.FormatPAX}
		switch e.Type {
		case "dir":
			hdr.Typeflag, hdr.Name = tar.TypeDir, hdr.Name+"/"
		case "symlink":
			hdr.Typeflag, hdr.Linkname = tar.TypeSymlink, e.Target
		default:
			hdr.Typeflag, hdr.Size = tar.TypeReg, e.Size
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return s.fail("fs_backup", dst, err)
		}
		if e.Type != "file" {
			continue
		}
		from := src.at(e.Path)
		r, err := src.root.Open(from.rel)
		if err != nil {
			return s.fail("fs_backup", from, err)
		}
		_, err = io.CopyN(tw, ctxReader{ctx, r}, e.Size)
		r.Close()
		if err != nil {
			return tool.Errorf(tool.CodeToolError, "fs_backup %s: changed while being backed up (%v); try again", from.abs, err)
		}
	}
	if err := tw.Close(); err != nil {
		return s.fail("fs_backup", dst, err)
	}
	if err := gz.Close(); err != nil {
		return s.fail("fs_backup", dst, err)
	}
	if err := f.Close(); err != nil {
		return s.fail("fs_backup", dst, err)
	}
	if err := dst.root.Rename(tmp, dst.rel); err != nil {
		return s.fail("fs_backup", dst, err)
	}
	return nil
}

func fsRestore() tool.Tool {
	type args struct {
		Backup      string `json:"backup"`
		Destination string `json:"destination"`
		Overwrite   bool   `json:"overwrite"`
	}
	return tool.Tool{
		Def: def("fs_restore", "Restore a backup made by fs_backup (a .tar.gz or a backup directory) to destination, exactly: content, modes, modification times, links, empty directories; "+
			"every file's SHA-256 is checked against the manifest. Without overwrite, a restore that would replace an existing file is refused before anything is written; "+
			"with it, those files are replaced. Files at the destination that the backup does not hold are left alone. Returns {destination, kind, entries, bytes}.", true,
			schema.Object(
				pathArg("backup", "The backup: a .tar.gz or a directory holding manifest.json"),
				pathArg("destination", "Where to restore: the directory (for a directory backup) or the file (for a file backup)"),
				schema.Boolean("overwrite", "Replace files that exist at the destination").Default(false),
			)).
			WithPhrases("restore from backup", "roll back files", "undo file changes", "recover directory", "bring files back from backup", "revert files", "put back as it was", "put a folder back from a backup archive and verify checksums"),
		Run: boxed(func(ctx context.Context, s *sandbox, in args, _ *tool.Call) (any, error) {
			bk, err := s.resolve("backup", in.Backup)
			if err != nil {
				return nil, err
			}
			dst, err := s.resolve("destination", in.Destination)
			if err != nil {
				return nil, err
			}
			fi, err := bk.root.Stat(bk.rel)
			if err != nil {
				return nil, s.fail("fs_restore", bk, err)
			}
			var m *manifest
			var bytes int64
			if fi.IsDir() {
				m, bytes, err = restoreDir(ctx, s, bk, dst, in.Overwrite)
			} else {
				m, bytes, err = restoreTar(ctx, s, bk, dst, in.Overwrite)
			}
			if err != nil {
				return nil, err
			}
			return map[string]any{"destination": dst.abs, "kind": m.Kind, "entries": len(m.Entries), "bytes": bytes}, nil
		}),
	}
}

// checkManifest validates a manifest read from a backup.
func checkManifest(bk *place, data []byte) (*manifest, error) {
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil || m.Version != backupVersion || (m.Kind != "dir" && m.Kind != "file") {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "fs_restore %s: not a backup made by fs_backup (manifest.json missing or unreadable)", bk.abs)
	}
	for _, e := range m.Entries {
		if e.Path == "." {
			continue
		}
		if _, err := entryName(e.Path); err != nil {
			return nil, tool.Errorf(tool.CodeForbidden, "fs_restore %s: refused: %v", bk.abs, err)
		}
	}
	return &m, nil
}

// conflicts refuses, unless overwrite, a restore that would replace files.
func conflicts(dst *place, m *manifest, overwrite bool) error {
	if overwrite {
		return nil
	}
	var clash []string
	for _, e := range m.Entries {
		if e.Type == "dir" {
			continue
		}
		if _, err := dst.root.Lstat(dst.at(e.Path).rel); err == nil {
			clash = append(clash, dst.at(e.Path).abs)
		}
	}
	if len(clash) > 0 {
		return tool.Errorf(tool.CodeInvalidArgs, "fs_restore: %d file(s) exist at the destination (%s); set overwrite to true to replace them; nothing was restored",
			len(clash), strings.Join(clash[:min(5, len(clash))], ", "))
	}
	return nil
}

func restoreDir(ctx context.Context, s *sandbox, bk, dst *place, overwrite bool) (*manifest, int64, error) {
	data, err := bk.root.ReadFile(bk.at(manifestName).rel)
	if errors.Is(err, iofs.ErrNotExist) {
		return nil, 0, tool.Errorf(tool.CodeInvalidArgs, "fs_restore %s: a directory without manifest.json is not a backup made by fs_backup", bk.abs)
	}
	if err != nil {
		return nil, 0, s.fail("fs_restore", bk, err)
	}
	m, err := checkManifest(bk, data)
	if err != nil {
		return nil, 0, err
	}
	files := bk.at(filesDir)
	var total int64
	for _, e := range m.Entries {
		if e.Type != "file" {
			continue
		}
		sum, n, err := hashFile(ctx, files.at(e.Path))
		if err != nil {
			return nil, 0, s.fail("fs_restore", files.at(e.Path), err)
		}
		if sum != e.SHA256 {
			return nil, 0, tool.Errorf(tool.CodeToolError, "fs_restore %s: %s does not match its SHA-256 in the manifest (the backup is damaged); nothing was restored", bk.abs, e.Path)
		}
		total += n
	}
	if err := conflicts(dst, m, overwrite); err != nil {
		return nil, 0, err
	}
	if _, err := copyTree(ctx, s, files, dst, true); err != nil {
		return nil, 0, err
	}
	return m, total, nil
}

func hashFile(ctx context.Context, pl *place) (string, int64, error) {
	f, err := pl.root.Open(pl.rel)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, ctxReader{ctx, f})
	return hex.EncodeToString(h.Sum(nil)), n, err
}

func restoreTar(ctx context.Context, s *sandbox, bk, dst *place, overwrite bool) (*manifest, int64, error) {
	f, err := bk.root.Open(bk.rel)
	if err != nil {
		return nil, 0, s.fail("fs_restore", bk, err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, 0, tool.Errorf(tool.CodeInvalidArgs, "fs_restore %s: not a .tar.gz backup: %v", bk.abs, err)
	}
	tr := tar.NewReader(gz)
	hdr, err := tr.Next()
	if err != nil || hdr.Name != manifestName || hdr.Size > maxManifestLen {
		return nil, 0, tool.Errorf(tool.CodeInvalidArgs, "fs_restore %s: not a backup made by fs_backup (it does not start with manifest.json)", bk.abs)
	}
	data, err := io.ReadAll(tr)
	if err != nil {
		return nil, 0, tool.Errorf(tool.CodeInvalidArgs, "fs_restore %s: reading the manifest: %v", bk.abs, err)
	}
	m, err := checkManifest(bk, data)
	if err != nil {
		return nil, 0, err
	}
	if err := conflicts(dst, m, overwrite); err != nil {
		return nil, 0, err
	}
	byName := map[string]manifestEntry{}
	for _, e := range m.Entries {
		byName[stored(e.Path)] = e
	}
	var dirs []manifestEntry
	var total int64
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, 0, tool.Errorf(tool.CodeToolError, "fs_restore %s: the archive is damaged: %v", bk.abs, err)
		}
		e, ok := byName[strings.TrimSuffix(path.Clean(hdr.Name), "/")]
		if !ok {
			return nil, 0, tool.Errorf(tool.CodeForbidden, "fs_restore %s: entry %q is not in the manifest; refused", bk.abs, hdr.Name)
		}
		to := dst.at(e.Path)
		mt, _ := time.Parse(time.RFC3339Nano, e.MTime)
		switch e.Type {
		case "dir":
			if err := dst.root.MkdirAll(to.rel, 0o700); err != nil {
				return nil, 0, s.fail("fs_restore", to, err)
			}
			dirs = append(dirs, e)
		case "symlink":
			if err := ensureParent(dst, to); err != nil {
				return nil, 0, s.fail("fs_restore", to, err)
			}
			_ = dst.root.Remove(to.rel) // overwrite was checked above
			if err := dst.root.Symlink(e.Target, to.rel); err != nil {
				return nil, 0, s.fail("fs_restore", to, err)
			}
			if err := linkTimes(dst.root, to.rel, mt); err != nil {
				return nil, 0, s.fail("fs_restore", to, err)
			}
		case "file":
			if err := ensureParent(dst, to); err != nil {
				return nil, 0, s.fail("fs_restore", to, err)
			}
			n, err := restoreFile(ctx, s, tr, to, e, mt)
			if err != nil {
				return nil, 0, err
			}
			total += n
		}
	}
	for _, e := range slices.Backward(dirs) {
		to := dst.at(e.Path)
		mt, _ := time.Parse(time.RFC3339Nano, e.MTime)
		if err := dst.root.Chmod(to.rel, iofs.FileMode(e.Mode)&(iofs.ModePerm|iofs.ModeSetgid|iofs.ModeSticky)); err != nil {
			return nil, 0, s.fail("fs_restore", to, err)
		}
		if err := dst.root.Chtimes(to.rel, mt, mt); err != nil {
			return nil, 0, s.fail("fs_restore", to, err)
		}
	}
	return m, total, nil
}

// ensureParent creates the directory that will hold to.
func ensureParent(dst, to *place) error {
	if dir := filepath.Dir(to.rel); dir != "." {
		return dst.root.MkdirAll(dir, 0o700)
	}
	return nil
}

// restoreFile writes one file of a tar backup, checking its hash.
func restoreFile(ctx context.Context, s *sandbox, r io.Reader, to *place, e manifestEntry, mt time.Time) (int64, error) {
	out, err := to.root.OpenFile(to.rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, s.fail("fs_restore", to, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), ctxReader{ctx, r})
	if err == nil {
		err = out.Chmod(iofs.FileMode(e.Mode))
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, s.fail("fs_restore", to, err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != e.SHA256 {
		return n, tool.Errorf(tool.CodeToolError, "fs_restore: %s does not match its SHA-256 in the manifest (the backup is damaged)", e.Path)
	}
	if err := to.root.Chtimes(to.rel, mt, mt); err != nil {
		return n, s.fail("fs_restore", to, err)
	}
	return n, nil
}
