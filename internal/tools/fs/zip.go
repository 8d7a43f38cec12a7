package fs

import (
	"archive/zip"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/barrhawk/barrhawk/internal/fspath"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// Bounds of an extraction, so that a zip bomb cannot fill the disk.
const (
	defaultUnzipBytes   = 1 << 30
	defaultUnzipEntries = 100000
)

func fsZip() tool.Tool {
	type args struct {
		Source      string `json:"source"`
		Destination string `json:"destination"`
		Level       *int   `json:"level"`
		Overwrite   bool   `json:"overwrite"`
	}
	return tool.Tool{
		Def: def("fs_zip", "Create a zip archive of a file or a directory tree (entries relative to it, with modes and times; symbolic links are left out and listed in skipped). "+
			"Returns {destination, entries, bytes (uncompressed), compressedBytes, skipped}.", true,
			schema.Object(
				pathArg("source", "File or directory to archive"),
				pathArg("destination", "The .zip file to write"),
				schema.Integer("level", "Compression level: 0 stores, 1 is fastest, 9 smallest, -1 the default (6)").Default(-1).Min(-1).Max(9),
				schema.Boolean("overwrite", "Replace an existing destination").Default(false),
			)).
			WithPhrases("compress folder", "zip directory", "make archive", "package files", "create .zip", "bundle artifacts"),
		Run: boxed(func(ctx context.Context, s *sandbox, in args, _ *tool.Call) (any, error) {
			src, err := s.resolve("source", in.Source)
			if err != nil {
				return nil, err
			}
			dst, err := s.resolve("destination", in.Destination)
			if err != nil {
				return nil, err
			}
			if fspath.Within(dst.abs, src.abs) {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "destination %s is inside source %s; the archive would hold itself", dst.abs, src.abs)
			}
			if _, err := dst.root.Lstat(dst.rel); err == nil && !in.Overwrite {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "fs_zip: destination %s exists; set overwrite to true to replace it", dst.abs)
			}
			level := flate.DefaultCompression
			if in.Level != nil {
				level = *in.Level
			}
			var buf countingWriter
			tmp := dst.rel + ".partial"
			f, err := dst.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
			if err != nil {
				return nil, s.fail("fs_zip", dst, err)
			}
			buf.w = f
			zw := zip.NewWriter(&buf)
			zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, level) })
			top := path.Base(filepath.ToSlash(src.abs))
			var entries int
			var total int64
			skipped := []string{}
			err = walk(ctx, s, "fs_zip", src, func(e entry, _ int) error {
				name := e.rel
				if !e.info.IsDir() && e.rel == "." {
					name = top // a single file is stored under its name
				}
				if name == "." {
					return nil
				}
				if !e.info.Mode().IsRegular() && !e.info.IsDir() {
					skipped = append(skipped, name)
					return nil
				}
				hdr, err := zip.FileInfoHeader(e.info)
				if err != nil {
					return err
				}
				hdr.Name = name
				if e.info.IsDir() {
					hdr.Name += "/"
					hdr.Method = zip.Store
				} else if level == 0 {
					hdr.Method = zip.Store
				} else {
					hdr.Method = zip.Deflate
				}
				w, err := zw.CreateHeader(hdr)
				if err != nil {
					return err
				}
				entries++
				if e.info.IsDir() {
					return nil
				}
				r, err := src.root.Open(src.at(e.rel).rel)
				if err != nil {
					return err
				}
				defer r.Close()
				n, err := io.Copy(w, ctxReader{ctx, r})
				total += n
				return err
			})
			if err == nil {
				err = zw.Close()
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err == nil {
				err = dst.root.Rename(tmp, dst.rel)
			}
			if err != nil {
				_ = dst.root.Remove(tmp) // a half-written archive is worth nothing
				return nil, s.fail("fs_zip", dst, err)
			}
			return map[string]any{"destination": dst.abs, "entries": entries, "bytes": total, "compressedBytes": buf.n, "skipped": skipped}, nil
		}),
	}
}

// countingWriter counts what passes through.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// entryName checks a zip entry's name: relative, slash-separated, without
// `..`; it returns the cleaned name. Anything else is zip-slip.
func entryName(name string) (string, error) {
	n := strings.ReplaceAll(name, "\\", "/")
	if n == "" || strings.HasPrefix(n, "/") || (len(n) > 1 && n[1] == ':') || strings.IndexByte(n, 0) >= 0 {
		return "", fmt.Errorf("entry %q has an absolute or empty name", name)
	}
	for seg := range strings.SplitSeq(n, "/") {
		if seg == ".." {
			return "", fmt.Errorf("entry %q climbs out of the destination with ..", name)
		}
	}
	clean := path.Clean(n)
	if clean == "." {
		return "", fmt.Errorf("entry %q names the destination itself", name)
	}
	return clean, nil
}

