// Package reporttest runs real test runners to make the reports the tests
// of internal/testreport and of the tools reading it parse: each writes a
// small suite into a test's temp dir, runs the runner on it (Node's test
// runner, go test, Debian's pytest, Playwright's test runner against
// Debian's chromium, Jest), and returns the report with the counts the
// runner itself printed or wrote, never counts of our own.
package reporttest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
)

// Counts are a run's tests by outcome, as the runner counted them.
type Counts struct {
	Total, Passed, Failed, Skipped, Pending int
}

// Run is a report a real runner wrote.
type Run struct {
	// Dir is the temp dir holding the suite and the report, symbolic
	// links resolved (an allowed root for the tools).
	Dir string
	// Path is the report file.
	Path string
	// Counts are what the runner printed or wrote.
	Counts Counts
	// Flaky is how many tests the runner counted flaky (failed, then
	// passed on a retry), where it counts them.
	Flaky int
}

// dir is a fresh temp dir of t, its links resolved.
func dir(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// write writes files (name → content) into d.
func write(t testing.TB, d string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(d, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// run runs a runner in d; a failed test makes it exit non-zero, so only a
// report it did not write fails the test (with its output).
func run(t testing.TB, d, report string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = d
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if _, serr := os.Stat(filepath.Join(d, report)); serr != nil {
		t.Fatalf("%s %s wrote no %s (%v): %v\n%s", name, strings.Join(args, " "), report, serr, err, out)
	}
	return string(out)
}

// NodeSuite is the suite the Node runs test: 2 passed, 2 failed (one in a
// describe block, with an id in its message), 1 skipped, 1 todo.
const NodeSuite = `const { test, describe, it } = require('node:test');
const assert = require('node:assert');
test('adds', () => { assert.strictEqual(1 + 1, 2); });
test('compares', () => { assert.strictEqual(1 + 1, 3); });
test('skipped', { skip: 'not here' }, () => {});
test('todo', { todo: 'later' }, () => {});
describe('cart', () => {
  it('adds an item', () => {});
  it('removes an item', () => { throw new Error('item 42 not found'); });
});
`

var nodeCountRe = regexp.MustCompile(`(?m)^\s*(?:<!-- |# )(tests|pass|fail|cancelled|skipped|todo) (\d+)`)

// nodeCounts reads the counts Node's reporters end with (# pass 2 in TAP,
// <!-- pass 2 --> in JUnit).
func nodeCounts(t testing.TB, report string) Counts {
	t.Helper()
	n := map[string]int{}
	for _, m := range nodeCountRe.FindAllStringSubmatch(report, -1) {
		n[m[1]], _ = strconv.Atoi(m[2])
	}
	if _, ok := n["tests"]; !ok {
		t.Fatalf("no counts at the end of Node's report:\n%s", report)
	}
	return Counts{Total: n["tests"], Passed: n["pass"], Failed: n["fail"] + n["cancelled"], Skipped: n["skipped"], Pending: n["todo"]}
}

// Node runs Node's test runner (node --test) on suite, a test file, with
// one reporter (junit, tap) writing report; the counts are those its
// report ends with. Node counts a test with subtests as a test too.
func Node(t testing.TB, reporter, report, suite string) Run {
	t.Helper()
	d := dir(t)
	write(t, d, map[string]string{"cart.test.js": suite})
	run(t, d, report, nil, "node", "--test", "--test-reporter="+reporter, "--test-reporter-destination="+report, "cart.test.js")
	p := filepath.Join(d, report)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return Run{Dir: d, Path: p, Counts: nodeCounts(t, string(b))}
}

// NodeJUnit runs NodeSuite with `node --test --test-reporter=junit`.
func NodeJUnit(t testing.TB) Run {
	t.Helper()
	return Node(t, "junit", "report.xml", NodeSuite)
}

// NodeTAP runs NodeSuite with `node --test --test-reporter=tap`.
func NodeTAP(t testing.TB) Run {
	t.Helper()
	return Node(t, "tap", "report.tap", NodeSuite)
}

// NodeHistory runs Node's test runner runs times with the junit reporter,
// into run-1.xml ... in one dir, and returns their paths in order. Of its
// three tests, "stable" always passes, "broken" always fails, and "flips"
// fails in the even runs.
func NodeHistory(t testing.TB, runs int) []string {
	t.Helper()
	d := dir(t)
	write(t, d, map[string]string{"history.test.js": `const { test } = require('node:test');
const assert = require('node:assert');
const run = Number(process.env.RUN);
test('stable', () => {});
test('flips', () => { assert.ok(run % 2 === 1, 'run ' + run + ' is even'); });
test('broken', () => { assert.fail('always'); });
`})
	var paths []string
	for i := 1; i <= runs; i++ {
		report := fmt.Sprintf("run-%d.xml", i)
		run(t, d, report, []string{"RUN=" + strconv.Itoa(i)}, "node", "--test", "--test-reporter=junit", "--test-reporter-destination="+report, "history.test.js")
		paths = append(paths, filepath.Join(d, report))
	}
	return paths
}

// goSuite is the package GoTestJSON tests: 2 passed, 1 failed, 1 skipped.
const goSuite = `package cart

import "testing"

func TestAdd(t *testing.T) {
	if 1+1 != 2 {
		t.Fatal("arithmetic")
	}
}

func TestRemove(t *testing.T) { t.Errorf("item %d not found", 42) }

func TestList(t *testing.T) {}

func TestCheckout(t *testing.T) { t.Skip("no payment provider here") }
`

var goPrintedRe = regexp.MustCompile(`"Output":"--- (PASS|FAIL|SKIP): `)

// GoTestJSON runs `go test -json` on a small package written into a temp
// dir; the counts are the --- PASS, --- FAIL and --- SKIP lines go test
// printed.
func GoTestJSON(t testing.TB) Run {
	t.Helper()
	d := dir(t)
	write(t, d, map[string]string{"go.mod": "module example.com/cart\n\ngo 1.26\n", "cart_test.go": goSuite})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-json", "-count=1", ".")
	cmd.Dir = d
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOTOOLCHAIN=local")
	out, err := cmd.Output()
	if len(out) == 0 {
		t.Fatalf("go test -json printed nothing: %v", err)
	}
	p := filepath.Join(d, "report.jsonl")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	var c Counts
	for _, m := range goPrintedRe.FindAllStringSubmatch(string(out), -1) {
		c.Total++
		switch m[1] {
		case "PASS":
			c.Passed++
		case "FAIL":
			c.Failed++
		case "SKIP":
			c.Skipped++
		}
	}
	return Run{Dir: d, Path: p, Counts: c}
}

// pytestSuite has 2 passed, 1 failed, 1 skipped and 1 error (a broken
// fixture), in a module and a class.
const pytestSuite = `import pytest

def test_add():
    assert 1 + 1 == 2

def test_remove():
    assert [1, 2] == [1], "item 42 not found"

@pytest.mark.skip(reason="no payment provider here")
def test_checkout():
    pass

class TestCart:
    def test_list(self):
        assert True

@pytest.fixture
def db():
    raise RuntimeError("database is down")

def test_save(db):
    pass
`

var pytestCountRe = regexp.MustCompile(`(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)`)

// PytestJUnit runs Debian's pytest (/usr/bin/python3 -m pytest, not a
// python3 on PATH that may lack it) with --junitxml; the counts are those
// of the line pytest ends with (1 failed, 2 passed, 1 skipped, 1 error).
func PytestJUnit(t testing.TB) Run {
	t.Helper()
	if out, err := exec.Command("/usr/bin/python3", "-m", "pytest", "--version").CombinedOutput(); err != nil {
		t.Fatalf("pytest is not installed for /usr/bin/python3 (%v: %s): run scripts/test as root, which installs Debian's python3-pytest (apt-get install python3-pytest)", err, strings.TrimSpace(string(out)))
	}
	d := dir(t)
	write(t, d, map[string]string{"test_cart.py": pytestSuite})
	out := run(t, d, "report.xml", []string{"PYTHONDONTWRITEBYTECODE=1"}, "/usr/bin/python3", "-m", "pytest", "-p", "no:cacheprovider", "--junitxml=report.xml", "test_cart.py")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	var c Counts
	for _, m := range pytestCountRe.FindAllStringSubmatch(last, -1) {
		n, _ := strconv.Atoi(m[1])
		c.Total += n
		switch m[2] {
		case "passed", "xpassed":
			c.Passed += n
		case "failed", "error", "errors":
			c.Failed += n
		case "skipped", "xfailed":
			c.Skipped += n
		}
	}
	if c.Total == 0 {
		t.Fatalf("no counts in pytest's last line %q:\n%s", last, out)
	}
	return Run{Dir: d, Path: filepath.Join(d, "report.xml"), Counts: c}
}

// Playwright's suite: a page of our own, opened from a file URL; one test
// passes, one fails (and fails its retry), one fails first and passes on
// its retry (retries: 1), one is skipped.
const (
	playwrightConfig = `module.exports = {
  testDir: '.',
  retries: 1,
  workers: 1,
  timeout: 20000,
  reporter: [['json', { outputFile: 'report.json' }]],
  use: {
    screenshot: 'only-on-failure',
    launchOptions: { executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--headless=new'] },
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
};
`
	playwrightPage = `<!doctype html><title>Cart</title><h1 id="total">Total: 3 items</h1>`
	playwrightSpec = `const { test, expect } = require('@playwright/test');
const url = 'file://' + __dirname + '/page.html';
test('shows the title', async ({ page }) => {
  await page.goto(url);
  await expect(page).toHaveTitle('Cart');
});
test.describe('cart', () => {
  test('counts the items', async ({ page }) => {
    await page.goto(url);
    await expect(page.locator('#total')).toHaveText('Total: 4 items', { timeout: 300 });
  });
  test('passes on retry', async ({ page }, info) => {
    await page.goto(url);
    expect(info.retry, 'the first attempt fails').toBe(1);
  });
  test.skip('checks out', async () => {});
});
`
)

// PlaywrightJSON runs Playwright's test runner (@playwright/test from
// testbin.TestRunners) with its JSON reporter, against Debian's chromium;
// the counts are the report's stats (expected and flaky are passed,
// unexpected failed).
func PlaywrightJSON(t testing.TB) Run {
	t.Helper()
	runners := testbin.TestRunners(t, "@playwright/test/package.json", ".bin/playwright")
	d := dir(t)
	write(t, d, map[string]string{"playwright.config.js": playwrightConfig, "page.html": playwrightPage, "cart.spec.js": playwrightSpec})
	run(t, d, "report.json", []string{"NODE_PATH=" + runners, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1"},
		filepath.Join(runners, ".bin", "playwright"), "test", "-c", "playwright.config.js")
	p := filepath.Join(d, "report.json")
	var rep struct {
		Stats struct{ Expected, Unexpected, Flaky, Skipped int }
	}
	readJSON(t, p, &rep)
	s := rep.Stats
	return Run{Dir: d, Path: p, Flaky: s.Flaky, Counts: Counts{
		Total: s.Expected + s.Unexpected + s.Flaky + s.Skipped, Passed: s.Expected + s.Flaky, Failed: s.Unexpected, Skipped: s.Skipped,
	}}
}

// jestSuite has 2 passed (one after a retry), 1 failed, 1 skipped, 1 todo.
const jestSuite = `jest.retryTimes(1);
let attempts = 0;
describe('cart', () => {
  test('adds an item', () => { expect(1 + 1).toBe(2); });
  test('removes an item', () => { expect([1, 2]).toEqual([1]); });
  test.skip('checks out', () => {});
  test.todo('applies a coupon');
});
test('passes on retry', () => { attempts++; expect(attempts).toBe(2); });
`

// JestJSON runs Jest (from testbin.TestRunners) with --json; the counts
// are its num*Tests.
func JestJSON(t testing.TB) Run {
	t.Helper()
	runners := testbin.TestRunners(t, "jest/package.json", ".bin/jest")
	d := dir(t)
	write(t, d, map[string]string{"package.json": "{}\n", "cart.test.js": jestSuite})
	run(t, d, "report.json", nil, filepath.Join(runners, ".bin", "jest"), "--json", "--outputFile=report.json", "--rootDir", ".", "--ci", "--watchman=false")
	p := filepath.Join(d, "report.json")
	var rep struct {
		NumTotalTests, NumPassedTests, NumFailedTests, NumPendingTests, NumTodoTests int
	}
	readJSON(t, p, &rep)
	return Run{Dir: d, Path: p, Counts: Counts{
		Total: rep.NumTotalTests, Passed: rep.NumPassedTests, Failed: rep.NumFailedTests, Skipped: rep.NumPendingTests, Pending: rep.NumTodoTests,
	}}
}

func readJSON(t testing.TB, p string, v any) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
}
