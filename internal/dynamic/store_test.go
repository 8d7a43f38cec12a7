package dynamic

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	s := &Store{Dir: filepath.Join(t.TempDir(), "dynamic-tools")}
	if err := s.Init(); err != nil {
		t.Fatalf("Init: %v", err)
	}
	return s
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestStoreInit(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	info, err := os.Stat(s.Dir)
	if err != nil || !info.IsDir() || info.Mode().Perm() != 0o755 {
		t.Fatalf("tools dir: %v %v", info, err)
	}
	got, err := os.ReadFile(filepath.Join(s.Dir, "barrhawk.d.ts"))
	if err != nil || string(got) != Types() {
		t.Fatalf("barrhawk.d.ts not written: %v", err)
	}
	for _, decl := range []string{"export interface DynamicTool", "export interface ToolContext", "handler(args: Record<string, any>, ctx: ToolContext): unknown | Promise<unknown>", "'network' | 'filesystem' | 'browser' | 'ai'", "'../../shared/types.js'"} {
		if !strings.Contains(string(got), decl) {
			t.Errorf("barrhawk.d.ts lacks %q", decl)
		}
	}
	// A changed copy is put back; Init is idempotent.
	writeFile(t, filepath.Join(s.Dir, "barrhawk.d.ts"), "stale")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(s.Dir, "barrhawk.d.ts")); string(got) != Types() {
		t.Error("stale barrhawk.d.ts not rewritten")
	}
	files, err := s.List()
	if err != nil || len(files) != 0 {
		t.Errorf("List after Init = %v, %v; want no tools (barrhawk.d.ts is not one)", files, err)
	}
}

func TestStoreListFilter(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	tools := []string{"alpha.ts", "beta.js", "alpha.js", "My-Tool.ts"}
	junk := []string{"types.d.ts", ".alpha.ts.123.tmp", ".hidden.ts", "alpha.ts~", ".#alpha.ts", "alpha.ts.swp", ".alpha.ts.swp", "notes.md", "4913", "x.tsx", ".ts", "noext"}
	for _, n := range append(slices.Clone(tools), junk...) {
		writeFile(t, filepath.Join(s.Dir, n), "export const tool = {};")
	}
	if err := os.Mkdir(filepath.Join(s.Dir, "dir.ts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(s.Dir, "alpha.ts"), filepath.Join(s.Dir, "linked.ts")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(s.Dir, "missing.ts"), filepath.Join(s.Dir, "dangling.ts")); err != nil {
		t.Fatal(err)
	}
	files, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Name+f.Ext)
		if f.Path != filepath.Join(s.Dir, f.Name+f.Ext) || f.Size != int64(len("export const tool = {};")) || f.ModTime.IsZero() {
			t.Errorf("bad File %+v", f)
		}
	}
	want := []string{"My-Tool.ts", "alpha.ts", "alpha.js", "beta.js", "linked.ts"}
	if !slices.Equal(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}
}

