package fs

import (
	"context"
)

// Writer writes files inside the allowed roots of one call, the way
// fs_write does, for other tool families that write a file a user names
// (the browser's storage state, say): a relative path starts in the first
// root (the server's working directory), a path outside the roots or a
// symbolic link leading out is FORBIDDEN naming the path and the roots,
// and the file is replaced atomically. A tool using it sets Def.UsesRoots,
// so that the front sends the roots with each call.
type Writer struct {
	s *sandbox
}

// NewWriter returns the writer of the roots ctx carries (tool.RootsFrom),
// or of the working directory when it carries none. Close it when the call
// ends.
func NewWriter(ctx context.Context) (*Writer, error) {
	s, err := newSandbox(ctx)
	if err != nil {
		return nil, err
	}
	return &Writer{s: s}, nil
}

// Close closes the roots the writer opened.
func (w *Writer) Close() { w.s.Close() }

// WriteFile writes data to the file at p, given in argument arg, creating
// its missing parent directories when createDirs is set, and returns its
// absolute path. op names the tool in errors.
func (w *Writer) WriteFile(op, arg, p string, data []byte, createDirs bool) (string, error) {
	pl, err := w.s.resolve(arg, p)
	if err != nil {
		return "", err
	}
	if _, err := writeFile(w.s, op, pl, data, 0o644, createDirs); err != nil {
		return "", err
	}
	return pl.abs, nil
}
