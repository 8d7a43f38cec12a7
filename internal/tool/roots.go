package tool

import "context"

type rootsKey struct{}

// WithRoots returns ctx carrying the directories a filesystem tool may
// touch: absolute, symbolic links resolved, the first one (the server's
// working directory) the base of relative paths. The front computes them
// for each call of a CategoryFilesystem tool (or one with Def.UsesRoots)
// and the Igor hands them on.
func WithRoots(ctx context.Context, roots []string) context.Context {
	return context.WithValue(ctx, rootsKey{}, roots)
}

// RootsFrom returns the roots ctx carries, or nil when it carries none.
func RootsFrom(ctx context.Context) []string {
	roots, _ := ctx.Value(rootsKey{}).([]string)
	return roots
}
