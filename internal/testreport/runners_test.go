package testreport

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/testreport/reporttest"
)

// parseFile reads the report at path, detecting its format.
func parseFile(t *testing.T, path string) *Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := Parse(context.Background(), f, path, "")
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return rep
}

// countsOf counts a report's results as the runners count them.
func countsOf(rep *Report) reporttest.Counts {
	c := reporttest.Counts{Total: len(rep.Results)}
	for _, r := range rep.Results {
		switch r.Status {
		case Passed:
			c.Passed++
		case Failed:
			c.Failed++
		case Skipped:
			c.Skipped++
		case Pending:
			c.Pending++
		}
	}
	return c
}

// wantCounts checks a report against what its runner counted.
func wantCounts(t *testing.T, rep *Report, run reporttest.Run, format Format) {
	t.Helper()
	if rep.Format != format {
		t.Errorf("format %q, want %q", rep.Format, format)
	}
	if got := countsOf(rep); got != run.Counts {
		t.Errorf("counts %+v, the runner's %+v", got, run.Counts)
	}
}

// find is the result named name, failing the test without one.
func find(t *testing.T, rep *Report, name string) *Result {
	t.Helper()
	for i := range rep.Results {
		if rep.Results[i].Name == name {
			return &rep.Results[i]
		}
	}
	t.Fatalf("no result %q in %+v", name, rep.Results)
	return nil
}

func TestNodeJUnit(t *testing.T) {
	t.Parallel()
	run := reporttest.NodeJUnit(t)
	rep := parseFile(t, run.Path)
	wantCounts(t, rep, run, JUnit)
	c := find(t, rep, "compares")
	if c.Status != Failed || !strings.Contains(c.Error, "Expected values to be strictly equal") || !strings.Contains(c.Stack, "cart.test.js:4") || !c.HasDuration {
		t.Errorf("compares: %+v", c)
	}
	if r := find(t, rep, "removes an item"); r.Suite != "cart" || r.Error != "item 42 not found" {
		t.Errorf("removes an item: suite %q (Node's describe block), error %q", r.Suite, r.Error)
	}
	if r := find(t, rep, "adds"); r.Suite != "" {
		t.Errorf("a top-level test has suite %q, not Node's placeholder classname", r.Suite)
	}
	if r := find(t, rep, "skipped"); r.Status != Skipped || r.Error != "not here" {
		t.Errorf("skipped: %+v", r)
	}
	if r := find(t, rep, "todo"); r.Status != Pending {
		t.Errorf("todo: %+v", r)
	}
}

func TestNodeTAP(t *testing.T) {
	t.Parallel()
	run := reporttest.NodeTAP(t)
	rep := parseFile(t, run.Path)
	wantCounts(t, rep, run, TAP)
	r := find(t, rep, "removes an item")
	if r.Suite != "cart" || r.Error != "item 42 not found" || !strings.HasSuffix(r.File, "cart.test.js") || r.Line != 9 || !strings.Contains(r.Stack, "cart.test.js:9") {
		t.Errorf("removes an item (a subtest, with YAML diagnostics): %+v", r)
	}
	if c := find(t, rep, "compares"); c.ErrorType != "AssertionError" || !c.HasDuration || !strings.Contains(c.Error, "1 !== 2") && !strings.Contains(c.Error, "2 !== 3") {
		t.Errorf("compares: %+v", c)
	}
	if r := find(t, rep, "todo"); r.Status != Pending || r.Error != "later" {
		t.Errorf("todo: %+v", r)
	}
}

