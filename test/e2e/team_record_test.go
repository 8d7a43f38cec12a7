package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/record"
	"github.com/barrhawk/barrhawk/internal/testsupport/lockedbuf"
	"github.com/barrhawk/barrhawk/internal/testsupport/testsrv"
)

// teamJUnit is one CI run's report, made at: "cart > totals" fails when
// failing.
func teamJUnit(at time.Time, failing bool) string {
	totals := `<testcase classname="cart" name="totals" time="0.2"/>`
	if failing {
		totals = `<testcase classname="cart" name="totals" time="0.2"><failure message="expected 10, got 9">at cart.test.js:4</failure></testcase>`
	}
	return `<?xml version="1.0"?><testsuite name="cart" tests="2" timestamp="` + at.UTC().Format("2006-01-02T15:04:05") + `"><testcase classname="cart" name="empties" time="0.1"/>` + totals + `</testsuite>`
}

// dashboardOf returns the base URL and token of a server's dashboard.
func dashboardOf(t *testing.T, s *server) (base, token string) {
	t.Helper()
	u, err := url.Parse(dashboardURL(t, s))
	if err != nil {
		t.Fatal(err)
	}
	return "http://" + u.Host, u.Query().Get("token")
}

// dashJSON fetches a dashboard path that must answer 200 and decodes it.
func dashJSON(t *testing.T, base, token, path string, v any) {
	t.Helper()
	code, body := dashGet(t, base, token, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, body)
	}
}

// barrhawk runs the binary with args in home and returns its stdout,
// stderr and exit code.
func barrhawk(t *testing.T, home string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "BARRHAWK_HOME="+filepath.Join(home, ".barrhawk"))
	cmd.Dir = home
	var stdout, stderr lockedbuf.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &ee):
		return stdout.String(), stderr.String(), ee.ExitCode()
	}
	t.Fatal(err)
	return "", "", 0
}

