package doctor

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
)

func TestAllowedRoots(t *testing.T) {
	configured, client, real := t.TempDir(), t.TempDir(), t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	d := &Doctor{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	d.cfg.Tools.Roots = []string{configured, link}
	wd, _ := os.Getwd()
	wd, _ = filepath.EvalSymlinks(wd)
	resolved := func(p string) string { r, _ := filepath.EvalSymlinks(p); return r }

	got := d.AllowedRoots(context.Background())
	want := []string{wd, resolved(configured), real}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("without client roots: got %v, want %v (the link resolved)", got, want)
	}

	ctx := WithClientRoots(context.Background(), func(context.Context) ([]string, error) {
		return []string{"file://" + client, "https://example.com/not-a-dir"}, nil
	})
	got = d.AllowedRoots(ctx)
	if len(got) != 4 || got[3] != resolved(client) {
		t.Errorf("with a client root: got %v, want the client's directory last and the https URI ignored", got)
	}

	failing := WithClientRoots(context.Background(), func(context.Context) ([]string, error) { return nil, errors.New("client gone") })
	if got := d.AllowedRoots(failing); len(got) != 3 {
		t.Errorf("a client that does not answer roots/list leaves the working directory and tools.roots: %v", got)
	}
}

func TestPlanReadConfinedToRoots(t *testing.T) {
	root, outside := resolvedTemp(t), resolvedTemp(t)
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "PLAN.md"), "# inside\n")
	write(filepath.Join(outside, "SECRET.md"), "# outside\n")
	if err := os.Symlink(filepath.Join(outside, "SECRET.md"), filepath.Join(root, "escape.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "PLAN.md"), filepath.Join(root, "alias.md")); err != nil {
		t.Fatal(err)
	}
	roots := []string{root}

	for _, p := range []string{filepath.Join(root, "PLAN.md"), filepath.Join(root, "alias.md")} {
		out, err := planRead(p, roots)
		if err != nil || out.(map[string]any)["content"] != "# inside\n" {
			t.Errorf("plan_read %s inside the root: %v %v", p, out, err)
		}
	}
	for p, wantText := range map[string]string{
		filepath.Join(outside, "SECRET.md"):  "outside the allowed roots " + root,
		filepath.Join(root, "escape.md"):     "(a link to " + filepath.Join(outside, "SECRET.md") + "): it is outside the allowed roots " + root,
		filepath.Join(outside, "MISSING.md"): "outside the allowed roots", // not NOT_FOUND: no probing outside
		root + "/x/../PLAN.md":               "may not contain '..'",
		filepath.Join(root, "notes.txt"):     "only Markdown (.md) files",
	} {
		_, err := planRead(p, roots)
		var te *tool.Error
		if !errors.As(err, &te) || te.Code != tool.CodeForbidden || !strings.Contains(te.Message, wantText) {
			t.Errorf("plan_read %s: want FORBIDDEN containing %q, got %v", p, wantText, err)
		}
	}
	_, err := planRead(filepath.Join(root, "MISSING.md"), roots)
	var te *tool.Error
	if !errors.As(err, &te) || te.Code != tool.CodeNotFound {
		t.Errorf("a missing file inside a root: want NOT_FOUND, got %v", err)
	}
}

// resolvedTemp is t.TempDir with its symbolic links resolved, as
// AllowedRoots gives roots.
func resolvedTemp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}