// A test with subtests counts through them; itself only when it failed
// while none of them did. Node counts parents too, so the counts are
// ours, said here.
func TestNodeTAPSubtests(t *testing.T) {
	t.Parallel()
	run := reporttest.Node(t, "tap", "report.tap", `const { test } = require('node:test');
test('parent', async (t) => {
  await t.test('child ok', () => {});
  await t.test('child bad', () => { throw new Error('child broke'); });
});
test('own failure', async (t) => {
  await t.test('fine', () => {});
  throw new Error('the parent itself broke');
});
`)
	rep := parseFile(t, run.Path)
	var got []string
	for _, r := range rep.Results {
		got = append(got, r.ID()+"="+string(r.Status))
	}
	want := "parent > child ok=passed parent > child bad=failed own failure > fine=passed own failure=failed"
	if strings.Join(got, " ") != want {
		t.Errorf("results %v, want %s", got, want)
	}
	if r := find(t, rep, "own failure"); r.Error != "the parent itself broke" {
		t.Errorf("own failure: %+v", r)
	}
	// Node's own count: 5 tests, the two parents among them.
	if run.Counts.Total != 5 {
		t.Errorf("node counted %+v", run.Counts)
	}
}

func TestGoTestJSON(t *testing.T) {
	t.Parallel()
	run := reporttest.GoTestJSON(t)
	rep := parseFile(t, run.Path)
	wantCounts(t, rep, run, GoTest)
	r := find(t, rep, "TestRemove")
	if r.Suite != "example.com/cart" || r.Error != "cart_test.go:11: item 42 not found" || !r.HasDuration {
		t.Errorf("TestRemove: %+v", r)
	}
	if r := find(t, rep, "TestCheckout"); r.Status != Skipped || !strings.Contains(r.Error, "no payment provider here") {
		t.Errorf("TestCheckout: %+v", r)
	}
	if rep.Started.IsZero() {
		t.Error("no start time from the first event")
	}
}