func TestStoreWriteReadDelete(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	path, err := s.Write("reverse_string", seedReverseString)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(s.Dir, "reverse_string.ts") {
		t.Errorf("path = %s", path)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o644 {
		t.Errorf("written file: %v %v", info, err)
	}
	src, rpath, err := s.Read("reverse_string")
	if err != nil || src != seedReverseString || rpath != path {
		t.Fatalf("Read = %q, %q, %v", src, rpath, err)
	}
	// Overwrite.
	if _, err := s.Write("reverse_string", "export const tool = 2;"); err != nil {
		t.Fatal(err)
	}
	if src, _, _ := s.Read("reverse_string"); src != "export const tool = 2;" {
		t.Errorf("after overwrite Read = %q", src)
	}
	// A .js tool is read when there is no .ts.
	writeFile(t, filepath.Join(s.Dir, "js_tool.js"), "exports.tool = 1;")
	if src, p, err := s.Read("js_tool"); err != nil || src != "exports.tool = 1;" || filepath.Ext(p) != ".js" {
		t.Errorf("Read js_tool = %q %q %v", src, p, err)
	}
	// No temporary file is left behind.
	entries, _ := os.ReadDir(s.Dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind: %s", e.Name())
		}
	}

	for _, name := range []string{"reverse_string", "js_tool"} {
		if err := s.Delete(name); err != nil {
			t.Errorf("Delete(%s): %v", name, err)
		}
	}
	for _, name := range []string{"reverse_string", "js_tool", "never_was"} {
		var te *tool.Error
		if err := s.Delete(name); !errors.As(err, &te) || te.Code != tool.CodeNotFound {
			t.Errorf("Delete(%s) again = %v, want NOT_FOUND", name, err)
		}
		if _, _, err := s.Read(name); !errors.As(err, &te) || te.Code != tool.CodeNotFound {
			t.Errorf("Read(%s) = %v, want NOT_FOUND", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "barrhawk.d.ts")); err != nil {
		t.Errorf("barrhawk.d.ts gone: %v", err)
	}
	// With both extensions, a bare name reads the .ts; a name with its
	// extension reads and deletes exactly that file.
	writeFile(t, filepath.Join(s.Dir, "both.ts"), "ts")
	writeFile(t, filepath.Join(s.Dir, "both.js"), "js")
	for name, want := range map[string]string{"both": "ts", "both.ts": "ts", "both.js": "js"} {
		if src, _, err := s.Read(name); err != nil || src != want {
			t.Errorf("Read(%s) = %q, %v; want %q", name, src, err, want)
		}
	}
	if err := s.Delete("both.js"); err != nil {
		t.Fatal(err)
	}
	if files, _ := s.List(); len(files) != 1 || files[0].Ext != ".ts" {
		t.Errorf("after Delete(both.js): %v", files)
	}
	writeFile(t, filepath.Join(s.Dir, "both.js"), "js")
	// A bare name deletes both extensions.
	if err := s.Delete("both"); err != nil {
		t.Fatal(err)
	}
	if files, _ := s.List(); len(files) != 0 {
		t.Errorf("left after Delete(both): %v", files)
	}
}

func TestStoreNameRules(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	tests := []struct {
		name string
		ok   bool
	}{
		{"a", true},
		{"reverse_string", true},
		{"tool2", true},
		{"a_b_c_9", true},
		{strings.Repeat("a", MaxToolNameLen), true},
		{strings.Repeat("a", MaxToolNameLen+1), false},
		{"", false},
		{"Reverse", false},
		{"2fast", false},
		{"_private", false},
		{"has-dash", false},
		{"has space", false},
		{"../escape", false},
		{"a/b", false},
		{"a.ts", false},
		{"é", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := s.Write(tt.name, "export const tool = {};")
			if tt.ok {
				if err != nil {
					t.Errorf("Write(%q) = %v", tt.name, err)
				}
				return
			}
			var te *tool.Error
			if !errors.As(err, &te) || te.Code != tool.CodeInvalidArgs || !strings.Contains(err.Error(), "^[a-z][a-z0-9_]*$") {
				t.Errorf("Write(%q) = %v, want INVALID_ARGS stating the rule", tt.name, err)
			}
		})
	}
	for _, bad := range []string{"", "..", "../x", "a/b", ".hidden"} {
		var te *tool.Error
		if _, _, err := s.Read(bad); !errors.As(err, &te) || te.Code != tool.CodeInvalidArgs {
			t.Errorf("Read(%q) = %v, want INVALID_ARGS", bad, err)
		}
		if err := s.Delete(bad); !errors.As(err, &te) || te.Code != tool.CodeInvalidArgs {
			t.Errorf("Delete(%q) = %v, want INVALID_ARGS", bad, err)
		}
	}
}

// TestStoreWriteIsAtomic has readers and List race a writer that switches a
// file between two large contents: a reader must only ever see one of the
// two, whole, and List never a temporary file.
func TestStoreWriteIsAtomic(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	a := "// A\n" + strings.Repeat("const a = 1;\n", 40000)
	b := "// B\n" + strings.Repeat("const bb = 22;\n", 50000)
	if _, err := s.Write("big", a); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var reads, partial, listed atomic.Int64
	var badList atomic.Value
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				got, err := os.ReadFile(filepath.Join(s.Dir, "big.ts"))
				if err != nil {
					partial.Add(1) // the name must always exist
					continue
				}
				reads.Add(1)
				if string(got) != a && string(got) != b {
					partial.Add(1)
				}
				files, err := s.List()
				if err != nil || len(files) != 1 || files[0].Name != "big" {
					badList.Store(files)
				}
				listed.Add(1)
			}
		}()
	}
	for i := range 60 {
		src := a
		if i%2 == 0 {
			src = b
		}
		if _, err := s.Write("big", src); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if partial.Load() != 0 {
		t.Errorf("%d of %d reads saw a missing or partial file", partial.Load(), reads.Load())
	}
	if v := badList.Load(); v != nil {
		t.Errorf("List saw %v", v)
	}
	if reads.Load() == 0 || listed.Load() == 0 {
		t.Error("readers did not run")
	}
}