// One record for a team: two servers with two homes share a PostgreSQL
// record. Assertions made through the first show in the second's runs
// and test history; reports imported from CI with barrhawk record import
// show with their branch and commit, once however often they are
// imported; the second's test_flaky_detect fromRecord names the test that
// flips between them. Then PostgreSQL stops in the middle of calls: they
// are all answered, recording pauses and resumes after the restart, and
// nothing recorded is lost.
func TestTeamRecordOnPostgres(t *testing.T) {
	t.Parallel()
	pg, err := testsrv.StartPostgres()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })
	yaml := "dashboard:\n  db: " + pg.URL + "\n"
	a := startWith(t, []string{"--dashboard", "127.0.0.1:0"}, yaml, "BARRHAWK_BRANCH=feature-x", "BARRHAWK_COMMIT=aaaa1111")
	b := startWith(t, []string{"--dashboard", "127.0.0.1:0"}, yaml)
	baseA, tokenA := dashboardOf(t, a)
	base, token := dashboardOf(t, b)

	// Checks made through the first server's front.
	a.mustCall("assert_equals", map[string]any{"actual": 1, "expected": 1, "testName": "team check"})
	a.call("assert_equals", map[string]any{"actual": 1, "expected": 2, "testName": "team check"})
	a.mustCall("assert_equals", map[string]any{"actual": 1, "expected": 1, "testName": "team check"})

	var runs struct{ Runs []record.Run }
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		dashJSON(t, base, token, "/api/runs?kind=session&branch=feature-x", &runs)
		if len(runs.Runs) == 1 && runs.Runs[0].Passed+runs.Runs[0].Failed == 3 || time.Now().After(deadline) {
			break
		}
	}
	if len(runs.Runs) != 1 || runs.Runs[0].Passed != 2 || runs.Runs[0].Failed != 1 || runs.Runs[0].Commit != "aaaa1111" || runs.Runs[0].Host == "" {
		t.Fatalf("the first server's session in the second's GET /api/runs?branch=feature-x: %+v, want one run, 2 passed, 1 failed, commit aaaa1111, a host", runs.Runs)
	}
	var h record.History
	dashJSON(t, base, token, "/api/tests/history?name="+url.QueryEscape("team check"), &h)
	if h.Runs != 3 || h.Failures != 1 || h.Flips != 2 || len(h.Points) != 3 || h.Points[1].Status != record.StatusFailed || h.Points[1].Branch != "feature-x" || h.Points[1].Host == "" {
		t.Errorf("the second's GET /api/tests/history: %+v, want 3 runs, 1 failure, 2 flips, each point from feature-x on a host", h)
	}

	// CI imports three reports; the second fails cart > totals.
	ci := t.TempDir()
	var files []string
	for i := range 3 {
		f := filepath.Join(ci, fmt.Sprintf("junit-%d.xml", i+1))
		at := time.Now().Add(time.Duration(i-3) * time.Minute)
		if err := os.WriteFile(f, []byte(teamJUnit(at, i == 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	const sha = "0123456789abcdef0123456789abcdef01234567"
	out, errOut, code := barrhawk(t, ci, append([]string{"record", "import", "--branch", "main", "--commit", sha, "--db", pg.URL}, files...)...)
	if code != 0 || strings.Count(out, "run ") != 3 || !strings.Contains(out, "junit-2.xml (junit): 2 tests, 1 passed, 1 failed") || !strings.Contains(out, "branch main, commit "+sha) {
		t.Fatalf("record import: exit %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code = barrhawk(t, ci, "record", "import", "--db", pg.URL, files[1]); code != 0 || !strings.Contains(out, "already recorded") {
		t.Errorf("the same file imported again: exit %d\n%s%s, want it found, already recorded", code, out, errOut)
	}
	dashJSON(t, base, token, "/api/runs?kind=report&branch=main&commit="+sha[:10], &runs)
	if len(runs.Runs) != 3 {
		t.Fatalf("GET /api/runs?branch=main&commit=: %d runs, want the 3 imported once each: %+v", len(runs.Runs), runs.Runs)
	}
	for i, r := range runs.Runs {
		if r.Branch != "main" || r.Commit != sha || r.Failed != map[bool]int{true: 1}[i == 1] {
			t.Errorf("imported run %d: %+v", i, r)
		}
	}
	dashJSON(t, base, token, "/api/runs?branch=nowhere", &runs)
	if len(runs.Runs) != 0 {
		t.Errorf("GET /api/runs?branch=nowhere: %+v, want none", runs.Runs)
	}

	// Bad input: a file that is not a report is named, with its line.
	notes := filepath.Join(ci, "notes.txt")
	if err := os.WriteFile(notes, []byte("just some notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code = barrhawk(t, ci, "record", "import", "--db", pg.URL, notes); code != 2 || !strings.Contains(errOut, "notes.txt:1:") {
		t.Errorf("import of a file that is not a report: exit %d\n%s%s, want exit 2 naming notes.txt:1", code, out, errOut)
	}

	// The second server's analysis reads every machine's runs.
	flaky := b.mustCall("test_flaky_detect", map[string]any{"fromRecord": map[string]any{"name": "cart > *"}, "minRuns": 2})
	if list, _ := flaky["flakyTests"].([]any); len(list) != 1 || list[0].(map[string]any)["name"] != "cart > totals" {
		t.Errorf("test_flaky_detect fromRecord on the second server: %v, want cart > totals", flaky)
	}

	// The second's pages: every run with its origin, and the test across
	// machines and commits as an inline SVG chart, in a real Chromium.
	teamPages(t, dashboardURL(t, b), base)

	// PostgreSQL stops while calls come in.
	for i := range 50 {
		a.mustCall("hash_text", map[string]any{"text": fmt.Sprint("before-", i)})
	}
	countCalls := func() int {
		var ov struct {
			Calls  int
			Record record.RecordStatus
		}
		dashJSON(t, base, token, "/api/overview", &ov)
		return ov.Calls
	}
	var before int
	for deadline := time.Now().Add(10 * time.Second); before < 53+1 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		before = countCalls() // the three asserts, test_flaky_detect and the 50
	}
	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if out, isErr := a.call("hash_text", map[string]any{"text": fmt.Sprint("during-", i)}); isErr {
			t.Fatalf("call %d with the record's database down: %s", i, out)
		}
	}
	var ov struct {
		RecordError string
		Record      record.RecordStatus
	}
	for deadline := time.Now().Add(10 * time.Second); !ov.Record.Paused && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		dashJSON(t, baseA, tokenA, "/api/overview", &ov)
	}
	if !ov.Record.Paused || ov.Record.Error == "" || ov.RecordError == "" || strings.Contains(ov.Record.Error+ov.RecordError+ov.Record.Path, testsrv.Password) {
		t.Errorf("the first's overview with the database down: %+v, want recording paused, why, and the record's error, no password", ov)
	}
	var ws struct{ Recording record.RecordStatus }
	if out, _ := a.call("worker_status", map[string]any{}); json.Unmarshal([]byte(out), &ws) != nil || !ws.Recording.Paused || ws.Recording.Database != "postgres" || strings.Contains(out, testsrv.Password) {
		t.Errorf("worker_status with the database down: %s, want recording paused on postgres, no password", out)
	}
	if err := pg.Start(); err != nil {
		t.Fatal(err)
	}
	// The recorders try again every 5 s.
	var after int
	for deadline := time.Now().Add(30 * time.Second); after < before+100 && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		after = countCalls()
	}
	if after < before+100 {
		t.Errorf("%d calls recorded after the restart, want the %d before and the 100 made while the database was down", after, before)
	}
	out, _ = a.call("events_recent", map[string]any{"types": []string{"record:*"}})
	if !strings.Contains(out, "record:paused") || !strings.Contains(out, "record:resumed") || !strings.Contains(out, "0 calls were not recorded") {
		t.Errorf("the first server's events: want record:paused, then record:resumed with none lost:\n%s", out)
	}
	for name, text := range map[string]string{"first server's log": a.stderr.String(), "second server's log": b.stderr.String(), "events": out} {
		if strings.Contains(text, testsrv.Password) {
			t.Errorf("the %s shows the database's password", name)
		}
	}
}

// teamPages opens the dashboard at open (its URL with the token) and
// checks the runs page shows each run's origin and the history of
// "cart > totals" draws its results by machine and commit.
func teamPages(t *testing.T, open, base string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := headlessPage(ctx, t)
	if _, err := p.Navigate(ctx, open); err != nil {
		t.Fatal(err)
	}
	wait := func(sel string) {
		t.Helper()
		if _, err := p.Find(ctx, sel, browser.FindOptions{Timeout: 10 * time.Second, State: "attached"}); err != nil {
			text, _ := p.Evaluate(ctx, "document.body.innerText.slice(0, 3000)", nil)
			t.Fatalf("the dashboard shows no %s: %v\npage text: %s", sel, err, text)
		}
	}
	if _, err := p.Navigate(ctx, base+"/#/runs"); err != nil {
		t.Fatal(err)
	}
	wait(`#runs-table td.origin-cell .branch:text("main")`)
	wait(`#runs-table td.origin-cell .branch:text("feature-x")`)
	if _, err := p.Navigate(ctx, base+"/#/tests/"+url.PathEscape("cart > totals")); err != nil {
		t.Fatal(err)
	}
	wait(`#chart-origins svg rect.cell.fail`)
	n, err := p.Evaluate(ctx, `document.querySelectorAll('#chart-origins rect.cell').length`, nil)
	if err != nil || string(n) != "3" {
		t.Errorf("the chart across machines and commits has %v squares (%v), want the 3 imported results", n, err)
	}
}

// A server whose shared record cannot be reached starts and answers
// calls: recording is paused (one record:paused event) and says why
// without the password. One whose dashboard.db URL is malformed starts
// too, with the record off and a warning saying what to write.
func TestRecordOnBadPostgresURL(t *testing.T) {
	t.Parallel()
	const pw = "n0t-in-any-log"
	away := startWith(t, nil, "dashboard:\n  db: postgres://team:"+pw+"@127.0.0.1:1/record?sslmode=disable&connect_timeout=2\n")
	for i := range 20 {
		away.mustCall("hash_text", map[string]any{"text": fmt.Sprint(i)})
	}
	var out string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if out, _ = away.call("events_recent", map[string]any{"types": []string{"record:*"}}); strings.Contains(out, "record:paused") {
			break
		}
	}
	if strings.Count(out, "record:paused") != 1 || !strings.Contains(out, "127.0.0.1:1") {
		t.Errorf("events with the record's database away: %s, want one record:paused naming the address", out)
	}
	malformed := startWith(t, nil, "dashboard:\n  db: postgres://team:"+pw+"@db.example:port/record\n")
	malformed.mustCall("hash_text", map[string]any{"text": "still answered"})
	if log := malformed.stderr.String(); !strings.Contains(log, "record of calls and test runs is off") || !strings.Contains(log, "postgres://user:password@host:5432/dbname") {
		t.Errorf("serve with a malformed dashboard.db logs:\n%s\nwant the record off, saying what to write", log)
	}
	for name, s := range map[string]*server{"away": away, "malformed": malformed} {
		if strings.Contains(s.stderr.String()+out, pw) {
			t.Errorf("the %s server shows the password", name)
		}
	}
}
