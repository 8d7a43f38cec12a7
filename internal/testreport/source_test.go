package testreport

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tools/fs"
)

// roots is a temp dir made the one allowed root, and a reader of it.
func roots(t *testing.T) (string, *fs.Reader) {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(d, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := fs.NewReader(tool.WithRoots(context.Background(), []string{root}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return root, r
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// junitRun is a one-test JUnit report, with a timestamp when stamp is set.
func junitRun(name, status, stamp string) string {
	body := ""
	if status == "failed" {
		body = `<failure message="broke"/>`
	}
	ts := ""
	if stamp != "" {
		ts = ` timestamp="` + stamp + `"`
	}
	return fmt.Sprintf(`<testsuite name="s"%s><testcase name=%q>%s</testcase></testsuite>`, ts, name, body)
}

func names(reps []*Report) []string {
	var out []string
	for _, r := range reps {
		out = append(out, filepath.Base(r.Name))
	}
	return out
}

func wantToolError(t *testing.T, err error, code string, mentions ...string) {
	t.Helper()
	te, ok := err.(*tool.Error)
	if !ok || te.Code != code {
		t.Fatalf("got %v, want a %s tool error", err, code)
	}
	for _, m := range mentions {
		if !strings.Contains(te.Message, m) {
			t.Errorf("%s: %q does not mention %q", code, te.Message, m)
		}
	}
}

func TestLoadOrders(t *testing.T) {
	t.Parallel()
	root, files := roots(t)
	for _, n := range []int{10, 2, 1} {
		writeFile(t, filepath.Join(root, "runs", fmt.Sprintf("run-%d.xml", n)), junitRun("t", "passed", ""))
	}
	writeFile(t, filepath.Join(root, "runs", "README.md"), "not a report")
	writeFile(t, filepath.Join(root, "runs", ".hidden.xml"), "not read")
	ctx := context.Background()
	// A directory and a glob: by name, run-2 before run-10 (no report
	// says when it started).
	for _, src := range []string{"runs", "runs/*.xml", filepath.Join(root, "runs") + "/", "**/run-*.xml"} {
		reps, err := Load(ctx, files, "source", Source{src}, "")
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := strings.Join(names(reps), " "); got != "run-1.xml run-2.xml run-10.xml" {
			t.Errorf("%s: %s", src, got)
		}
	}
	// A list is taken as given.
	reps, err := Load(ctx, files, "source", Source{"runs/run-10.xml", "runs/run-1.xml"}, "")
	if err != nil || strings.Join(names(reps), " ") != "run-10.xml run-1.xml" {
		t.Errorf("a list: %v %v", names(reps), err)
	}
	// Reports that say when they started are put in that order.
	writeFile(t, filepath.Join(root, "timed", "a.xml"), junitRun("t", "passed", "2026-01-03T00:00:00"))
	writeFile(t, filepath.Join(root, "timed", "b.xml"), junitRun("t", "passed", "2026-01-01T00:00:00"))
	writeFile(t, filepath.Join(root, "timed", "c.xml"), junitRun("t", "passed", "2026-01-02T00:00:00"))
	reps, err = Load(ctx, files, "source", Source{"timed"}, "")
	if err != nil || strings.Join(names(reps), " ") != "b.xml c.xml a.xml" {
		t.Errorf("by start time: %v %v", names(reps), err)
	}
}

func TestLoadText(t *testing.T) {
	t.Parallel()
	_, files := roots(t)
	reps, err := Load(context.Background(), files, "source", Source{"TAP version 13\nok 1 - a\nnot ok 2 - b\n", "ok 1 - c"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 2 || reps[0].Name != "source[0] (text)" || len(reps[0].Results) != 2 || reps[1].Results[0].Name != "c" {
		t.Errorf("text items: %+v", reps)
	}
	var src Source
	if err := json.Unmarshal([]byte(`"ok 1 - a"`), &src); err != nil || len(src) != 1 {
		t.Errorf("a string source: %v %v", src, err)
	}
	if err := json.Unmarshal([]byte(`{"a":1}`), &src); err == nil {
		t.Error("an object is not a source")
	}
}

func TestLoadRefuses(t *testing.T) {
	t.Parallel()
	root, files := roots(t)
	ctx := context.Background()
	outside := filepath.Join(filepath.Dir(root), "outside.xml")
	writeFile(t, outside, junitRun("t", "passed", ""))
	_, err := Load(ctx, files, "source", Source{outside}, "")
	wantToolError(t, err, tool.CodeForbidden, outside, "outside the allowed roots", root)
	_, err = Load(ctx, files, "source", Source{"../outside.xml"}, "")
	wantToolError(t, err, tool.CodeForbidden, "outside the allowed roots")
	if err := os.Symlink(outside, filepath.Join(root, "link.xml")); err != nil {
		t.Fatal(err)
	}
	_, err = Load(ctx, files, "source", Source{"link.xml"}, "")
	wantToolError(t, err, tool.CodeForbidden, "link.xml")

	// A file over the bound is refused before it is read (a sparse file:
	// its size is all that is looked at).
	big := filepath.Join(root, "big.xml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = Load(ctx, files, "source", Source{"big.xml"}, "")
	wantToolError(t, err, tool.CodeInvalidArgs, big, "over the bound of 268435456 bytes (256 MiB)")

	_, err = Load(ctx, files, "source", Source{"nothing/*.xml"}, "")
	wantToolError(t, err, tool.CodeNotFound, "nothing")
	_, err = Load(ctx, files, "source", Source{"*.json"}, "")
	wantToolError(t, err, tool.CodeNotFound, `the glob "*.json" matches no file`)
	_, err = Load(ctx, files, "source", Source{"missing.xml"}, "")
	wantToolError(t, err, tool.CodeNotFound, "missing.xml")
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = Load(ctx, files, "source", Source{"empty"}, "")
	wantToolError(t, err, tool.CodeNotFound, "holds no report file")
	_, err = Load(ctx, files, "source", Source{}, "")
	wantToolError(t, err, tool.CodeInvalidArgs, "is empty")

	// A malformed file is told with its path and line.
	bad := filepath.Join(root, "bad.xml")
	writeFile(t, bad, "<testsuites>\n<testsuite name=\"a\">\n<testcase name=\"x\" time=\"soon\"/>\n</testsuite>\n</testsuites>\n")
	_, err = Load(ctx, files, "source", Source{"bad.xml"}, "")
	wantToolError(t, err, tool.CodeInvalidArgs, bad+":3: junit:", `time="soon"`)
	// Given the wrong format, it says what it expected.
	_, err = Load(ctx, files, "source", Source{"bad.xml"}, Jest)
	wantToolError(t, err, tool.CodeInvalidArgs, bad+":1: jest:", "expected the Jest report")
	_, err = ParseFormat("sourceFormat", "xunit")
	wantToolError(t, err, tool.CodeInvalidArgs, "junit, tap, gotest, playwright, jest")
}

func TestLoadBudget(t *testing.T) {
	t.Parallel()
	root, files := roots(t)
	var b strings.Builder
	b.WriteString("<testsuite>")
	for i := range MaxResults/2 + 1 {
		fmt.Fprintf(&b, `<testcase name="t%d"/>`, i)
	}
	b.WriteString("</testsuite>")
	writeFile(t, filepath.Join(root, "a.xml"), b.String())
	writeFile(t, filepath.Join(root, "b.xml"), b.String())
	_, err := Load(context.Background(), files, "source", Source{"a.xml", "b.xml"}, "")
	wantToolError(t, err, tool.CodeInvalidArgs, "b.xml", "more than 250000 test results")
}

func TestLoadCancelled(t *testing.T) {
	t.Parallel()
	root, files := roots(t)
	writeFile(t, filepath.Join(root, "a.xml"), junitRun("t", "passed", ""))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Load(ctx, files, "source", Source{"a.xml"}, "")
	wantToolError(t, err, tool.CodeCancelled)
}