func fsUnzip() tool.Tool {
	type args struct {
		Source      string `json:"source"`
		Destination string `json:"destination"`
		Overwrite   bool   `json:"overwrite"`
		MaxBytes    int64  `json:"maxBytes"`
		MaxEntries  int    `json:"maxEntries"`
	}
	return tool.Tool{
		Def: def("fs_unzip", "Extract a zip archive into a directory (created if missing). The whole archive is checked before anything is written: "+
			"an entry with an absolute name or a .. (zip-slip) is FORBIDDEN, and so is a symbolic link leading out; an archive over maxBytes uncompressed or maxEntries is refused "+
			"(and the sizes are enforced while extracting, whatever the headers say). Returns {destination, entries, bytes}.", true,
			schema.Object(
				pathArg("source", "The .zip file"),
				pathArg("destination", "Directory to extract into"),
				schema.Boolean("overwrite", "Replace existing files (otherwise an archive that would replace one is refused before anything is written)").Default(false),
				schema.Integer("maxBytes", "Most uncompressed bytes extracted").Default(defaultUnzipBytes).Min(1).Max(defaultUnzipBytes),
				schema.Integer("maxEntries", "Most entries extracted").Default(defaultUnzipEntries).Min(1).Max(defaultUnzipEntries),
			)).
			WithPhrases("extract archive", "decompress zip", "unpack zip", "unzip file", "open .zip", "zip-slip safe extract", "extract contents into a folder", "unpack a downloaded zip"),
		Run: boxed(func(ctx context.Context, s *sandbox, in args, _ *tool.Call) (any, error) {
			src, err := s.resolve("source", in.Source)
			if err != nil {
				return nil, err
			}
			dst, err := s.resolve("destination", in.Destination)
			if err != nil {
				return nil, err
			}
			if in.MaxBytes <= 0 {
				in.MaxBytes = defaultUnzipBytes
			}
			if in.MaxEntries <= 0 {
				in.MaxEntries = defaultUnzipEntries
			}
			f, err := src.root.Open(src.rel)
			if err != nil {
				return nil, s.fail("fs_unzip", src, err)
			}
			defer f.Close()
			fi, err := f.Stat()
			if err != nil {
				return nil, s.fail("fs_unzip", src, err)
			}
			zr, err := zip.NewReader(f, fi.Size())
			if err != nil {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "fs_unzip %s: not a zip archive: %v", src.abs, err)
			}
			if len(zr.File) > in.MaxEntries {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "fs_unzip %s: %d entries, over maxEntries %d; nothing was extracted%s",
					src.abs, len(zr.File), in.MaxEntries, raiseHint("maxEntries", int64(len(zr.File)), int64(in.MaxEntries), defaultUnzipEntries))
			}
			names := make([]string, len(zr.File))
			var declared uint64
			for i, zf := range zr.File {
				if names[i], err = entryName(zf.Name); err != nil {
					return nil, tool.Errorf(tool.CodeForbidden, "fs_unzip %s: refused (zip-slip): %v; nothing was extracted", src.abs, err)
				}
				if zf.Mode()&iofs.ModeSymlink != 0 {
					if err := checkLinkEntry(zf, names[i]); err != nil {
						return nil, tool.Errorf(tool.CodeForbidden, "fs_unzip %s: refused: %v; nothing was extracted", src.abs, err)
					}
				}
				declared += zf.UncompressedSize64
				if declared > uint64(in.MaxBytes) {
					for _, rest := range zr.File[i+1:] {
						declared += rest.UncompressedSize64
					}
					return nil, tool.Errorf(tool.CodeInvalidArgs, "fs_unzip %s: the archive inflates to %d bytes, over maxBytes %d; nothing was extracted%s",
						src.abs, declared, in.MaxBytes, raiseHint("maxBytes", int64(declared), int64(in.MaxBytes), defaultUnzipBytes))
				}
				if !in.Overwrite && !zf.FileInfo().IsDir() {
					if _, err := dst.root.Lstat(dst.at(names[i]).rel); err == nil {
						return nil, tool.Errorf(tool.CodeInvalidArgs, "fs_unzip: %s exists; set overwrite to true to replace files; nothing was extracted", dst.at(names[i]).abs)
					}
				}
			}
			if err := checkParents(zr.File, names, dst); err != nil {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "fs_unzip %s: %v; nothing was extracted", src.abs, err)
			}
			if err := dst.root.MkdirAll(dst.rel, 0o755); err != nil {
				return nil, s.fail("fs_unzip", dst, err)
			}
			into, err := dst.sub()
			if err != nil {
				return nil, s.fail("fs_unzip", dst, err)
			}
			defer into.Close()
			budget := in.MaxBytes
			for i, zf := range zr.File {
				n, err := extract(ctx, into, zf, names[i], budget)
				budget -= n
				if err != nil {
					var te *tool.Error
					if errors.As(err, &te) {
						return nil, te
					}
					return nil, s.fail("fs_unzip", dst.at(names[i]), err)
				}
			}
			return map[string]any{"destination": dst.abs, "entries": len(zr.File), "bytes": in.MaxBytes - budget}, nil
		}),
	}
}

