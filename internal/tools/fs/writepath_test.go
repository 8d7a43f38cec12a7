package fs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
)

func TestWritePath(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "x.webm"), filepath.Join(root, "link.webm")); err != nil {
		t.Fatal(err)
	}
	ctx := tool.WithRoots(context.Background(), []string{root})
	p, err := WritePath(ctx, "filename", "a/b/video.webm")
	if err != nil || p != filepath.Join(root, "a", "b", "video.webm") {
		t.Fatalf("relative: %q %v", p, err)
	}
	if fi, err := os.Stat(filepath.Join(root, "a", "b")); err != nil || !fi.IsDir() {
		t.Errorf("the parent directories are made: %v", err)
	}
	for _, c := range []struct{ path, code, says string }{
		{"../x.webm", tool.CodeForbidden, "outside the allowed roots"},
		{"/etc/x.webm", tool.CodeForbidden, "outside the allowed roots"},
		{"out/x.webm", tool.CodeForbidden, "symbolic link"},
		{"link.webm", tool.CodeForbidden, "symbolic link"},
		{"a", tool.CodeInvalidArgs, "is a directory"},
		{".", tool.CodeInvalidArgs, "allowed root"},
		{"", tool.CodeInvalidArgs, "a path is required"},
	} {
		_, err := WritePath(ctx, "filename", c.path)
		te := tool.AsError(err)
		if err == nil || te.Code != c.code || !strings.Contains(te.Message, c.says) || !strings.Contains(te.Message, `"filename"`) {
			t.Errorf("%q: %v, want %s saying %q", c.path, err, c.code, c.says)
		}
	}
}