// goTestJSON runs go test -json on a package of one test file.
func goTestJSON(t *testing.T, module, test string) *Report {
	t.Helper()
	d := t.TempDir()
	for name, content := range map[string]string{"go.mod": "module " + module + "\n\ngo 1.26\n", "x_test.go": test} {
		if err := os.WriteFile(filepath.Join(d, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-json", "-count=1", ".")
	cmd.Dir = d
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local")
	out, _ := cmd.Output()
	rep, err := Parse(context.Background(), strings.NewReader(string(out)), "go test -json", "")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return rep
}

// A package that does not build is a run error, saying why.
func TestGoTestBuildFailure(t *testing.T) {
	t.Parallel()
	rep := goTestJSON(t, "example.com/broken", "package broken\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) { x := }\n")
	if len(rep.Results) != 0 || len(rep.Errors) != 1 || !strings.HasPrefix(rep.Errors[0], "build of example.com/broken.test failed: x_test.go:5:") {
		t.Errorf("results %+v, errors %q", rep.Results, rep.Errors)
	}
}

// go test's subtests, and a test whose panic ends its package's binary.
func TestGoTestSubtests(t *testing.T) {
	t.Parallel()
	rep := goTestJSON(t, "example.com/sub", `package sub

import "testing"

func TestParent(t *testing.T) {
	t.Run("a", func(t *testing.T) {})
	t.Run("b", func(t *testing.T) { t.Fatal("b broke") })
}

func TestOwn(t *testing.T) {
	t.Run("fine", func(t *testing.T) {})
	t.Error("the parent itself broke")
}

func TestPanics(t *testing.T) {
	var m map[string]int
	m["x"] = 1
}
`)
	var got []string
	for _, r := range rep.Results {
		got = append(got, r.Name+"="+string(r.Status))
	}
	want := "TestParent/a=passed TestParent/b=failed TestOwn/fine=passed TestOwn=failed TestPanics=failed"
	if strings.Join(got, " ") != want {
		t.Errorf("results %v, want %s", got, want)
	}
	p := find(t, rep, "TestPanics")
	if !strings.Contains(p.Error, "assignment to entry in nil map") || !strings.Contains(p.Stack, "goroutine") {
		t.Errorf("a panic's message and its goroutine dump apart: error %q, stack %q", p.Error, cut(p.Stack, 200))
	}
}

func TestPytestJUnit(t *testing.T) {
	t.Parallel()
	run := reporttest.PytestJUnit(t)
	rep := parseFile(t, run.Path)
	wantCounts(t, rep, run, JUnit)
	if r := find(t, rep, "test_save"); r.Kind != "error" || !strings.Contains(r.Error, "database is down") || !strings.Contains(r.Stack, "RuntimeError") {
		t.Errorf("test_save (a broken fixture: a JUnit <error>): %+v", r)
	}
	if r := find(t, rep, "test_remove"); r.Kind != "failure" || !strings.Contains(r.Error, "item 42 not found") || r.Suite != "test_cart" {
		t.Errorf("test_remove: %+v", r)
	}
	if r := find(t, rep, "test_list"); r.Suite != "test_cart.TestCart" {
		t.Errorf("test_list: suite %q", r.Suite)
	}
	if r := find(t, rep, "test_checkout"); r.Status != Skipped || r.Error != "no payment provider here" {
		t.Errorf("test_checkout: %+v", r)
	}
	if rep.Started.IsZero() {
		t.Error("no start time from the testsuite's timestamp")
	}
}

func TestPlaywrightJSON(t *testing.T) {
	t.Parallel()
	run := reporttest.PlaywrightJSON(t)
	rep := parseFile(t, run.Path)
	wantCounts(t, rep, run, Playwright)
	if run.Flaky != 1 {
		t.Errorf("Playwright counted %d flaky tests, want the 1 that passes on retry", run.Flaky)
	}
	r := find(t, rep, "passes on retry")
	if r.Status != Passed || !r.Flaky || r.Retries != 1 || len(r.Attempts) != 1 || r.Attempts[0].Status != Failed ||
		!strings.Contains(r.Attempts[0].Error, "the first attempt fails") || r.Suite != "chromium > cart.spec.js > cart" {
		t.Errorf("passes on retry: %+v", r)
	}
	f := find(t, rep, "counts the items")
	if f.Status != Failed || f.Retries != 1 || !strings.Contains(f.Error, "toHaveText") || strings.Contains(f.Error, "\x1b[") ||
		!strings.Contains(f.Stack, "cart.spec.js:10") || strings.Contains(f.Stack, "toHaveText") {
		t.Errorf("counts the items (message and stack apart, no colours): %+v", f)
	}
	shot := f.Screenshot()
	if shot == "" {
		t.Fatalf("no screenshot among %+v", f.Attachments)
	}
	if _, err := os.Stat(shot); err != nil {
		t.Errorf("the screenshot Playwright kept: %v", err)
	}
	if !strings.Contains(shot, "retry1") {
		t.Errorf("the final attempt's screenshot comes first, got %s", shot)
	}
	if s := find(t, rep, "checks out"); s.Status != Skipped {
		t.Errorf("checks out: %+v", s)
	}
	if rep.Started.IsZero() {
		t.Error("no start time from stats")
	}
}

func TestJestJSON(t *testing.T) {
	t.Parallel()
	run := reporttest.JestJSON(t)
	rep := parseFile(t, run.Path)
	wantCounts(t, rep, run, Jest)
	r := find(t, rep, "passes on retry")
	if r.Status != Passed || !r.Flaky || r.Retries != 1 || !strings.HasSuffix(r.File, "cart.test.js") {
		t.Errorf("passes on retry: %+v", r)
	}
	f := find(t, rep, "removes an item")
	if f.Suite != "cart" || !strings.HasPrefix(f.Error, "Error: expect(received).toEqual(expected)") || !strings.HasPrefix(strings.TrimSpace(f.Stack), "at ") {
		t.Errorf("removes an item: %+v", f)
	}
	if p := find(t, rep, "applies a coupon"); p.Status != Pending {
		t.Errorf("a todo: %+v", p)
	}
}
