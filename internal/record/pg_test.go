package record

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/testsupport/testsrv"
)

// pg is the PostgreSQL server of this package's tests, started by the
// first test that needs it and stopped by TestMain.
var pg struct {
	once sync.Once
	srv  *testsrv.Postgres
	err  error
	n    atomic.Int64
}

func TestMain(m *testing.M) {
	code := m.Run()
	if pg.srv != nil {
		if err := pg.srv.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping PostgreSQL:", err)
		}
	}
	os.Exit(code)
}

// startPG starts the package's PostgreSQL if it is not running.
func startPG(t testing.TB) *testsrv.Postgres {
	t.Helper()
	pg.once.Do(func() { pg.srv, pg.err = testsrv.StartPostgres() })
	if pg.err != nil {
		t.Fatal(pg.err)
	}
	return pg.srv
}

// pgURL makes a new, empty database on the package's PostgreSQL and
// returns its URL.
func pgURL(t testing.TB) string {
	t.Helper()
	srv := startPG(t)
	admin, err := sql.Open("pgx", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := fmt.Sprintf("record_%d", pg.n.Add(1))
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	return strings.Replace(srv.URL, "/postgres?", "/"+name+"?", 1)
}

// openTemp opens a new record: an SQLite file, or under TestOnPostgres a
// new PostgreSQL database, so that the same tests run on both.
func openTemp(t testing.TB) *Store {
	t.Helper()
	if strings.HasPrefix(t.Name(), "TestOnPostgres/") {
		return openOn(t, "postgres")
	}
	return openOn(t, "sqlite")
}

// openOn opens a new record on db, "sqlite" or "postgres".
func openOn(t testing.TB, db string) *Store {
	t.Helper()
	dsn := filepath.Join(t.TempDir(), "record.db")
	if db == "postgres" {
		dsn = pgURL(t)
	}
	s, err := Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOnPostgres runs the record's tests of calls, runs, histories,
// imports, paging, pruning and bounds again on PostgreSQL: one suite for
// both databases.
func TestOnPostgres(t *testing.T) {
	for name, test := range map[string]func(*testing.T){
		"RecorderWritesCallsAndTests":     TestRecorderWritesCallsAndTests,
		"HistoryCountsFlips":              TestHistoryCountsFlips,
		"Paging":                          TestPaging,
		"PruneByAge":                      TestPruneByAge,
		"PlainAndFullCallsReadBackAlike":  TestPlainAndFullCallsReadBackAlike,
		"ImportReports":                   TestImportReports,
		"ImportReportsUntimedAndMissing":  TestImportReportsUntimedAndMissing,
		"Histories":                       TestHistories,
		"LatestRunWithAndRunTests":        TestLatestRunWithAndRunTests,
		"MaxCallsHoldsUnderLoad":          TestMaxCallsHoldsUnderLoad,
		"RunsFilteredByOrigin":            TestRunsFilteredByOrigin,
		"FlipAcrossMachinesInOneCommit":   TestFlipAcrossMachinesInOneCommit,
		"SessionRunsOfTwoServersAreApart": TestSessionRunsOfTwoServersAreApart,
		"BucketsAndEvidence":              TestBucketsAndEvidence,
	} {
		t.Run(name, test)
	}
}

// Runs are filtered by host, branch and commit (a prefix of 7 or more),
// and each carries the origin it was recorded with.
func TestRunsFilteredByOrigin(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	at := time.Now()
	for i, o := range []Origin{
		{Host: "ci-1", CI: "github-actions", Branch: "main", Commit: "0123456789abcdef0123456789abcdef01234567", BuildURL: "https://github.com/o/r/actions/runs/1"},
		{Host: "ci-2", CI: "gitlab-ci", Branch: "main", Commit: "fedcba9876543210fedcba9876543210fedcba98"},
		{Host: "laptop", Branch: "feature"},
	} {
		if _, _, err := s.ImportRun(ctx, fmt.Sprintf("k%d", i), Run{Kind: RunReport, Name: "r", Started: at, Ended: at, Origin: o},
			[]*Test{{Name: "a", Kind: KindReport, Status: StatusPassed, Time: at}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		f    RunFilter
		want []string
	}{
		{RunFilter{}, []string{"laptop", "ci-2", "ci-1"}},
		{RunFilter{Branch: "main"}, []string{"ci-2", "ci-1"}},
		{RunFilter{Host: "laptop"}, []string{"laptop"}},
		{RunFilter{Commit: "0123456"}, []string{"ci-1"}},
		{RunFilter{Commit: "fedcba9876543210fedcba9876543210fedcba98"}, []string{"ci-2"}},
		{RunFilter{Commit: "012345"}, nil}, // too short for a prefix
		{RunFilter{Branch: "main", Host: "laptop"}, nil},
		{RunFilter{Commit: "0123%"}, nil},
	} {
		runs, _, err := s.FindRuns(ctx, c.f)
		if err != nil {
			t.Fatalf("%+v: %v", c.f, err)
		}
		var hosts []string
		for _, r := range runs {
			hosts = append(hosts, r.Host)
		}
		if strings.Join(hosts, ",") != strings.Join(c.want, ",") {
			t.Errorf("runs of %+v: %v, want %v", c.f, hosts, c.want)
		}
	}
	runs, _, _ := s.FindRuns(ctx, RunFilter{Host: "ci-1"})
	if len(runs) != 1 || runs[0].CI != "github-actions" || runs[0].BuildURL != "https://github.com/o/r/actions/runs/1" {
		t.Errorf("the run from ci-1: %+v", runs)
	}
	// A run without an origin gets the store's.
	s.SetOrigin(Origin{Host: "here", Branch: "dev"})
	if _, _, err := s.ImportRun(ctx, "k-plain", Run{Kind: RunReport, Name: "r", Started: at, Ended: at}, nil); err != nil {
		t.Fatal(err)
	}
	if runs, _, _ := s.FindRuns(ctx, RunFilter{Branch: "dev"}); len(runs) != 1 || runs[0].Host != "here" {
		t.Errorf("a run without an origin: %+v, want the store's", runs)
	}
}

// A test that passed on one runner and failed on another for the same
// commit is a flip in its history, and each point says where it ran.
func TestFlipAcrossMachinesInOneCommit(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	at := time.Now().Add(-time.Hour)
	for i, host := range []string{"runner-a", "runner-b"} {
		status := StatusPassed
		if i == 1 {
			status = StatusFailed
		}
		t0 := at.Add(time.Duration(i) * time.Minute)
		if _, _, err := s.ImportRun(ctx, "k-"+host, Run{Kind: RunReport, Name: host + ".xml", Started: t0, Ended: t0, Origin: Origin{Host: host, Branch: "main", Commit: "abc1234"}},
			[]*Test{{Name: "login > works", Kind: KindReport, Status: status, Time: t0}}); err != nil {
			t.Fatal(err)
		}
	}
	h, err := s.History(ctx, "login > works")
	if err != nil {
		t.Fatal(err)
	}
	if h.Runs != 2 || h.Failures != 1 || h.Flips != 1 {
		t.Errorf("history across two runners: %+v, want 2 runs, 1 failure, 1 flip", h)
	}
	if len(h.Points) == 2 && (h.Points[0].Host != "runner-a" || h.Points[1].Host != "runner-b" || h.Points[1].Commit != "abc1234" || h.Points[1].RunName != "runner-b.xml") {
		t.Errorf("points say where they ran: %+v", h.Points)
	}
}

// Two servers sharing a record, started in the same microsecond, keep
// their sessions' runs apart by host.
func TestSessionRunsOfTwoServersAreApart(t *testing.T) {
	s := openTemp(t)
	var recs []*Recorder
	for _, host := range []string{"one", "two"} {
		// The same store, as two servers on one database would be
		// with their own origins.
		st := *s
		st.origin = Origin{Host: host}
		r := NewRecorder(&st, RecorderOptions{KindOf: kinds})
		recs = append(recs, r)
	}
	recs[1].start = recs[0].start
	for _, r := range recs {
		r.Call(Entry{Start: time.Now(), Tool: "assert_equals", Args: json.RawMessage(`{"expected":1}`), Value: json.RawMessage(`{"passed":true}`)})
		r.Flush(context.Background())
	}
	runs, _, err := s.Runs(context.Background(), RunSession, 0, 0)
	if err != nil || len(runs) != 2 || runs[0].Host == runs[1].Host {
		t.Errorf("session runs of two servers: %+v %v, want two, one per host", runs, err)
	}
}

// Servers starting together on one empty database make its tables once.
func TestMigrateConcurrently(t *testing.T) {
	url := pgURL(t)
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Go(func() {
			s, err := Open(url)
			if err != nil {
				errs[i] = err
				return
			}
			defer s.Close()
			errs[i] = s.Ready(context.Background())
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("server %d: %v", i, err)
		}
	}
	admin, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var rows, version int
	if err := admin.QueryRow(`SELECT count(*), max(version) FROM schema_version`).Scan(&rows, &version); err != nil || rows != 1 || version != SchemaVersion {
		t.Errorf("schema_version: %d rows, version %d (%v); want 1 row of %d", rows, version, err, SchemaVersion)
	}
}

// An SQLite file made before the schema had versions is migrated: its
// calls are kept and its runs get the origin columns.
func TestMigrateUnversionedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "record.db")
	old, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Exec(sqliteDialect.schema(migrations[0])); err != nil {
		t.Fatal(err)
	}
	if _, err := old.Exec(`INSERT INTO calls (time, tool, duration_us, ok) VALUES (1, 'hash_text', 5, 1)`); err != nil {
		t.Fatal(err)
	}
	old.Close()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, _, err := s.CallCount(context.Background()); err != nil || n != 1 {
		t.Errorf("calls after the migration: %d (%v), want the 1 from before", n, err)
	}
	if _, _, err := s.FindRuns(context.Background(), RunFilter{Branch: "main"}); err != nil {
		t.Errorf("runs by branch after the migration: %v", err)
	}
}

// PostgreSQL stops in the middle of a load and starts again: every call
// is still taken at once, recording pauses (and says so) and resumes, and
// nothing recorded before, during or after is lost.
func TestPostgresRestartMidLoad(t *testing.T) {
	srv := startPG(t)
	url := pgURL(t)
	s, err := Open(url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var mu sync.Mutex
	var notices []error
	r := NewRecorder(s, RecorderOptions{KindOf: kinds, RetryEvery: time.Millisecond, Paused: func(err error, lost int) {
		mu.Lock()
		notices = append(notices, err)
		mu.Unlock()
		if err == nil && lost != 0 {
			t.Errorf("resumed having dropped %d calls", lost)
		}
	}})
	load := func(n int) {
		for i := range n {
			r.Call(Entry{Start: time.Now(), Tool: "assert_equals", Args: json.RawMessage(fmt.Sprintf(`{"expected":%d}`, i%5)), Value: json.RawMessage(`{"passed":true}`)})
			if i%50 == 49 {
				r.Flush(context.Background())
			}
		}
		r.Flush(context.Background())
	}
	load(500)
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	load(300) // each Call returns at once; the flushes fail
	st := r.Status()
	if !st.Paused || st.Pending != 300 || st.Error == "" || strings.Contains(st.Error, testsrv.Password) {
		t.Errorf("status with the database down: %+v, want paused, 300 pending, a reason without the password", st)
	}
	mu.Lock()
	if len(notices) != 1 || notices[0] == nil || strings.Contains(notices[0].Error(), testsrv.Password) {
		t.Errorf("notices with the database down: %v, want one pause without the password", notices)
	}
	mu.Unlock()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	// The pool's connections died with the server: the first tries may
	// fail on them before new ones are made.
	for i := 0; r.Status().Paused || r.Status().Pending > 0; i++ {
		if i == 100 {
			t.Fatalf("recording did not resume: %+v", r.Status())
		}
		time.Sleep(10 * time.Millisecond)
		r.Flush(context.Background())
	}
	load(200)
	n, _, err := s.CallCount(context.Background())
	if err != nil || n != 1000 {
		t.Errorf("%d calls recorded (%v), want all 1000", n, err)
	}
	h, err := s.History(context.Background(), "assert_equals expected=0")
	if err != nil || h.Runs != 200 {
		t.Errorf("history after the restart: %d runs (%v), want 200", h.Runs, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notices) != 2 || notices[1] != nil {
		t.Errorf("notices: %v, want a pause then a resume", notices)
	}
}

// A server whose postgres:// URL does not answer starts all the same:
// Open succeeds, Ready says why (password masked), calls are taken and
// held while recording is paused.
func TestUnreachablePostgres(t *testing.T) {
	url := "postgres://ada:" + testsrv.Password + "@127.0.0.1:1/record?sslmode=disable&connect_timeout=2"
	s, err := Open(url)
	if err != nil {
		t.Fatalf("Open: %v, want the store, paused", err)
	}
	defer s.Close()
	err = s.Ready(context.Background())
	if !errors.Is(err, ErrNotReady) || strings.Contains(err.Error(), testsrv.Password) || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("Ready: %v, want ErrNotReady naming the address, not the password", err)
	}
	var paused error
	r := NewRecorder(s, RecorderOptions{Paused: func(err error, _ int) { paused = err }})
	r.Call(Entry{Start: time.Now(), Tool: "hash_text", Args: json.RawMessage(`{}`), Value: json.RawMessage(`{}`)})
	r.Flush(context.Background())
	if paused == nil || strings.Contains(paused.Error(), testsrv.Password) {
		t.Errorf("the pause: %v, want one without the password", paused)
	}
	if st := r.Status(); !st.Paused || st.Pending != 1 || strings.Contains(st.Path, testsrv.Password) {
		t.Errorf("status: %+v", st)
	}
	if _, _, err := s.Runs(context.Background(), "", 0, 0); !errors.Is(err, ErrNotReady) || strings.Contains(err.Error(), testsrv.Password) {
		t.Errorf("a read: %v, want ErrNotReady without the password", err)
	}
}

// A malformed dashboard.db is an error at Open that says what to write,
// and never prints the password.
func TestMalformedDatabaseURL(t *testing.T) {
	for _, dsn := range []string{
		"postgres://ada:" + testsrv.Password + "@db.example:notaport/record",
		"postgres://ada:" + testsrv.Password + "@/record",
		"postgresql://ada:" + testsrv.Password + "@db.example:5432/record?sslmode=bogus",
		"mysql://ada:" + testsrv.Password + "@db.example/record",
		"",
	} {
		s, err := Open(dsn)
		if err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", dsn)
			continue
		}
		if strings.Contains(err.Error(), testsrv.Password) {
			t.Errorf("Open's error shows the password: %v", err)
		}
		if !strings.Contains(err.Error(), "postgres://") {
			t.Errorf("Open(%q): %v, want it to say what to write", dsn, err)
		}
	}
}

func TestGlobRegexp(t *testing.T) {
	for _, c := range []struct{ glob, re string }{
		{"*", `^.*$`},
		{"login > *", `^login > .*$`},
		{"a?c", `^a.c$`},
		{"[abc]x", `^[abc]x$`},
		{"[^a]", `^[^a]$`},
		{"a.b(c)+", `^a\.b\(c\)\+$`},
		{"[unclosed", `^\[unclosed$`},
	} {
		if got := globRegexp(c.glob); got != c.re {
			t.Errorf("globRegexp(%q) = %q, want %q", c.glob, got, c.re)
		}
	}
}

func TestBind(t *testing.T) {
	got := pgDialect.bind(`SELECT a FROM t WHERE b = ? AND c = '?' AND d LIKE ? ESCAPE '\'`)
	if want := `SELECT a FROM t WHERE b = $1 AND c = '?' AND d LIKE $2 ESCAPE '\'`; got != want {
		t.Errorf("bind: %s\nwant  %s", got, want)
	}
}

func TestDetectOrigin(t *testing.T) {
	host, _ := os.Hostname()
	wd, _ := os.Getwd()
	for _, c := range []struct {
		name string
		env  map[string]string
		want Origin
	}{
		{"none", nil, Origin{}},
		{"github-actions", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_REF_NAME": "main", "GITHUB_SHA": "abc", "GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "7"},
			Origin{CI: "github-actions", Branch: "main", Commit: "abc", BuildURL: "https://github.com/o/r/actions/runs/7"}},
		{"github pull request", map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_HEAD_REF": "fix", "GITHUB_REF_NAME": "12/merge", "GITHUB_SHA": "abc"},
			Origin{CI: "github-actions", Branch: "fix", Commit: "abc"}},
		{"gitlab-ci", map[string]string{"GITLAB_CI": "true", "CI_COMMIT_REF_NAME": "dev", "CI_COMMIT_SHA": "def", "CI_JOB_URL": "https://gitlab.com/o/r/-/jobs/9"},
			Origin{CI: "gitlab-ci", Branch: "dev", Commit: "def", BuildURL: "https://gitlab.com/o/r/-/jobs/9"}},
		{"jenkins", map[string]string{"JENKINS_URL": "https://ci/", "GIT_BRANCH": "origin/main", "GIT_COMMIT": "123", "BUILD_URL": "https://ci/job/x/4/"},
			Origin{CI: "jenkins", Branch: "main", Commit: "123", BuildURL: "https://ci/job/x/4/"}},
		{"buildkite", map[string]string{"BUILDKITE": "true", "BUILDKITE_BRANCH": "b", "BUILDKITE_COMMIT": "c", "BUILDKITE_BUILD_URL": "https://buildkite.com/o/p/builds/3"},
			Origin{CI: "buildkite", Branch: "b", Commit: "c", BuildURL: "https://buildkite.com/o/p/builds/3"}},
		{"circleci", map[string]string{"CIRCLECI": "true", "CIRCLE_BRANCH": "b", "CIRCLE_SHA1": "c", "CIRCLE_BUILD_URL": "https://circleci.com/gh/o/r/5"},
			Origin{CI: "circleci", Branch: "b", Commit: "c", BuildURL: "https://circleci.com/gh/o/r/5"}},
		{"overridden", map[string]string{"CIRCLECI": "true", "CIRCLE_BRANCH": "b", "CIRCLE_SHA1": "c", "BARRHAWK_BRANCH": "release", "BARRHAWK_COMMIT": "fff"},
			Origin{CI: "circleci", Branch: "release", Commit: "fff"}},
		{"false is not on", map[string]string{"GITHUB_ACTIONS": "false", "GITHUB_SHA": "abc"}, Origin{}},
	} {
		got := DetectOrigin(func(k string) string { return c.env[k] })
		c.want.Host, c.want.Dir = host, wd
		if got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// The charts' buckets count calls and errors per slice, and a test's
// evidence is found by its id with its run's source.
func TestBucketsAndEvidence(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	r := NewRecorder(s, RecorderOptions{KindOf: kinds})
	now := time.Now().Truncate(time.Minute)
	for i, ok := range []bool{true, true, false, true} {
		e := Entry{Start: now.Add(time.Duration(i) * time.Second), Duration: time.Duration(i+1) * time.Millisecond, Tool: "hash_text", Args: json.RawMessage(`{}`), Value: json.RawMessage(`{}`)}
		if !ok {
			e.Value, e.Code, e.Message = nil, "TIMEOUT", "slow"
		}
		r.Call(e)
	}
	r.Call(Entry{Start: now.Add(5 * time.Second), Tool: "assert_text", Args: json.RawMessage(`{"selector":"h1","expected":"Hi"}`),
		Value: json.RawMessage(`{"passed":false,"screenshot":"/tmp/shots/a.png"}`)})
	r.Flush(ctx)
	bs, err := s.Buckets(ctx, now.Add(-time.Minute), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 1 || bs[0].Calls != 5 || bs[0].Errors != 1 || !bs[0].Time.Equal(now) {
		t.Errorf("buckets: %+v, want one of 5 calls, 1 error, at %v", bs, now)
	}
	runs, _, err := s.Runs(ctx, RunSession, 0, 0)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs: %+v %v", runs, err)
	}
	_, tests, err := s.Run(ctx, runs[0].ID)
	if err != nil || len(tests) != 1 || len(tests[0].Evidence) != 1 {
		t.Fatalf("tests: %+v %v", tests, err)
	}
	ev, _, err := s.Evidence(ctx, tests[0].Evidence[0].ID)
	if err != nil || ev.Path != "/tmp/shots/a.png" || ev.MIMEType != "image/png" {
		t.Errorf("evidence: %+v %v", ev, err)
	}
	if _, _, err := s.Evidence(ctx, 1<<40); !errors.Is(err, ErrNotFound) {
		t.Errorf("evidence of an unknown id: %v, want ErrNotFound", err)
	}
}
