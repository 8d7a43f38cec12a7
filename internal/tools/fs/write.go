package fs

import (
	"context"
)

// WriteFile writes data to the file at p, given in argument arg, the way
// fs_write does, for other tool families that write a file a user names
// (a HAR of browser_network_requests, the browser's storage state): a relative path starts in the
// first allowed root (the server's working directory), a path outside the
// roots is FORBIDDEN naming it and the roots, missing parent directories
// are created inside the root, and the file is replaced atomically. A tool
// using it sets Def.UsesRoots, so that the front sends the roots with each
// call. It returns the file's absolute path.
func WriteFile(ctx context.Context, arg, p string, data []byte) (string, error) {
	s, err := newSandbox(ctx)
	if err != nil {
		return "", err
	}
	defer s.Close()
	pl, err := s.resolve(arg, p)
	if err != nil {
		return "", err
	}
	if _, err := writeFile(s, "argument \""+arg+"\"", pl, data, 0o644, true); err != nil {
		return "", err
	}
	return pl.abs, nil
}

// WritePath resolves p, given in argument arg, for a tool that hands the
// path to another program to write (browser_start_video's ffmpeg), with
// the rules of WriteFile: a relative path starts in the first allowed root,
// a path outside the roots is FORBIDDEN, a root or an existing directory
// is INVALID_ARGS, and missing parent directories are created inside the
// root. The tool sets Def.UsesRoots. It returns the file's absolute path.
func WritePath(ctx context.Context, arg, p string) (string, error) {
	s, err := newSandbox(ctx)
	if err != nil {
		return "", err
	}
	defer s.Close()
	pl, err := s.resolve(arg, p)
	if err != nil {
		return "", err
	}
	if _, err := fileTarget(s, "argument \""+arg+"\"", pl, true); err != nil {
		return "", err
	}
	return pl.abs, nil
}
