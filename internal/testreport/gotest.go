package testreport

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// `go test -json` (cmd/test2json) is read an event a line: run, output,
// pass, fail and skip of each test (Elapsed in seconds), the same of each
// package, and build-output and build-fail of a package that did not
// build. A test's output, its framing lines (=== RUN, --- FAIL: ...)
// removed, is its message and stack (a panic's goroutine dump); its suite
// is its package and its name the go test name (TestParent/sub). A test
// with subtests counts through them, and itself only when it failed while
// none of them did. A test that never ended before its package did (a
// panic or timeout elsewhere) is failed, saying so; a package that failed
// without a failing test, or did not build, is a run error. Lines that are
// not JSON objects (go build's, printed beside) are passed over; a line
// that starts as one but does not parse is an error at its line.

// maxEventLine bounds one line of go test -json.
const maxEventLine = 16 << 20

// goEvent is one line of go test -json.
type goEvent struct {
	Time       time.Time
	Action     string
	Package    string
	ImportPath string
	Test       string
	Elapsed    *float64
	Output     string
	// FailedBuild names the package whose build failed a package's
	// fail event; the build-fail event told it already.
	FailedBuild string
}

// goTest is a test that has started.
type goTest struct {
	output      strings.Builder
	children    int  // subtests that ended
	childFailed bool // one of them failed
	parentKey   string
	name, pkg   string
}

func parseGoTest(p *parser, r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxEventLine)
	running := map[string]*goTest{} // by package and test
	pkgOut := map[string]*strings.Builder{}
	pkgFailed := map[string]bool{} // a test of the package failed
	var order []string             // running keys, in start order
	lineNo := 0
	// finish ends a test; ev is nil for one that never ended.
	finish := func(key string, ev *goEvent, status Status) error {
		t, ok := running[key]
		if !ok { // ended without a run event: go test -json always sends one, but a cut stream may lose it
			t = &goTest{name: ev.Test, pkg: ev.Package, parentKey: parentKey(ev.Package, ev.Test)}
		}
		delete(running, key)
		if parent, ok := running[t.parentKey]; ok && t.parentKey != "" {
			parent.children++
			parent.childFailed = parent.childFailed || status == Failed
		}
		if status == Failed {
			pkgFailed[t.pkg] = true
		}
		if t.children > 0 && (status != Failed || t.childFailed) {
			return nil // counted through its subtests
		}
		res := Result{Name: t.name, Suite: t.pkg, Status: status}
		if ev != nil && ev.Elapsed != nil {
			res.DurationMs, res.HasDuration = *ev.Elapsed*1000, true
		}
		out := strings.TrimRight(t.output.String(), "\n")
		res.Output = output(status, out)
		switch status {
		case Failed:
			msg, stack := splitStack(out)
			if ev == nil {
				msg = strings.TrimSpace("the test never ended: the stream ended, or its package's test binary exited first (a panic, os.Exit or a timeout)\n" + msg)
			}
			res.Error, res.Stack, res.Kind = clean(msg), clean(stack), "failure"
		case Skipped:
			res.Error = clean(out)
		}
		return p.add(res)
	}
	for sc.Scan() {
		lineNo++
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var ev goEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			return p.fail(lineNo, "expected a go test -json event ({\"Action\":...}): %v", err)
		}
		if ev.Action == "" {
			return p.fail(lineNo, "a JSON line without \"Action\"; expected a go test -json event")
		}
		if p.rep.Started.IsZero() && !ev.Time.IsZero() {
			p.rep.Started = ev.Time
		}
		if ev.Test == "" {
			switch ev.Action {
			case "output":
				b := pkgOut[ev.Package]
				if b == nil {
					b = &strings.Builder{}
					pkgOut[ev.Package] = b
				}
				keepTail(b, ev.Output)
			case "build-output":
				if strings.HasPrefix(ev.Output, "# ") {
					continue // the package's name, which the error names
				}
				b := pkgOut["build "+ev.ImportPath]
				if b == nil {
					b = &strings.Builder{}
					pkgOut["build "+ev.ImportPath] = b
				}
				keepTail(b, ev.Output)
			case "build-fail":
				p.rep.Errors = append(p.rep.Errors, clean(strings.TrimSuffix(fmt.Sprintf("build of %s failed: %s", ev.ImportPath, outOf(pkgOut["build "+ev.ImportPath])), ": ")))
				delete(pkgOut, "build "+ev.ImportPath)
			case "pass", "fail", "skip":
				// Tests of the package still running never ended;
				// subtests before their parents.
				for i := len(order) - 1; i >= 0; i-- {
					if t, ok := running[order[i]]; ok && t.pkg == ev.Package {
						if err := finish(order[i], nil, Failed); err != nil {
							return err
						}
					}
				}
				if ev.Action == "fail" && !pkgFailed[ev.Package] && ev.FailedBuild == "" {
					p.rep.Errors = append(p.rep.Errors, clean(strings.TrimSuffix(fmt.Sprintf("package %s failed: %s", ev.Package, outOf(pkgOut[ev.Package])), ": ")))
				}
				delete(pkgOut, ev.Package)
			}
			continue
		}
		key := ev.Package + "\x00" + ev.Test
		switch ev.Action {
		case "run":
			running[key] = &goTest{name: ev.Test, pkg: ev.Package, parentKey: parentKey(ev.Package, ev.Test)}
			order = append(order, key)
			if len(order) > 4096 && len(order) > 2*len(running) {
				order = compact(order, running)
			}
		case "output":
			if t, ok := running[key]; ok {
				addGoOutput(t, ev.Output)
			}
		case "pass":
			if err := finish(key, &ev, Passed); err != nil {
				return err
			}
		case "fail":
			if err := finish(key, &ev, Failed); err != nil {
				return err
			}
		case "skip":
			if err := finish(key, &ev, Skipped); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return p.fail(lineNo+1, "a line longer than %d bytes; expected go test -json events", maxEventLine)
		}
		if isCtx(err) {
			return err
		}
		return fmt.Errorf("read %s: %w", p.rep.Name, err)
	}
	// Tests still running when the stream ended (it was cut, or the
	// binary was killed).
	for i := len(order) - 1; i >= 0; i-- {
		if _, ok := running[order[i]]; ok {
			if err := finish(order[i], nil, Failed); err != nil {
				return err
			}
		}
	}
	if lineNo == 0 {
		return p.fail(1, "the stream is empty; expected go test -json events")
	}
	return nil
}

