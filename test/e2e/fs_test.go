package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFilesystemRoots: the fs tools, through the real server and its Igors,
// work inside the server's working directory, tools.roots and the roots the
// client declares, and refuse a path outside them, or a link leading out,
// naming the roots.
func TestFilesystemRoots(t *testing.T) {
	t.Parallel()
	configured, clientDir, outside := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("top secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "barrhawk.yaml"), []byte("tools:\n  roots: ["+configured+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(home, "out")); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-fs", Version: "1"}, nil)
	client.AddRoots(&mcp.Root{Name: "project", URI: "file://" + clientDir})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	session := connect(t, client, home, "2025-11-25")
	call := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return text(res), res.IsError
	}
	// Relative paths are in the working directory.
	if out, isErr := call("fs_write", map[string]any{"path": "notes/a.txt", "content": "hello", "createDirs": true}); isErr {
		t.Fatalf("fs_write: %s", out)
	}
	if data, err := os.ReadFile(filepath.Join(home, "notes/a.txt")); err != nil || string(data) != "hello" {
		t.Fatalf("the file written: %q %v", data, err)
	}
	if out, isErr := call("fs_read", map[string]any{"path": "notes/a.txt"}); isErr || !strings.Contains(out, `"content":"hello"`) {
		t.Errorf("fs_read: %s", out)
	}
	if out, isErr := call("fs_list", map[string]any{"path": "notes"}); isErr || !strings.Contains(out, `"a.txt"`) {
		t.Errorf("fs_list: %s", out)
	}
	// The configured root and the client's root are reached by absolute path.
	for _, d := range []string{configured, clientDir} {
		p := filepath.Join(d, "copy.txt")
		if out, isErr := call("fs_copy", map[string]any{"source": "notes/a.txt", "destination": p}); isErr {
			t.Errorf("fs_copy into %s: %s", d, out)
		}
		if data, _ := os.ReadFile(p); string(data) != "hello" {
			t.Errorf("copy in %s: %q", d, data)
		}
	}
	// Outside, directly or through a link: refused, naming the roots.
	for _, p := range []string{filepath.Join(outside, "secret.txt"), "../" + filepath.Base(outside) + "/secret.txt"} {
		out, isErr := call("fs_read", map[string]any{"path": p})
		if !isErr || !strings.Contains(out, "FORBIDDEN") || !strings.Contains(out, "outside the allowed roots") ||
			!strings.Contains(out, configured) || !strings.Contains(out, clientDir) {
			t.Errorf("fs_read %s: want FORBIDDEN naming the roots, got %s", p, out)
		}
	}
	if out, isErr := call("fs_read", map[string]any{"path": "out/secret.txt"}); !isErr || !strings.Contains(out, "FORBIDDEN") || strings.Contains(out, "top secret") {
		t.Errorf("fs_read through a link leading out: %s", out)
	}
	if out, isErr := call("fs_write", map[string]any{"path": "out/planted.txt", "content": "x"}); !isErr || !strings.Contains(out, "FORBIDDEN") {
		t.Errorf("fs_write through a link leading out: %s", out)
	}
	if _, err := os.Stat(filepath.Join(outside, "planted.txt")); !os.IsNotExist(err) {
		t.Error("a file was planted outside the roots")
	}
}
