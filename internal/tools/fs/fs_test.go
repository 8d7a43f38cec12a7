package fs

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	iofs "io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
	"golang.org/x/sys/unix"
)

// box is a test's allowed roots: real directories in a temp dir, and one
// outside them holding a secret.
type box struct {
	t       *testing.T
	root    string // the first root: relative paths start here
	other   string // a second root
	outside string // not a root
	ctx     context.Context
}

func newBox(t *testing.T) *box {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := &box{t: t, root: filepath.Join(base, "root"), other: filepath.Join(base, "other"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{b.root, b.other, b.outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(b.outside, "secret.txt"), []byte("top secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	b.ctx = tool.WithRoots(context.Background(), []string{b.root, b.other})
	return b
}

func (b *box) run(name, args string) (map[string]any, *tool.Error) {
	b.t.Helper()
	v, err := tooltest.RunContext(b.t, b.ctx, Tools(), name, args)
	if err != nil {
		return nil, err
	}
	return tooltest.Object(b.t, v), nil
}

func (b *box) must(name, args string) map[string]any {
	b.t.Helper()
	v, err := b.run(name, args)
	if err != nil {
		b.t.Fatalf("%s(%s): %v", name, args, err)
	}
	return v
}

func (b *box) fail(name, args, code string, mentions ...string) *tool.Error {
	b.t.Helper()
	v, err := b.run(name, args)
	if err == nil {
		b.t.Fatalf("%s(%s): want %s, got %v", name, args, code, v)
	}
	if err.Code != code {
		b.t.Fatalf("%s(%s): want %s, got %s: %s", name, args, code, err.Code, err.Message)
	}
	for _, m := range mentions {
		if !strings.Contains(err.Message, m) {
			b.t.Errorf("%s(%s): the error %q does not mention %q", name, args, err.Message, m)
		}
	}
	return err
}

// write puts a file under the first root.
func (b *box) write(rel, content string) string {
	b.t.Helper()
	p := filepath.Join(b.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		b.t.Fatal(err)
	}
	return p
}

func q(s string) string { return tooltest.Marshal(s) }

func TestFamily(t *testing.T) {
	tooltest.CheckFamilyIn(t, Tools(), tool.CategoryFilesystem, tooltest.Group(Group),
		"fs_read", "fs_write", "fs_list", "fs_exists", "fs_mkdir", "fs_remove", "fs_copy", "fs_move",
		"fs_watch", "fs_diff", "fs_search", "fs_hash", "fs_zip", "fs_unzip", "fs_chmod", "fs_chown",
		"fs_template", "fs_backup", "fs_restore")
}

// Every way out of the roots is refused, with the path and the roots named,
// and nothing outside is read or written.
func TestEscapesAreRefused(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	secret := filepath.Join(b.outside, "secret.txt")
	if err := os.Symlink(secret, filepath.Join(b.root, "link-out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(b.outside, filepath.Join(b.root, "dir-out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../outside/secret.txt", filepath.Join(b.root, "rel-out")); err != nil {
		t.Fatal(err)
	}
	b.fail("fs_read", `{"path":"../outside/secret.txt"}`, tool.CodeForbidden, "outside the allowed roots", b.root, b.other)
	b.fail("fs_read", `{"path":`+q(secret)+`}`, tool.CodeForbidden, secret)
	b.fail("fs_read", `{"path":"sub/../../outside/secret.txt"}`, tool.CodeForbidden)
	b.fail("fs_read", `{"path":"/etc/passwd"}`, tool.CodeForbidden, "/etc/passwd")
	// The refusal names the link and its target.
	b.fail("fs_read", `{"path":"link-out"}`, tool.CodeForbidden, "the symbolic link "+filepath.Join(b.root, "link-out")+" points to "+secret+", an absolute target")
	b.fail("fs_read", `{"path":"rel-out"}`, tool.CodeForbidden, "the symbolic link "+filepath.Join(b.root, "rel-out")+" points to ../outside/secret.txt, outside the root "+b.root)
	b.fail("fs_read", `{"path":"dir-out/secret.txt"}`, tool.CodeForbidden, "the symbolic link "+filepath.Join(b.root, "dir-out")+" points to "+b.outside)
	b.fail("fs_write", `{"path":"dir-out/planted.txt","content":"x"}`, tool.CodeForbidden)
	b.fail("fs_write", `{"path":"../outside/planted.txt","content":"x"}`, tool.CodeForbidden)
	b.fail("fs_copy", `{"source":"dir-out/secret.txt","destination":"copy.txt"}`, tool.CodeForbidden)
	b.fail("fs_copy", `{"source":"link-out","destination":`+q(filepath.Join(b.outside, "x"))+`}`, tool.CodeForbidden)
	b.fail("fs_hash", `{"path":"link-out"}`, tool.CodeForbidden)
	b.fail("fs_list", `{"path":"dir-out"}`, tool.CodeForbidden)
	b.fail("fs_remove", `{"path":"dir-out/secret.txt"}`, tool.CodeForbidden)
	b.fail("fs_chmod", `{"path":"link-out","mode":"777"}`, tool.CodeForbidden)
	b.fail("fs_mkdir", `{"path":"dir-out/new"}`, tool.CodeForbidden)
	b.fail("fs_remove", `{"path":`+q(b.root)+`,"recursive":true}`, tool.CodeForbidden, "allowed root")
	b.fail("fs_read", `{"path":"a\u0000b"}`, tool.CodeInvalidArgs, "NUL")
	// An absolute link whose target is inside the roots is followed (os.Root
	// alone refuses any absolute target), as a file and as a directory on
	// the way; the link itself is what fs_exists describes and fs_remove
	// removes.
	b.write("in.txt", "inside")
	b.write("sub/deep.txt", "deep")
	if err := os.Symlink(filepath.Join(b.root, "in.txt"), filepath.Join(b.root, "abs-in")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(b.other, "."), filepath.Join(b.root, "abs-other")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(b.root, "sub"), filepath.Join(b.root, "abs-sub")); err != nil {
		t.Fatal(err)
	}
	if got := b.must("fs_read", `{"path":"abs-in"}`); got["content"] != "inside" {
		t.Errorf("fs_read through an absolute link inside: %v", got)
	}
	if got := b.must("fs_read", `{"path":"abs-sub/deep.txt"}`); got["content"] != "deep" {
		t.Errorf("fs_read through an absolute directory link inside: %v", got)
	}
	b.must("fs_write", `{"path":"abs-other/written.txt","content":"x"}`)
	if data, err := os.ReadFile(filepath.Join(b.other, "written.txt")); err != nil || string(data) != "x" {
		t.Errorf("fs_write through an absolute link to another root: %q %v", data, err)
	}
	if got := b.must("fs_exists", `{"path":"abs-in"}`); got["type"] != "symlink" {
		t.Errorf("fs_exists on an absolute link inside: %v", got)
	}
	b.must("fs_remove", `{"path":"abs-in"}`)
	if data, err := os.ReadFile(filepath.Join(b.root, "in.txt")); err != nil || string(data) != "inside" {
		t.Errorf("removing the link removed its target: %q %v", data, err)
	}
	ents, err := os.ReadDir(b.outside)
	if err != nil || len(ents) != 1 {
		t.Fatalf("the outside directory changed: %v %v", ents, err)
	}
	if fi, _ := os.Stat(secret); fi.Mode().Perm() != 0o600 {
		t.Errorf("the secret's mode changed: %v", fi.Mode())
	}
	// The link itself (not its target) is inside: it can be described and removed.
	if got := b.must("fs_exists", `{"path":"link-out"}`); got["type"] != "symlink" || got["target"] != secret {
		t.Errorf("fs_exists on a link: %v", got)
	}
	b.must("fs_remove", `{"path":"link-out"}`)
	if _, err := os.Stat(secret); err != nil {
		t.Errorf("removing the link removed its target: %v", err)
	}
}

// A root reached through a symbolic link to it (a client that declares
// /home/me/proj where /home is a link, /tmp on macOS: the roots are real
// paths) is the root: its files are reached, and a link outside it still
// leads nowhere.
func TestRootThroughALink(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	base := filepath.Dir(b.root)
	alias := filepath.Join(base, "alias")
	if err := os.Symlink(b.root, alias); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(b.outside, filepath.Join(base, "alias-out")); err != nil {
		t.Fatal(err)
	}
	b.write("in.txt", "inside")
	if err := os.Symlink("in.txt", filepath.Join(b.root, "lnk")); err != nil {
		t.Fatal(err)
	}
	if got := b.must("fs_read", `{"path":`+q(filepath.Join(alias, "in.txt"))+`}`); got["content"] != "inside" {
		t.Errorf("fs_read through the link: %v", got)
	}
	b.must("fs_write", `{"path":`+q(filepath.Join(alias, "sub", "new.txt"))+`,"content":"x","createDirs":true}`)
	if data, err := os.ReadFile(filepath.Join(b.root, "sub", "new.txt")); err != nil || string(data) != "x" {
		t.Errorf("fs_write through the link: %q %v", data, err)
	}
	// The last element is not resolved: removing a link removes the link.
	b.must("fs_remove", `{"path":`+q(filepath.Join(alias, "lnk"))+`}`)
	if _, err := os.Stat(filepath.Join(b.root, "in.txt")); err != nil {
		t.Errorf("removing the link removed its target: %v", err)
	}
	b.fail("fs_read", `{"path":`+q(filepath.Join(base, "alias-out", "secret.txt"))+`}`, tool.CodeForbidden, "outside the allowed roots")
	b.fail("fs_remove", `{"path":`+q(alias)+`,"recursive":true}`, tool.CodeForbidden, "outside the allowed roots")
	if _, err := os.Stat(filepath.Join(b.root, "in.txt")); err != nil {
		t.Errorf("the root was touched: %v", err)
	}
}

// A root that does not exist, or is a file (a slip in tools.roots), is
// named as the trouble, not reported as a failure to open it.
func TestRootThatIsMissingOrAFile(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	missing := filepath.Join(filepath.Dir(b.root), "missing")
	file := filepath.Join(b.outside, "plain.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	b.ctx = tool.WithRoots(context.Background(), []string{b.root, missing, file})
	b.fail("fs_read", `{"path":`+q(filepath.Join(missing, "a.txt"))+`}`, tool.CodeNotFound, "the allowed root "+missing+", which does not exist", "tools.roots")
	b.fail("fs_write", `{"path":`+q(filepath.Join(missing, "a.txt"))+`,"content":"x","createDirs":true}`, tool.CodeNotFound, "does not exist")
	b.fail("fs_read", `{"path":`+q(filepath.Join(file, "a.txt"))+`}`, tool.CodeInvalidArgs, "the allowed root "+file+", which is not a directory")
}

func TestReadWriteExistsMkdirRemove(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	got := b.must("fs_write", `{"path":"a/b/c.txt","content":"héllo\n","createDirs":true}`)
	if got["created"] != true || got["bytes"] != float64(7) || got["path"] != filepath.Join(b.root, "a/b/c.txt") {
		t.Errorf("fs_write: %v", got)
	}
	b.fail("fs_write", `{"path":"nodir/x.txt","content":"x"}`, tool.CodeNotFound, "createDirs")
	got = b.must("fs_read", `{"path":"a/b/c.txt"}`)
	if got["content"] != "héllo\n" || got["encoding"] != "utf8" || got["binary"] != false || got["truncated"] != false {
		t.Errorf("fs_read: %v", got)
	}
	// Rewriting keeps the file's mode, and the write is whole.
	if err := os.Chmod(filepath.Join(b.root, "a/b/c.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got = b.must("fs_write", `{"path":"a/b/c.txt","content":"bye"}`); got["created"] != false {
		t.Errorf("rewrite: %v", got)
	}
	if fi, _ := os.Stat(filepath.Join(b.root, "a/b/c.txt")); fi.Mode().Perm() != 0o600 {
		t.Errorf("rewrite changed the mode to %v", fi.Mode())
	}
	if ents, _ := os.ReadDir(filepath.Join(b.root, "a/b")); len(ents) != 1 {
		t.Errorf("a temporary file was left: %v", ents)
	}
	// Binary content round-trips through base64.
	bin := []byte{0, 1, 2, 0xff, 'x'}
	b.must("fs_write", `{"path":"bin.dat","content":"`+base64.StdEncoding.EncodeToString(bin)+`","encoding":"base64"}`)
	got = b.must("fs_read", `{"path":"bin.dat"}`)
	if got["binary"] != true || got["encoding"] != "base64" || got["content"] != base64.StdEncoding.EncodeToString(bin) || !strings.Contains(fmt.Sprint(got["note"]), "binary") {
		t.Errorf("binary read: %v", got)
	}
	b.fail("fs_write", `{"path":"x","content":"%%%","encoding":"base64"}`, tool.CodeInvalidArgs, "base64")
	// A long file is cut with a note; a UTF-8 rune cut in half is not binary.
	b.write("long.txt", strings.Repeat("é", 10))
	got = b.must("fs_read", `{"path":"long.txt","maxBytes":5}`)
	if got["truncated"] != true || got["binary"] != false || !strings.Contains(fmt.Sprint(got["note"]), "20 bytes") {
		t.Errorf("truncated read: %v", got)
	}
	b.fail("fs_read", `{"path":"a"}`, tool.CodeInvalidArgs, "is a directory")
	b.fail("fs_read", `{"path":"missing.txt"}`, tool.CodeNotFound, filepath.Join(b.root, "missing.txt"))

	if got = b.must("fs_exists", `{"path":"a/b/c.txt"}`); got["exists"] != true || got["type"] != "file" || got["size"] != float64(3) || got["mode"] != "0600" {
		t.Errorf("fs_exists: %v", got)
	}
	if got = b.must("fs_exists", `{"path":"nope"}`); got["exists"] != false {
		t.Errorf("fs_exists missing: %v", got)
	}
	// A second root is reached by absolute path.
	if got = b.must("fs_mkdir", `{"path":`+q(filepath.Join(b.other, "x/y"))+`}`); got["created"] != true {
		t.Errorf("fs_mkdir: %v", got)
	}
	if got = b.must("fs_mkdir", `{"path":`+q(filepath.Join(b.other, "x/y"))+`}`); got["created"] != false {
		t.Errorf("fs_mkdir again: %v", got)
	}
	b.fail("fs_mkdir", `{"path":"p/q","recursive":false}`, tool.CodeNotFound, "recursive")
	b.fail("fs_remove", `{"path":"a"}`, tool.CodeInvalidArgs, "not empty", "recursive")
	if got = b.must("fs_remove", `{"path":"a","recursive":true}`); got["removed"] != true || got["type"] != "dir" {
		t.Errorf("fs_remove: %v", got)
	}
	if _, err := os.Stat(filepath.Join(b.root, "a")); !os.IsNotExist(err) {
		t.Errorf("a still exists: %v", err)
	}
	b.fail("fs_remove", `{"path":"a"}`, tool.CodeNotFound)
	if got = b.must("fs_remove", `{"path":"a","force":true}`); got["removed"] != false {
		t.Errorf("fs_remove force: %v", got)
	}
}

func TestCopyMove(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	b.write("src/one.txt", "1")
	b.write("src/deep/two.txt", "22")
	if err := os.Chmod(filepath.Join(b.root, "src/one.txt"), 0o751); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(b.root, "src/one.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	b.fail("fs_copy", `{"source":"src","destination":"dst"}`, tool.CodeInvalidArgs, "recursive")
	got := b.must("fs_copy", `{"source":"src","destination":"dst","recursive":true}`)
	if got["files"] != float64(2) || got["bytes"] != float64(3) {
		t.Errorf("fs_copy: %v", got)
	}
	fi, err := os.Stat(filepath.Join(b.root, "dst/one.txt"))
	if err != nil || fi.Mode().Perm() != 0o751 || !fi.ModTime().Equal(old) {
		t.Errorf("copy lost mode or time: %v %v", fi, err)
	}
	if data, _ := os.ReadFile(filepath.Join(b.root, "dst/deep/two.txt")); string(data) != "22" {
		t.Errorf("deep copy: %q", data)
	}
	b.fail("fs_copy", `{"source":"src","destination":"src/inner","recursive":true}`, tool.CodeInvalidArgs, "inside source")
	// Into an existing directory, as cp does; refused over existing files unless overwrite.
	b.must("fs_mkdir", `{"path":"box"}`)
	b.must("fs_copy", `{"source":"src/one.txt","destination":"box"}`)
	b.fail("fs_copy", `{"source":"src/one.txt","destination":"box"}`, tool.CodeInvalidArgs)
	b.must("fs_copy", `{"source":"src/one.txt","destination":"box","overwrite":true}`)
	if _, err := os.Stat(filepath.Join(b.root, "box/one.txt")); err != nil {
		t.Errorf("copy into a directory: %v", err)
	}
	// Rename within a root, then a move across roots.
	b.must("fs_move", `{"source":"dst","destination":"moved"}`)
	if _, err := os.Stat(filepath.Join(b.root, "dst")); !os.IsNotExist(err) {
		t.Errorf("the source of a move is still there: %v", err)
	}
	b.write("f1.txt", "one")
	b.write("f2.txt", "two")
	b.fail("fs_move", `{"source":"f1.txt","destination":"f2.txt"}`, tool.CodeInvalidArgs, "overwrite")
	b.must("fs_move", `{"source":"f1.txt","destination":"f2.txt","overwrite":true}`)
	if data, _ := os.ReadFile(filepath.Join(b.root, "f2.txt")); string(data) != "one" {
		t.Errorf("move with overwrite: %q", data)
	}
	b.must("fs_move", `{"source":"moved","destination":`+q(filepath.Join(b.other, "across"))+`}`)
	if data, _ := os.ReadFile(filepath.Join(b.other, "across/deep/two.txt")); string(data) != "22" {
		t.Errorf("move across roots: %q", data)
	}
	if _, err := os.Stat(filepath.Join(b.root, "moved")); !os.IsNotExist(err) {
		t.Errorf("the source of a move across roots is still there: %v", err)
	}
	b.fail("fs_move", `{"source":`+q(b.other)+`,"destination":"x"}`, tool.CodeForbidden, "allowed root")
}

// A source that is itself a symbolic link is copied as what it points to:
// a relative link's text would mean another file, or none, where the copy
// goes. Links inside a copied directory stay links.
func TestCopyOfALink(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	b.write("data/file.txt", "content")
	b.write("data/dir/inner.txt", "inner")
	for link, target := range map[string]string{"links/to-file": "../data/file.txt", "links/to-dir": "../data/dir", "links/out": "../../outside/secret.txt"} {
		if err := os.MkdirAll(filepath.Join(b.root, "links"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(b.root, link)); err != nil {
			t.Fatal(err)
		}
	}
	got := b.must("fs_copy", `{"source":"links/to-file","destination":"copy.txt"}`)
	if got["files"] != float64(1) || got["links"] != float64(0) {
		t.Errorf("copy of a link to a file: %v", got)
	}
	if fi, err := os.Lstat(filepath.Join(b.root, "copy.txt")); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("the copy is not a file: %v %v", fi, err)
	}
	if data, _ := os.ReadFile(filepath.Join(b.root, "copy.txt")); string(data) != "content" {
		t.Errorf("copy of a link: %q", data)
	}
	b.fail("fs_copy", `{"source":"links/to-file","destination":"copy.txt"}`, tool.CodeInvalidArgs, "overwrite")
	b.must("fs_copy", `{"source":"links/to-file","destination":"copy.txt","overwrite":true}`)

	b.fail("fs_copy", `{"source":"links/to-dir","destination":"dircopy"}`, tool.CodeInvalidArgs, "link to a directory", "recursive")
	b.must("fs_copy", `{"source":"links/to-dir","destination":"dircopy","recursive":true}`)
	if data, _ := os.ReadFile(filepath.Join(b.root, "dircopy", "inner.txt")); string(data) != "inner" {
		t.Errorf("copy of a link to a directory: %q", data)
	}
	if fi, err := os.Lstat(filepath.Join(b.root, "dircopy")); err != nil || !fi.IsDir() {
		t.Errorf("the copy of a link to a directory is not a directory: %v %v", fi, err)
	}
	// Links inside a directory copied stay links.
	got = b.must("fs_copy", `{"source":"links","destination":"links2","recursive":true}`)
	if got["links"] != float64(3) {
		t.Errorf("links inside a directory: %v", got)
	}
	b.fail("fs_copy", `{"source":"links/out","destination":"stolen.txt"}`, tool.CodeForbidden, "links/out")
	if _, err := os.Lstat(filepath.Join(b.root, "stolen.txt")); !os.IsNotExist(err) {
		t.Errorf("a link leading out was copied: %v", err)
	}
}

func TestListSearchHashDiffTemplateChmod(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	b.write("p/a.go", "package a\nfunc Alpha() {}\n")
	b.write("p/b.txt", "nothing\nALPHA here\n")
	b.write("p/q/c.go", "package c\n")
	got := b.must("fs_list", `{"path":"p"}`)
	if got["count"] != float64(3) {
		t.Errorf("fs_list: %v", got)
	}
	got = b.must("fs_list", `{"path":"p","recursive":true,"pattern":"*.go"}`)
	if got["count"] != float64(2) || !strings.Contains(tooltest.Marshal(got), `"q/c.go"`) {
		t.Errorf("fs_list recursive *.go: %v", got)
	}
	if got = b.must("fs_list", `{"path":"p","recursive":true,"limit":2}`); got["truncated"] != true || got["count"] != float64(2) {
		t.Errorf("fs_list limit: %v", got)
	}
	b.fail("fs_list", `{"path":"p/a.go"}`, tool.CodeInvalidArgs)
	if got = b.must("fs_search", `{"path":"p","pattern":"*.go"}`); got["count"] != float64(2) {
		t.Errorf("fs_search name: %v", got)
	}
	if got = b.must("fs_search", `{"path":"p","pattern":"*.go","maxDepth":1}`); got["count"] != float64(1) {
		t.Errorf("fs_search maxDepth: %v", got)
	}
	got = b.must("fs_search", `{"path":"p","pattern":"alpha","type":"content","ignoreCase":true}`)
	if got["count"] != float64(2) || !strings.Contains(tooltest.Marshal(got), `"ALPHA here"`) {
		t.Errorf("fs_search content: %v", got)
	}
	b.fail("fs_search", `{"path":"p","pattern":"(","type":"content"}`, tool.CodeInvalidArgs, "(")

	sum := sha256.Sum256([]byte("package c\n"))
	if got = b.must("fs_hash", `{"path":"p/q/c.go"}`); got["hash"] != hex.EncodeToString(sum[:]) || got["algorithm"] != "sha256" || got["size"] != float64(10) {
		t.Errorf("fs_hash: %v", got)
	}
	if got = b.must("fs_hash", `{"path":"p/q/c.go","algorithm":"md5"}`); len(fmt.Sprint(got["hash"])) != 32 {
		t.Errorf("fs_hash md5: %v", got)
	}

	b.write("old.txt", "a\nb\nc\n")
	b.write("new.txt", "a\nB\nc\nd\n")
	got = b.must("fs_diff", `{"file1":"old.txt","file2":"new.txt"}`)
	u := fmt.Sprint(got["unified"])
	if got["equal"] != false || got["added"] != float64(2) || got["removed"] != float64(1) ||
		!strings.Contains(u, "--- "+filepath.Join(b.root, "old.txt")) || !strings.Contains(u, "+++ "+filepath.Join(b.root, "new.txt")) ||
		!strings.Contains(u, "\n-b\n") || !strings.Contains(u, "\n+B\n") || !strings.Contains(u, "@@") {
		t.Errorf("fs_diff: %v", got)
	}
	if got = b.must("fs_diff", `{"file1":"old.txt","file2":"old.txt"}`); got["equal"] != true {
		t.Errorf("fs_diff same: %v", got)
	}

	b.write("t.tmpl", "Hi {{user.name}}, {{count}} items, {{gone}}")
	got = b.must("fs_template", `{"template":"t.tmpl","output":"out/t.txt","variables":{"user":{"name":"Ada"},"count":3}}`)
	if data, _ := os.ReadFile(filepath.Join(b.root, "out/t.txt")); string(data) != "Hi Ada, 3 items, {{gone}}" {
		t.Errorf("fs_template wrote %q (%v)", data, got)
	}
	if !strings.Contains(tooltest.Marshal(got["missing"]), "gone") {
		t.Errorf("fs_template missing: %v", got)
	}
	b.fail("fs_template", `{"template":"t.tmpl","output":"out/strict.txt","variables":{},"strict":true}`, tool.CodeInvalidArgs, "gone")
	if _, err := os.Stat(filepath.Join(b.root, "out/strict.txt")); !os.IsNotExist(err) {
		t.Errorf("strict fs_template wrote its output")
	}

	if got = b.must("fs_chmod", `{"path":"old.txt","mode":"0640"}`); got["mode"] != "0640" || got["previous"] != "0644" {
		t.Errorf("fs_chmod: %v", got)
	}
	if fi, _ := os.Stat(filepath.Join(b.root, "old.txt")); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode after fs_chmod: %v", fi.Mode())
	}
	b.fail("fs_chmod", `{"path":"old.txt","mode":"rwx"}`, tool.CodeInvalidArgs, "octal")
	b.fail("fs_chmod", `{"path":"old.txt","mode":"99999"}`, tool.CodeInvalidArgs, "octal")
}

// archive writes a zip whose entries are given as name → content.
func archive(t *testing.T, path string, entries ...[2]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, e := range entries {
		w, err := zw.Create(e[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestZipUnzip(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	b.write("tree/a.txt", strings.Repeat("a", 1000))
	b.write("tree/sub/b.txt", "b")
	if err := os.Chmod(filepath.Join(b.root, "tree/sub/b.txt"), 0o700); err != nil {
		t.Fatal(err)
	}
	got := b.must("fs_zip", `{"source":"tree","destination":"t.zip","level":9}`)
	if got["bytes"] != float64(1001) || got["compressedBytes"].(float64) >= 1001 {
		t.Errorf("fs_zip: %v", got)
	}
	b.fail("fs_zip", `{"source":"tree","destination":"t.zip"}`, tool.CodeInvalidArgs, "overwrite")
	b.fail("fs_zip", `{"source":"tree","destination":"tree/self.zip"}`, tool.CodeInvalidArgs, "inside source")
	got = b.must("fs_unzip", `{"source":"t.zip","destination":"out"}`)
	if data, _ := os.ReadFile(filepath.Join(b.root, "out/sub/b.txt")); string(data) != "b" {
		t.Errorf("unzip content %q (%v)", data, got)
	}
	if fi, err := os.Stat(filepath.Join(b.root, "out/sub/b.txt")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("unzip lost the mode: %v %v", fi, err)
	}
	b.fail("fs_unzip", `{"source":"t.zip","destination":"out"}`, tool.CodeInvalidArgs, "overwrite", "nothing was extracted")
	// Over a bound: how much the archive needs, and how to let it through.
	b.fail("fs_unzip", `{"source":"t.zip","destination":"small","maxBytes":100}`, tool.CodeInvalidArgs, "inflates to 1001 bytes, over maxBytes 100", "nothing was extracted", "raise maxBytes to 1001")
	b.fail("fs_unzip", `{"source":"t.zip","destination":"few","maxEntries":1}`, tool.CodeInvalidArgs, "entries, over maxEntries 1", "nothing was extracted", "raise maxEntries to")
	b.fail("fs_unzip", `{"source":"tree/a.txt","destination":"x"}`, tool.CodeInvalidArgs, "not a zip")

	// Zip-slip: an entry climbing out, or absolute, is refused before anything is written.
	archive(t, filepath.Join(b.root, "slip.zip"), [2]string{"ok.txt", "fine"}, [2]string{"../../outside/evil.txt", "pwned"})
	b.fail("fs_unzip", `{"source":"slip.zip","destination":"slip"}`, tool.CodeForbidden, "zip-slip", "../../outside/evil.txt")
	archive(t, filepath.Join(b.root, "abs.zip"), [2]string{"/tmp/evil.txt", "pwned"})
	b.fail("fs_unzip", `{"source":"abs.zip","destination":"slip"}`, tool.CodeForbidden, "/tmp/evil.txt")
	for _, p := range []string{filepath.Join(b.outside, "evil.txt"), filepath.Join(b.root, "slip/ok.txt")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s was written by a refused archive", p)
		}
	}

	// Entries that cannot all be written (x a file, then x/y) are refused
	// before any is, with the two named, not half extracted.
	archive(t, filepath.Join(b.root, "clash.zip"), [2]string{"first.txt", "1"}, [2]string{"x", "a file"}, [2]string{"x/y", "under it"})
	b.fail("fs_unzip", `{"source":"clash.zip","destination":"clash"}`, tool.CodeInvalidArgs, `entry "x/y" needs "x" to be a directory`, `(entry "x")`, "nothing was extracted")
	if _, err := os.Stat(filepath.Join(b.root, "clash")); !os.IsNotExist(err) {
		t.Errorf("a refused archive was half extracted: %v", err)
	}
	// So is one whose directory is a file at the destination.
	archive(t, filepath.Join(b.root, "deep.zip"), [2]string{"first.txt", "1"}, [2]string{"d/e.txt", "2"})
	b.write("there/d", "a file")
	b.fail("fs_unzip", `{"source":"deep.zip","destination":"there","overwrite":true}`, tool.CodeInvalidArgs, filepath.Join(b.root, "there", "d")+" to be a directory, and it is a file there")
	if _, err := os.Stat(filepath.Join(b.root, "there", "first.txt")); !os.IsNotExist(err) {
		t.Errorf("a refused archive was half extracted: %v", err)
	}
}

// snapshot describes a tree exactly: for each path, its type, mode, mtime
// and content or link target.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		desc := fmt.Sprintf("%v %s", fi.Mode(), fi.ModTime().UTC().Format(time.RFC3339Nano))
		switch {
		case fi.Mode()&iofs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			desc += " -> " + target
		case fi.Mode().IsRegular():
			data, _ := os.ReadFile(p)
			desc += " " + string(data)
		case fi.IsDir() && rel == ".":
			desc = "root" // its own time changes as the backup is written beside it
		}
		out[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestBackupRestoreRoundTrip(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	b.write("proj/main.go", "package main\n")
	b.write("proj/bin/run.sh", "#!/bin/sh\necho hi\n")
	if err := os.Chmod(filepath.Join(b.root, "proj/bin/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(b.root, "proj/empty"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("bin/run.sh", filepath.Join(b.root, "proj/run")); err != nil {
		t.Fatal(err)
	}
	when := time.Date(2021, 6, 7, 8, 9, 10, 123456789, time.UTC)
	for _, p := range []string{"proj/main.go", "proj/bin/run.sh", "proj/empty", "proj/bin"} {
		if err := os.Chtimes(filepath.Join(b.root, p), when, when); err != nil {
			t.Fatal(err)
		}
	}
	lt := unix.NsecToTimespec(when.UnixNano())
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, filepath.Join(b.root, "proj/run"), []unix.Timespec{lt, lt}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		t.Fatal(err)
	}
	want := snapshot(t, filepath.Join(b.root, "proj"))
	for _, compress := range []bool{true, false} {
		name := fmt.Sprintf("backup-%v", compress)
		dest := name
		if compress {
			dest += ".tar.gz"
		}
		got := b.must("fs_backup", fmt.Sprintf(`{"source":"proj","destination":%q,"compress":%v}`, dest, compress))
		if got["compressed"] != compress || got["entries"].(float64) < 6 {
			t.Errorf("fs_backup: %v", got)
		}
		restored := "restored-" + name
		b.must("fs_restore", fmt.Sprintf(`{"backup":%q,"destination":%q}`, dest, restored))
		have := snapshot(t, filepath.Join(b.root, restored))
		if tooltest.Marshal(have) != tooltest.Marshal(want) {
			t.Errorf("compress=%v: the restored tree differs\nwant %v\n got %v", compress, want, have)
		}
		b.fail("fs_restore", fmt.Sprintf(`{"backup":%q,"destination":%q}`, dest, restored), tool.CodeInvalidArgs, "overwrite")
	}
	b.fail("fs_restore", `{"backup":"proj","destination":"r"}`, tool.CodeInvalidArgs, "manifest")

	// A named pipe in the tree is named as one, not as its mode string.
	if err := unix.Mkfifo(filepath.Join(b.root, "proj", "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	b.fail("fs_backup", `{"source":"proj","destination":"with-pipe.tar.gz"}`, tool.CodeInvalidArgs, filepath.Join(b.root, "proj", "pipe")+": is a named pipe (FIFO)")
	b.fail("fs_copy", `{"source":"proj","destination":"copy-with-pipe","recursive":true}`, tool.CodeInvalidArgs, "is a named pipe (FIFO)", "nothing was copied")
	if _, err := os.Stat(filepath.Join(b.root, "copy-with-pipe")); !os.IsNotExist(err) {
		t.Errorf("a refused copy was half done: %v", err)
	}
}

// fs_chown works as root and, for a user who may not, says so plainly. The
// refusal is real: the tool runs in a child process (this test binary) with
// the credentials of nobody.
func TestChown(t *testing.T) {
	if dir := os.Getenv("BARRHAWK_FS_CHOWN_CHILD"); dir != "" {
		ctx := tool.WithRoots(context.Background(), []string{dir})
		_, err := tooltest.RunContext(t, ctx, Tools(), "fs_chown", `{"path":"f.txt","uid":0,"gid":0}`)
		fmt.Printf("CHILD %v\n", err)
		return
	}
	b := newBox(t)
	p := b.write("f.txt", "x")
	if os.Geteuid() != 0 {
		// Not root: the refusal is this process's own.
		b.fail("fs_chown", `{"path":"f.txt","uid":0,"gid":0}`, tool.CodeForbidden, "not permitted", fmt.Sprintf("uid %d", os.Geteuid()), p)
		return
	}
	if got := b.must("fs_chown", `{"path":"f.txt","uid":1234,"gid":-1}`); got["uid"] != float64(1234) {
		t.Errorf("fs_chown: %v", got)
	}
	fi, _ := os.Stat(p)
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != 1234 || st.Gid != 0 {
		t.Errorf("owner after fs_chown: %d:%d", st.Uid, st.Gid)
	}
	// nobody must reach the root and run a copy of this test binary.
	base := filepath.Dir(b.root)
	for _, d := range []string{filepath.Dir(base), base, b.root} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "fs.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestChown$", "-test.count=1")
	cmd.Env = append(os.Environ(), "BARRHAWK_FS_CHOWN_CHILD="+b.root)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	line := string(out)
	if !strings.Contains(line, "CHILD FORBIDDEN") || !strings.Contains(line, "not permitted") || !strings.Contains(line, "uid 65534") || !strings.Contains(line, p) {
		t.Errorf("fs_chown as nobody: %s", out)
	}
}

func TestWatch(t *testing.T) {
	t.Parallel()
	b := newBox(t)
	b.must("fs_mkdir", `{"path":"w/sub"}`)
	s := tooltest.NewSession(t, Tools())
	s.Ctx = b.ctx
	start := tooltest.Object(t, s.MustRun("fs_watch", `{"action":"start","path":"w","recursive":true,"debounce":0}`))
	id := fmt.Sprint(start["id"])
	b.write("w/new.txt", "1")
	b.write("w/sub/deep.txt", "2")
	deadline := time.Now().Add(10 * time.Second)
	var seen string
	for time.Now().Before(deadline) {
		ev := tooltest.Object(t, s.MustRun("fs_watch", `{"action":"events","id":`+q(id)+`}`))
		seen = tooltest.Marshal(ev["events"])
		if strings.Contains(seen, "new.txt") && strings.Contains(seen, "deep.txt") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(seen, "new.txt") || !strings.Contains(seen, "deep.txt") || !strings.Contains(seen, "create") {
		t.Fatalf("events: %s", seen)
	}
	if list := tooltest.Marshal(s.MustRun("fs_watch", `{"action":"list"}`)); !strings.Contains(list, id) {
		t.Errorf("list: %s", list)
	}
	if _, err := s.Run("fs_watch", `{"action":"start","path":"../outside"}`); err == nil || err.Code != tool.CodeForbidden {
		t.Errorf("watching outside the roots: %v", err)
	}
	s.MustRun("fs_watch", `{"action":"stop","id":`+q(id)+`}`)
	if e := s.MustFail("fs_watch", `{"action":"events","id":`+q(id)+`}`, tool.CodeNotFound); !strings.Contains(e.Message, "open: ") {
		t.Errorf("unknown watcher: %s", e.Message)
	}
	s.MustFail("fs_watch", `{"action":"events"}`, tool.CodeInvalidArgs)

	// A watcher whose directory is removed says it sees nothing more.
	b.must("fs_mkdir", `{"path":"w2"}`)
	id = fmt.Sprint(tooltest.Object(t, s.MustRun("fs_watch", `{"action":"start","path":"w2","debounce":0}`))["id"])
	if ev := tooltest.Object(t, s.MustRun("fs_watch", `{"action":"events","id":`+q(id)+`}`)); ev["active"] != nil || ev["note"] != nil {
		t.Errorf("a live watcher: %v", ev)
	}
	b.must("fs_remove", `{"path":"w2","recursive":true}`)
	var ev map[string]any
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if ev = tooltest.Object(t, s.MustRun("fs_watch", `{"action":"events","id":`+q(id)+`}`)); ev["active"] == false {
			break
		}
	}
	if ev["active"] != false || !strings.Contains(fmt.Sprint(ev["note"]), "was removed or moved away") || !strings.Contains(fmt.Sprint(ev["note"]), "start another") {
		t.Errorf("a watcher whose directory went: %v", ev)
	}
	if list := tooltest.Marshal(s.MustRun("fs_watch", `{"action":"list"}`)); !strings.Contains(list, `"active":false`) {
		t.Errorf("list of a watcher whose directory went: %s", list)
	}
}
