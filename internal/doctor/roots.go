package doctor

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Roots: the directories the front's own file-reading tools (plan_read)
// may read, and those the filesystem tools will: the server's working
// directory, tools.roots, and the roots the MCP client declares
// (roots/list), asked of the client on each use since they may change.

type clientRootsKey struct{}

// ClientRoots asks the MCP client for its roots, as file:// URIs.
type ClientRoots func(context.Context) ([]string, error)

// WithClientRoots returns ctx carrying how to ask this call's client for
// its roots; the front sets it for every call of a client that declares
// the roots capability.
func WithClientRoots(ctx context.Context, fn ClientRoots) context.Context {
	return context.WithValue(ctx, clientRootsKey{}, fn)
}

// rootsTimeout bounds the question to the client.
const rootsTimeout = 5 * time.Second

// AllowedRoots returns the directories a call may read, resolved (absolute,
// symbolic links followed): the working directory, tools.roots and the
// client's roots.
func (d *Doctor) AllowedRoots(ctx context.Context) []string {
	var dirs []string
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	dirs = append(dirs, d.cfg.Tools.Roots...)
	if fn, ok := ctx.Value(clientRootsKey{}).(ClientRoots); ok && fn != nil {
		cctx, cancel := context.WithTimeout(ctx, rootsTimeout)
		uris, err := fn(cctx)
		cancel()
		if err != nil {
			d.log.Warn("asking the client for its roots", "err", err)
		}
		for _, u := range uris {
			if p, ok := fileURIPath(u); ok {
				dirs = append(dirs, p)
			}
		}
	}
	var out []string
	home, _ := os.UserHomeDir()
	for _, dir := range dirs {
		if rest, ok := strings.CutPrefix(dir, "~/"); ok && home != "" {
			dir = filepath.Join(home, rest)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		out = append(out, abs)
	}
	return out
}

// fileURIPath turns a file:// URI into a path.
func fileURIPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", false
	}
	return filepath.FromSlash(u.Path), true
}
