package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runBarrhawk runs the command line args in a fresh home and returns its
// output and error.
func runBarrhawk(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	root := rootCmd()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err = root.Execute()
	return out.String(), errOut.String(), err
}

// record import records each report once (by content), with the branch
// and commit given, and names a file that is not a report with its line.
func TestRecordImport(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("BARRHAWK_HOME", filepath.Join(home, ".barrhawk"))
	t.Setenv("BARRHAWK_CONFIG", "")
	t.Chdir(home)
	pass := filepath.Join(home, "pass.xml")
	fail := filepath.Join(home, "fail.tap")
	notes := filepath.Join(home, "notes.txt")
	for path, text := range map[string]string{
		pass:  `<testsuite name="s"><testcase classname="s" name="a" time="0.1"/><testcase classname="s" name="b" time="0.1"><skipped/></testcase></testsuite>`,
		fail:  "TAP version 13\n1..2\nok 1 - a\nnot ok 2 - b\n",
		notes: "some notes, not a report\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, err := runBarrhawk(t, "record", "import", "--branch", "main", "--commit", "abc1234", "--json", pass, fail)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, errOut)
	}
	var got struct {
		Runs []struct {
			RunID                          int64
			New                            bool
			Tests, Passed, Failed, Skipped int
			Format                         string
			Origin                         struct{ Host, Branch, Commit string }
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(got.Runs) != 2 || got.Runs[0].Format != "junit" || got.Runs[0].Passed != 1 || got.Runs[0].Skipped != 1 ||
		got.Runs[1].Format != "tap" || got.Runs[1].Failed != 1 || !got.Runs[1].New || got.Runs[1].Origin.Branch != "main" || got.Runs[1].Origin.Commit != "abc1234" || got.Runs[1].Origin.Host == "" {
		t.Errorf("imported: %s", out)
	}
	out, _, err = runBarrhawk(t, "record", "import", fail)
	if err != nil || !strings.Contains(out, "already recorded") || !strings.Contains(out, "branch main") {
		t.Errorf("the same file again: %v\n%s, want it found, with the branch it was first recorded with", err, out)
	}
	_, errOut, err = runBarrhawk(t, "record", "import", notes, pass)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitConfigError || !strings.Contains(errOut, "notes.txt:1:") || !strings.Contains(err.Error(), "1 of 2 files") {
		t.Errorf("a file that is not a report: %v\n%s, want exit 2 naming notes.txt:1", err, errOut)
	}
	if _, _, err = runBarrhawk(t, "record", "import"); !errors.As(err, &ee) || ee.code != exitConfigError {
		t.Errorf("no files: %v, want exit 2", err)
	}
	// --format names the format instead of telling it from the content:
	// a TAP file read as JUnit is refused, naming the file; an unknown
	// format is refused, listing the known ones.
	_, errOut, err = runBarrhawk(t, "record", "import", "--format", "junit", fail)
	if !errors.As(err, &ee) || ee.code != exitConfigError || !strings.Contains(errOut, "fail.tap") {
		t.Errorf("a TAP file as --format junit: %v\n%s, want exit 2 naming the file", err, errOut)
	}
	if _, _, err = runBarrhawk(t, "record", "import", "--format", "xunit", pass); !errors.As(err, &ee) || ee.code != exitConfigError ||
		!strings.Contains(err.Error(), "junit, tap, gotest, playwright, jest") {
		t.Errorf("--format xunit: %v, want exit 2 listing the formats", err)
	}
	const pw = "n0t-Sh0wn"
	_, _, err = runBarrhawk(t, "record", "import", "--db", "postgres://u:"+pw+"@db.example:port/x", pass)
	if err == nil || strings.Contains(err.Error(), pw) || !strings.Contains(err.Error(), "postgres://user:password@host") {
		t.Errorf("a malformed --db: %v, want an error saying what to write, without the password", err)
	}
}