// checkParents refuses an archive whose entries cannot all be written: one
// whose directory is, in the archive, a file or a symbolic link (x, then
// x/y), or, at the destination, something other than a directory. Found
// before anything is written, it leaves nothing half extracted.
func checkParents(files []*zip.File, names []string, dst *place) error {
	notDir := map[string]string{} // entry name → the archive's name of a file or link there
	for i, zf := range files {
		if !zf.FileInfo().IsDir() {
			notDir[names[i]] = zf.Name
		}
	}
	checked := map[string]bool{}
	for i, zf := range files {
		for dir := path.Dir(names[i]); dir != "."; dir = path.Dir(dir) {
			if checked[dir] {
				break // and so were its parents
			}
			checked[dir] = true
			if other, ok := notDir[dir]; ok {
				return fmt.Errorf("entry %q needs %q to be a directory, but the archive has it as a file or link (entry %q)", zf.Name, dir, other)
			}
			if fi, err := dst.root.Lstat(dst.at(dir).rel); err == nil && !fi.IsDir() {
				return fmt.Errorf("entry %q needs %s to be a directory, and it is a %s there; remove it, or extract elsewhere", zf.Name, dst.at(dir).abs, kind(fi.Mode()))
			}
		}
	}
	return nil
}

// checkLinkEntry refuses a symbolic link entry whose target is absolute
// or leads out of the destination.
func checkLinkEntry(zf *zip.File, name string) error {
	r, err := zf.Open()
	if err != nil {
		return fmt.Errorf("entry %q: %w", zf.Name, err)
	}
	defer r.Close()
	target, err := io.ReadAll(io.LimitReader(r, 4096))
	if err != nil {
		return fmt.Errorf("entry %q: %w", zf.Name, err)
	}
	t := string(target)
	if path.IsAbs(t) || strings.HasPrefix(path.Clean(path.Join(path.Dir(name), t)), "..") {
		return fmt.Errorf("entry %q is a symbolic link to %q, outside the destination", zf.Name, t)
	}
	return nil
}

// extract writes one entry through the destination's root, reading at
// most budget bytes.
func extract(ctx context.Context, into *os.Root, zf *zip.File, name string, budget int64) (int64, error) {
	rel := filepath.FromSlash(name)
	mode := zf.Mode()
	if mode.IsDir() {
		return 0, into.MkdirAll(rel, 0o755)
	}
	if dir := filepath.Dir(rel); dir != "." {
		if err := into.MkdirAll(dir, 0o755); err != nil {
			return 0, err
		}
	}
	r, err := zf.Open()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	if mode&iofs.ModeSymlink != 0 {
		target, err := io.ReadAll(io.LimitReader(r, 4096))
		if err != nil {
			return 0, err
		}
		_ = into.Remove(rel) // overwrite was checked before extracting
		return 0, into.Symlink(string(target), rel)
	}
	perm := mode.Perm()
	if perm == 0 {
		perm = 0o644
	}
	out, err := into.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, ctxReader{ctx, io.LimitReader(r, budget+1)})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, err
	}
	if n > budget {
		return n, tool.Errorf(tool.CodeInvalidArgs, "fs_unzip: entry %q inflates past maxBytes (its header said %d bytes); extraction stopped", zf.Name, zf.UncompressedSize64)
	}
	if !zf.Modified.IsZero() {
		_ = into.Chtimes(rel, zf.Modified, zf.Modified) // times are a courtesy; the content is what matters
	}
	return n, nil
}

// raiseHint tells how to let an archive of need (bytes or entries) through
// a bound set to limit, whose most is max: raise it, if it can go that far.
func raiseHint(arg string, need, limit, most int64) string {
	if limit < most && need <= most {
		return fmt.Sprintf(" (raise %s to %d or more if you trust the archive; it can go up to %d)", arg, need, most)
	}
	return fmt.Sprintf(" (%s goes up to %d at most)", arg, most)
}
