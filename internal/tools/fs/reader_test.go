package fs

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
)

func TestReader(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	for _, p := range []string{"reports/a.xml", "reports/run-1/b.xml", "reports/run-1/deep/c.xml", "reports/.hidden/d.xml", "reports/.e.xml", "reports/f.json"} {
		full := filepath.Join(b.root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(b.outside, "secret.txt"), filepath.Join(b.root, "reports", "link.xml")); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(b.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	f, abs, err := r.Open("source", "reports/a.xml")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(f)
	f.Close()
	if string(data) != "reports/a.xml" || abs != filepath.Join(b.root, "reports", "a.xml") {
		t.Errorf("Open: %q at %s", data, abs)
	}
	for _, p := range []string{filepath.Join(b.outside, "secret.txt"), "../outside/secret.txt", "reports/link.xml"} {
		if _, _, err := r.Open("source", p); tool.AsError(err).Code != tool.CodeForbidden {
			t.Errorf("Open(%s): %v, want FORBIDDEN", p, err)
		}
	}

	rel := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			r, _ := filepath.Rel(b.root, p)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"reports/*.xml", []string{"reports/a.xml"}},
		{"reports/**/*.xml", []string{"reports/a.xml", "reports/run-1/b.xml", "reports/run-1/deep/c.xml"}},
		{"reports/*/*.xml", []string{"reports/run-1/b.xml"}},
		{"reports/.*.xml", []string{"reports/.e.xml"}},
		{filepath.Join(b.root, "reports", "*.json"), []string{"reports/f.json"}},
		{"*.xml", nil},
	} {
		got, err := r.Glob("source", tc.pattern, 100)
		if err != nil || !slices.Equal(rel(got), tc.want) {
			t.Errorf("Glob(%s) = %v, %v; want %v", tc.pattern, rel(got), err, tc.want)
		}
	}
	if _, err := r.Glob("source", "reports/**/*.xml", 2); tool.AsError(err).Code != tool.CodeInvalidArgs {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := r.Glob("source", filepath.Join(b.outside, "*.txt"), 10); tool.AsError(err).Code != tool.CodeForbidden {
		t.Errorf("a glob outside the roots: %v", err)
	}
	if _, err := r.Glob("source", "reports/[a.xml", 10); tool.AsError(err).Code != tool.CodeInvalidArgs {
		t.Errorf("a bad glob: %v", err)
	}
}