// parentKey is the key of a subtest's parent, "" for a top-level test.
func parentKey(pkg, test string) string {
	i := strings.LastIndexByte(test, '/')
	if i < 0 {
		return ""
	}
	return pkg + "\x00" + test[:i]
}

// compact drops the keys of tests that ended.
func compact(order []string, running map[string]*goTest) []string {
	out := order[:0]
	for _, k := range order {
		if _, ok := running[k]; ok {
			out = append(out, k)
		}
	}
	return out
}

// addGoOutput keeps a line of a test's output, without go test's framing
// and the four spaces it indents a test's own lines with.
func addGoOutput(t *goTest, line string) {
	trimmed := strings.TrimLeft(line, " ")
	for _, frame := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- PASS", "--- FAIL", "--- SKIP", "--- BENCH"} {
		if strings.HasPrefix(trimmed, frame) {
			return
		}
	}
	if t.output.Len() > 2*MaxTextBytes {
		return
	}
	t.output.WriteString(strings.TrimPrefix(line, "    "))
}

// keepTail keeps the last 2*MaxTextBytes of a package's output.
func keepTail(b *strings.Builder, s string) {
	b.WriteString(s)
	if b.Len() > 4*MaxTextBytes {
		tail := b.String()[b.Len()-2*MaxTextBytes:]
		b.Reset()
		b.WriteString(tail)
	}
}

func outOf(b *strings.Builder) string {
	if b == nil {
		return ""
	}
	return strings.TrimSpace(b.String())
}
