// Package record keeps BarrHawk's record for the dashboard: every
// tools/call (what was called, how long it took, how it ended) and every
// test result (assertions, browser assertions, accessibility audits, the
// test cases of the reports the tools read, finished jobs), grouped into
// runs, with their evidence, in one SQLite file under the state directory
// or, for a team sharing one record, in a PostgreSQL database.
//
// The front records a call with [Recorder.Call], which only appends to a
// buffer; a flusher writes the buffer in one transaction a few times a
// second and tells the live subscribers (the dashboard's event stream).
// Igors open the same file ([Open]) to import the reports they read and to
// read a test's history: SQLite's WAL lets the processes share it, and
// PostgreSQL lets several servers on several machines share one record.
package record

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/redact"
)

// DefaultPath is the record's file under the state directory.
func DefaultPath(home string) string { return filepath.Join(home, "record.db") }

// Store is the record's database.
type Store struct {
	db   db
	path string // the file, or the URL with its password masked
	// origin is where the runs recorded through this store come from,
	// unless a run says otherwise.
	origin Origin
}

// Open opens (and makes, if need be) the record at dsn: an SQLite file,
// or a postgres:// URL. Its tables are made or migrated to SchemaVersion
// on first use; on SQLite that is done here, so that a file that cannot
// be written is an error now, while a PostgreSQL database that does not
// answer yet is tried again at each use (the reads and writes fail with
// ErrNotReady meanwhile): call Ready to know. The runs recorded through
// it get DetectOrigin's origin (SetOrigin changes it).
func Open(dsn string) (*Store, error) {
	s, err := open(dsn)
	if err != nil {
		return nil, err
	}
	s.origin = DetectOrigin(os.Getenv)
	if s.db.d.name == "sqlite" {
		if err := s.Ready(context.Background()); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

func open(dsn string) (*Store, error) {
	if dsn == "" {
		return nil, errors.New("record: no database given; give dashboard.db an SQLite file or a postgres:// URL")
	}
	if IsPostgresURL(dsn) {
		sdb, err := openPostgres(dsn)
		if err != nil {
			return nil, err
		}
		return newStore(sdb, pgDialect, redact.URLs(dsn)), nil
	}
	if strings.Contains(dsn, "://") {
		return nil, fmt.Errorf("record: dashboard.db %q is neither a file nor a postgres:// URL; give an SQLite file path or postgres://user:password@host:5432/dbname", redact.URLs(dsn))
	}
	if err := os.MkdirAll(filepath.Dir(dsn), 0o755); err != nil {
		return nil, fmt.Errorf("record: the database's directory: %w", err)
	}
	v := url.Values{}
	v.Add("_pragma", "journal_mode(WAL)")
	v.Add("_pragma", "journal_size_limit(8388608)")
	v.Add("_pragma", "busy_timeout(10000)")
	v.Add("_pragma", "synchronous(NORMAL)")
	v.Add("_pragma", "foreign_keys(ON)")
	// Every transaction of the record writes: take the write lock at
	// BEGIN, so that two processes never both hold a read lock waiting
	// to write (which SQLite ends with SQLITE_BUSY, busy timeout or not).
	v.Add("_txlock", "immediate")
	sdb, err := sql.Open("sqlite", "file:"+dsn+"?"+v.Encode())
	if err != nil {
		return nil, fmt.Errorf("record: open %s: %w", dsn, err)
	}
	sdb.SetMaxOpenConns(4)
	return newStore(sdb, sqliteDialect, dsn), nil
}

func newStore(sdb *sql.DB, d *dialect, path string) *Store {
	s := &Store{path: path}
	s.db = db{DB: sdb, d: d, schema: &tables{run: func(ctx context.Context) error {
		if err := migrate(ctx, sdb, d); err != nil {
			return fmt.Errorf("make the tables in %s: %w", path, redactErr(err))
		}
		return nil
	}}}
	return s
}

// Ready makes or migrates the tables if that is not done yet: nil once
// they are, else an error (ErrNotReady) saying why, the URL's password
// masked.
func (s *Store) Ready(ctx context.Context) error {
	if err := s.db.ready(ctx); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

// Dialect is "sqlite" or "postgres".
func (s *Store) Dialect() string { return s.db.d.name }

// SetOrigin sets where the runs recorded through s come from, unless a
// run says otherwise. Call it before the store is used.
func (s *Store) SetOrigin(o Origin) { s.origin = o }

// Origin is where the runs recorded through s come from.
func (s *Store) Origin() Origin { return s.origin }

// Path is the database's file, or its URL with the password masked.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us) }

// CallFilter selects calls: Tool is a tool's name or a part of one;
// Outcome is "ok", "error" or empty; Before pages (ids below it).
type CallFilter struct {
	Tool    string
	Outcome string
	Before  int64
	Limit   int
}

// MaxPage bounds one page of a list.
const MaxPage = 500

func pageLimit(n int) int {
	if n <= 0 {
		return 100
	}
	return min(n, MaxPage)
}

// Calls returns a page of calls, newest first, and the id to ask Before
// for the next page (0 when there is none).
func (s *Store) Calls(ctx context.Context, f CallFilter) ([]Call, int64, error) {
	var where []string
	var args []any
	if f.Tool != "" {
		var exact bool
		if err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM calls WHERE tool = ?)`, f.Tool).Scan(&exact); err != nil {
			return nil, 0, fmt.Errorf("record: calls: %w", err)
		}
		if exact {
			where, args = append(where, "tool = ?"), append(args, f.Tool)
		} else {
			where, args = append(where, "tool LIKE ? ESCAPE '\\'"), append(args, "%"+likeEscape(f.Tool)+"%")
		}
	}
	switch f.Outcome {
	case "":
	case "ok", "error":
		where, args = append(where, "ok = ?"), append(args, boolInt(f.Outcome == "ok"))
	default:
		return nil, 0, fmt.Errorf("record: outcome %q: give ok, error or nothing", f.Outcome)
	}
	if f.Before > 0 {
		where, args = append(where, "id < ?"), append(args, f.Before)
	}
	limit := pageLimit(f.Limit)
	q := `SELECT id, time, session, tool, args, duration_us, ok, code, message, igor, result_bytes FROM calls`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY id DESC LIMIT ?"
	rows, err := s.db.QueryContext(ctx, q, append(args, limit+1)...)
	if err != nil {
		return nil, 0, fmt.Errorf("record: calls: %w", err)
	}
	defer rows.Close()
	out := []Call{}
	for rows.Next() {
		var c Call
		var t int64
		var ok bool
		if err := rows.Scan(&c.ID, &t, &c.Session, &c.Tool, &c.Args, &c.DurationUs, &ok, &c.Code, &c.Message, &c.Igor, &c.ResultBytes); err != nil {
			return nil, 0, fmt.Errorf("record: calls: %w", err)
		}
		c.Time, c.Outcome = fromMicros(t), outcome(ok)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("record: calls: %w", err)
	}
	var next int64
	if len(out) > limit {
		out = out[:limit]
		next = out[limit-1].ID
	}
	return out, next, nil
}

// boolInt is b as the record stores it: 1 or 0 (an INTEGER column on
// both databases).
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func outcome(ok bool) string {
	if ok {
		return "ok"
	}
	return "error"
}

// CallCount is how many calls the record holds, and how many failed.
func (s *Store) CallCount(ctx context.Context) (calls, errs int, err error) {
	if err := s.db.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE ok = 0) FROM calls`).Scan(&calls, &errs); err != nil {
		return 0, 0, fmt.Errorf("record: count calls: %w", err)
	}
	return calls, errs, nil
}

// ErrNotFound is what the getters return for an id the record lacks.
var ErrNotFound = errors.New("not in the record")

// Call returns one call with its whole arguments and result.
func (s *Store) Call(ctx context.Context, id int64) (*CallDetail, error) {
	var c CallDetail
	var t int64
	var ok bool
	err := s.db.QueryRowContext(ctx, `SELECT id, time, session, tool, args, duration_us, ok, code, message, igor, result_bytes, full_args, result, truncated FROM calls WHERE id = ?`, id).
		Scan(&c.ID, &t, &c.Session, &c.Tool, &c.Args, &c.DurationUs, &ok, &c.Code, &c.Message, &c.Igor, &c.ResultBytes, &c.FullArgs, &c.Result, &c.Truncated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("call %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("record: call %d: %w", id, err)
	}
	c.Time, c.Outcome = fromMicros(t), outcome(ok)
	if c.FullArgs == "" {
		c.FullArgs = c.Args
	}
	return &c, nil
}

// callsPerInsert is how many calls one INSERT statement writes: one
// statement per row cost as much again as the rows themselves.
const callsPerInsert = 32

const callCols = 13

// plainCall reports whether c is an ok call whose record has nothing in
// the columns an ok call mostly leaves at their defaults (code, message,
// full_args apart from args, truncated): it is written with the 7 other
// columns only, a sixth less of the flusher's work per call.
func plainCall(c *CallDetail) bool {
	return c.Outcome == "ok" && c.Code == "" && c.Message == "" && (c.FullArgs == "" || c.FullArgs == c.Args) && !c.Truncated
}

// insertCalls writes calls (their IDs set here) in tx, many to a
// statement.
func insertCalls(ctx context.Context, tx *tx, calls []*CallDetail) error {
	type shape struct {
		rows  int
		plain bool
	}
	stmts := map[shape]*sql.Stmt{}
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
	per := callsPerInsert
	if tx.d.numbered {
		// Over a network each statement is a round trip: fewer, larger
		// ones (PostgreSQL takes 65,535 parameters to a statement).
		per = 8 * callsPerInsert
	}
	args := make([]any, 0, per*callCols)
	ids := make([]*int64, 0, per)
	for len(calls) > 0 {
		chunk := calls[:min(len(calls), per)]
		calls = calls[len(chunk):]
		sh := shape{rows: len(chunk), plain: !slices.ContainsFunc(chunk, func(c *CallDetail) bool { return !plainCall(c) })}
		st := stmts[sh]
		if st == nil {
			q := `INSERT INTO calls (time, session, tool, args, duration_us, ok, code, message, igor, result_bytes, full_args, result, truncated) VALUES ` +
				strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), ", len(chunk)), ", ")
			if sh.plain {
				q = `INSERT INTO calls (time, session, tool, args, duration_us, ok, igor, result_bytes, result) VALUES ` +
					strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, 1, ?, ?, ?), ", len(chunk)), ", ")
			}
			var err error
			if st, err = tx.PrepareContext(ctx, tx.d.returningID(q)); err != nil {
				return err
			}
			stmts[sh] = st
		}
		args, ids = args[:0], ids[:0]
		for _, c := range chunk {
			ids = append(ids, &c.ID)
			if sh.plain {
				args = append(args, micros(c.Time), c.Session, c.Tool, c.Args, c.DurationUs, c.Igor, c.ResultBytes, c.Result)
				continue
			}
			full := c.FullArgs
			if full == c.Args {
				full = "" // kept once: Call reads Args for it
			}
			args = append(args, micros(c.Time), c.Session, c.Tool, c.Args, c.DurationUs, boolInt(c.Outcome == "ok"), c.Code, c.Message, c.Igor, c.ResultBytes, full, c.Result, boolInt(c.Truncated))
		}
		if err := tx.d.insertIDs(ctx, st, ids, args...); err != nil {
			return err
		}
	}
	return nil
}

// runKey finds or makes the run of key, returning its id and whether it
// was made here. Servers making the same key at once make one run: the
// later insert finds the key taken and reads the run made.
func runKey(ctx context.Context, tx *tx, key string, r *Run) (id int64, made bool, err error) {
	err = tx.QueryRowContext(ctx, `SELECT id FROM runs WHERE key = ?`, key).Scan(&id)
	if err == nil {
		return id, false, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return 0, false, err
	}
	o := r.Origin
	id, err = tx.insertID(ctx, `INSERT INTO runs (key, kind, name, session, started, ended, source, host, dir, ci, branch, commit_sha, build_url) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING`,
		key, r.Kind, r.Name, r.Session, micros(r.Started), micros(r.Ended), r.Source, o.Host, o.Dir, o.CI, o.Branch, o.Commit, o.BuildURL)
	if errors.Is(err, sql.ErrNoRows) { // another server made it meanwhile
		err = tx.QueryRowContext(ctx, `SELECT id FROM runs WHERE key = ?`, key).Scan(&id)
		return id, false, err
	}
	return id, err == nil, err
}

// insertTests writes tests into the run runID (recorded from run) and
// updates its counts and end; the tests' IDs and RunIDs are set here.
func insertTests(ctx context.Context, tx *tx, runID int64, run *Run, tests []*Test) error {
	st, err := tx.PrepareContext(ctx, tx.d.returningID(`INSERT INTO tests (run_id, name, suite, kind, tool, time, session, status, duration_ms, message, expected, actual, output, call_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`))
	if err != nil {
		return err
	}
	defer st.Close()
	ev, err := tx.PrepareContext(ctx, tx.d.returningID(`INSERT INTO evidence (test_id, kind, name, path, mime) VALUES (?, ?, ?, ?, ?)`))
	if err != nil {
		return err
	}
	defer ev.Close()
	var passed, failed, skipped int
	start, end := run.Started, run.Ended
	for _, t := range tests {
		t.RunID = runID
		if err := tx.d.insertIDs(ctx, st, []*int64{&t.ID}, runID, t.Name, t.Suite, t.Kind, t.Tool, micros(t.Time), t.Session, t.Status, t.DurationMs, t.Message, string(t.Expected), string(t.Actual), t.Output, t.CallID); err != nil {
			return err
		}
		for i := range t.Evidence {
			e := &t.Evidence[i]
			if err := tx.d.insertIDs(ctx, ev, []*int64{&e.ID}, t.ID, e.Kind, e.Name, e.Path, e.MIMEType); err != nil {
				return err
			}
		}
		switch t.Status {
		case StatusFailed:
			failed++
		case StatusSkipped:
			skipped++
		default:
			passed++
		}
		if done := t.Time.Add(time.Duration(t.DurationMs * float64(time.Millisecond))); done.After(end) {
			end = done
		}
		if t.Time.Before(start) {
			start = t.Time
		}
	}
	s, e := micros(start), micros(end)
	_, err = tx.ExecContext(ctx, `UPDATE runs SET passed = passed + ?, failed = failed + ?, skipped = skipped + ?,
		started = CASE WHEN started < ? THEN started ELSE ? END, ended = CASE WHEN ended > ? THEN ended ELSE ? END WHERE id = ?`,
		passed, failed, skipped, s, s, e, e, runID)
	return err
}

// ImportRun records a whole run (a report, a job) under key, once: a key
// already recorded is left as it is and reported with done false. It
// returns the run's id. A run without an origin gets the store's.
func (s *Store) ImportRun(ctx context.Context, key string, run Run, tests []*Test) (id int64, done bool, err error) {
	if run.Origin == (Origin{}) {
		run.Origin = s.origin
	}
	t, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, false, fmt.Errorf("record: import %s: %w", key, err)
	}
	defer t.Rollback()
	id, made, err := runKey(ctx, t, key, &run)
	if err != nil {
		return 0, false, fmt.Errorf("record: import %s: %w", key, err)
	}
	if !made {
		return id, false, nil
	}
	if err := insertTests(ctx, t, id, &run, tests); err != nil {
		return 0, false, fmt.Errorf("record: import %s: %w", key, err)
	}
	if err := t.Commit(); err != nil {
		return 0, false, fmt.Errorf("record: import %s: %w", key, err)
	}
	return id, true, nil
}

// Has reports whether a run of key is recorded.
func (s *Store) Has(ctx context.Context, key string) (bool, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE key = ?`, key).Scan(&n); err != nil {
		return false, fmt.Errorf("record: %w", err)
	}
	return n > 0, nil
}

const runCols = `id, kind, name, session, started, ended, passed, failed, skipped, source, host, dir, ci, branch, commit_sha, build_url`

func scanRun(sc interface{ Scan(...any) error }) (Run, error) {
	var r Run
	var st, en int64
	o := &r.Origin
	err := sc.Scan(&r.ID, &r.Kind, &r.Name, &r.Session, &st, &en, &r.Passed, &r.Failed, &r.Skipped, &r.Source, &o.Host, &o.Dir, &o.CI, &o.Branch, &o.Commit, &o.BuildURL)
	r.Started, r.Ended = fromMicros(st), fromMicros(en)
	return r, err
}

// RunFilter selects runs: each field given must match exactly (Commit
// also as a prefix of at least 7 characters, as git abbreviates it);
// Before pages (ids below it).
type RunFilter struct {
	Kind   string
	Host   string
	Branch string
	Commit string
	Before int64
	Limit  int
}

// Runs returns a page of runs (of kind, if given), newest first, and the id
// to ask before for the next page (0 when there is none).
func (s *Store) Runs(ctx context.Context, kind string, before int64, limit int) ([]Run, int64, error) {
	return s.FindRuns(ctx, RunFilter{Kind: kind, Before: before, Limit: limit})
}

// FindRuns returns a page of the runs f selects, newest first, and the id
// to ask Before for the next page (0 when there is none).
func (s *Store) FindRuns(ctx context.Context, f RunFilter) ([]Run, int64, error) {
	limit := pageLimit(f.Limit)
	var where []string
	var args []any
	for _, c := range []struct{ col, v string }{{"kind", f.Kind}, {"host", f.Host}, {"branch", f.Branch}} {
		if c.v != "" {
			where, args = append(where, c.col+" = ?"), append(args, c.v)
		}
	}
	switch {
	case f.Commit == "":
	case len(f.Commit) >= 7 && len(f.Commit) < 40:
		where, args = append(where, "commit_sha LIKE ? ESCAPE '\\'"), append(args, likeEscape(f.Commit)+"%")
	default:
		where, args = append(where, "commit_sha = ?"), append(args, f.Commit)
	}
	if f.Before > 0 {
		where, args = append(where, "id < ?"), append(args, f.Before)
	}
	q := `SELECT ` + runCols + ` FROM runs`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY id DESC LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return nil, 0, fmt.Errorf("record: runs: %w", err)
	}
	defer rows.Close()
	out := []Run{}
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("record: runs: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("record: runs: %w", err)
	}
	var next int64
	if len(out) > limit {
		out = out[:limit]
		next = out[limit-1].ID
	}
	return out, next, nil
}

// Run returns one run with its tests, in the order they were recorded.
func (s *Store) Run(ctx context.Context, id int64) (*Run, []Test, error) {
	r, err := s.RunInfo(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	tests, err := s.tests(ctx, `WHERE run_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, nil, fmt.Errorf("record: run %d: %w", id, err)
	}
	return r, tests, nil
}

func (s *Store) tests(ctx context.Context, where string, args ...any) ([]Test, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, run_id, name, suite, kind, tool, time, session, status, duration_ms, message, expected, actual, output, call_id FROM tests `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Test{}
	byID := map[int64]int{}
	for rows.Next() {
		var t Test
		var tm int64
		var exp, act string
		if err := rows.Scan(&t.ID, &t.RunID, &t.Name, &t.Suite, &t.Kind, &t.Tool, &tm, &t.Session, &t.Status, &t.DurationMs, &t.Message, &exp, &act, &t.Output, &t.CallID); err != nil {
			return nil, err
		}
		t.Time = fromMicros(tm)
		if exp != "" {
			t.Expected = []byte(exp)
		}
		if act != "" {
			t.Actual = []byte(act)
		}
		byID[t.ID] = len(out)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return out, nil
	}
	evs, err := s.db.QueryContext(ctx, `SELECT id, test_id, kind, name, path, mime FROM evidence WHERE test_id BETWEEN ? AND ? ORDER BY id`, out[0].ID, out[len(out)-1].ID)
	if err != nil {
		return nil, err
	}
	defer evs.Close()
	for evs.Next() {
		var e Evidence
		var tid int64
		if err := evs.Scan(&e.ID, &tid, &e.Kind, &e.Name, &e.Path, &e.MIMEType); err != nil {
			return nil, err
		}
		if i, ok := byID[tid]; ok {
			out[i].Evidence = append(out[i].Evidence, e)
		}
	}
	return out, evs.Err()
}

// HistoryLimit bounds the results of one history.
const HistoryLimit = 1000

// History returns the latest results of the test named name, oldest first.
func (s *Store) History(ctx context.Context, name string) (*History, error) {
	hs, err := s.histories(ctx, "t.name = ?", name, time.Time{}, HistoryLimit)
	if err != nil {
		return nil, fmt.Errorf("record: history of %q: %w", name, err)
	}
	if len(hs) == 0 {
		return &History{Name: name, Points: []Point{}}, nil
	}
	return &hs[0], nil
}

// count fills the figures from the points.
func (h *History) count() {
	h.Runs, h.Failures, h.Flips = len(h.Points), 0, 0
	prev := ""
	for _, p := range h.Points {
		st := p.Status
		if st == StatusSkipped {
			h.Runs--
			continue
		}
		if st == StatusFailed {
			h.Failures++
		}
		if st == StatusFlaky {
			h.Flips++ // it changed within the run
			st = StatusPassed
		}
		if prev != "" && st != prev {
			h.Flips++
		}
		prev = st
	}
	if h.Runs > 1 {
		h.Flakiness = min(1, float64(h.Flips)/float64(h.Runs-1))
	}
}

// Evidence returns one evidence file's record and the source of its run
// (a report's path), which may hold it.
func (s *Store) Evidence(ctx context.Context, id int64) (*Evidence, string, error) {
	var e Evidence
	var source string
	err := s.db.QueryRowContext(ctx, `SELECT e.id, e.kind, e.name, e.path, e.mime, r.source FROM evidence e JOIN tests t ON t.id = e.test_id JOIN runs r ON r.id = t.run_id WHERE e.id = ?`, id).
		Scan(&e.ID, &e.Kind, &e.Name, &e.Path, &e.MIMEType, &source)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", fmt.Errorf("evidence %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, "", fmt.Errorf("record: evidence %d: %w", id, err)
	}
	return &e, source, nil
}

// Buckets returns the calls since since in slices of step, oldest first,
// for the charts; slices without calls are left out.
func (s *Store) Buckets(ctx context.Context, since time.Time, step time.Duration) ([]Bucket, error) {
	// Newest first by id, which needs no index on time: calls are written
	// in the order they ended, so a row a minute older than since ends the
	// window even when calls of different lengths came out of order.
	rows, err := s.db.QueryContext(ctx, `SELECT time, duration_us, ok FROM calls ORDER BY id DESC`)
	if err != nil {
		return nil, fmt.Errorf("record: stats: %w", err)
	}
	defer rows.Close()
	type sample struct {
		t  time.Time
		ms float64
		ok bool
	}
	var all []sample
	from, stop := micros(since), micros(since.Add(-time.Minute))
	for rows.Next() {
		var tm, us int64
		var ok bool
		if err := rows.Scan(&tm, &us, &ok); err != nil {
			return nil, fmt.Errorf("record: stats: %w", err)
		}
		if tm < stop {
			break
		}
		if tm >= from {
			all = append(all, sample{fromMicros(tm), float64(us) / 1000, ok})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("record: stats: %w", err)
	}
	slices.SortFunc(all, func(a, b sample) int { return a.t.Compare(b.t) })
	out := []Bucket{}
	var durs []float64
	for i, x := range all {
		slot := x.t.Truncate(step)
		if i == 0 || !out[len(out)-1].Time.Equal(slot) {
			if i > 0 {
				b := &out[len(out)-1]
				b.P50, b.P95, b.P99 = percentiles(durs)
			}
			out, durs = append(out, Bucket{Time: slot}), durs[:0]
		}
		b := &out[len(out)-1]
		b.Calls++
		if !x.ok {
			b.Errors++
		}
		durs = append(durs, x.ms)
	}
	if len(out) > 0 {
		b := &out[len(out)-1]
		b.P50, b.P95, b.P99 = percentiles(durs)
	}
	return out, nil
}

// pruneChunk is the most rows one DELETE of Prune or the recorder's
// bounds takes: the write lock is let go between chunks, so that a
// large backlog (a lowered bound, a first start on an old file) does not
// hold the recorder's writes for seconds.
const pruneChunk = 20_000

// Prune deletes calls and runs older than keep (0: none by age), and the
// oldest calls past maxCalls (0: no bound), a chunk at a time.
func (s *Store) Prune(ctx context.Context, keep time.Duration, maxCalls int) error {
	if keep > 0 {
		cut := micros(time.Now().Add(-keep))
		// Calls are written about in time order: those before the first
		// one within keep go, found from the oldest up, in a range of
		// ids, instead of a scan of every call for its time (there is no
		// index on time). A call that ran long may outlive its retention
		// by a little; none within it is deleted.
		var first sql.NullInt64
		if err := s.db.QueryRowContext(ctx, `SELECT coalesce((SELECT id FROM calls WHERE time >= ? ORDER BY id LIMIT 1), (SELECT max(id) + 1 FROM calls))`, cut).Scan(&first); err != nil {
			return fmt.Errorf("record: prune calls: %w", err)
		}
		if first.Valid {
			if err := s.DeleteCallsThrough(ctx, first.Int64-1); err != nil {
				return err
			}
		}
		if _, err := s.db.ExecContext(ctx, `DELETE FROM runs WHERE ended < ?`, cut); err != nil {
			return fmt.Errorf("record: prune runs: %w", err)
		}
	}
	if maxCalls > 0 {
		var last sql.NullInt64
		if err := s.db.QueryRowContext(ctx, `SELECT id FROM calls ORDER BY id DESC LIMIT 1 OFFSET ?`, maxCalls).Scan(&last); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("record: prune calls: %w", err)
		}
		if last.Valid {
			if err := s.DeleteCallsThrough(ctx, last.Int64); err != nil {
				return err
			}
		}
	}
	return s.giveBackPages(ctx)
}

// DeleteCallsThrough deletes the calls of id at most last, oldest first, a
// chunk of ids at a time.
func (s *Store) DeleteCallsThrough(ctx context.Context, last int64) error {
	var first sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT min(id) FROM calls`).Scan(&first); err != nil {
		return fmt.Errorf("record: the oldest call: %w", err)
	}
	for from := first.Int64; first.Valid && from <= last; from += pruneChunk {
		if _, err := s.db.ExecContext(ctx, `DELETE FROM calls WHERE id <= ?`, min(last, from+pruneChunk-1)); err != nil {
			return fmt.Errorf("record: delete calls through %d: %w", last, err)
		}
	}
	return nil
}

// Size is what the record holds: on SQLite the bytes of its file's pages
// in use (freed pages are not counted: new rows reuse them; its
// write-ahead log is bounded apart: checkpoints empty it, and
// journal_size_limit (8 MiB) truncates it after). On PostgreSQL it is the
// record's tables and indexes times the share of their rows that are live
// (from the statistics, which lag by a second or so): the space of
// deleted rows is reused by new ones after autovacuum, as SQLite's free
// pages are.
func (s *Store) Size(ctx context.Context) (int64, error) {
	if s.db.d.name == "postgres" {
		var size float64
		if err := s.db.QueryRowContext(ctx, `SELECT coalesce(sum(pg_total_relation_size(relid)::float8 *
			CASE WHEN n_live_tup + n_dead_tup = 0 THEN 1 ELSE n_live_tup::float8 / (n_live_tup + n_dead_tup) END), 0)
			FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname IN ('calls', 'runs', 'tests', 'evidence')`).Scan(&size); err != nil {
			return 0, fmt.Errorf("record: the tables' size: %w", err)
		}
		return int64(size), nil
	}
	var pages, free, size int64
	if err := s.db.QueryRowContext(ctx, `SELECT (SELECT page_count FROM pragma_page_count), (SELECT freelist_count FROM pragma_freelist_count), (SELECT page_size FROM pragma_page_size)`).Scan(&pages, &free, &size); err != nil {
		return 0, fmt.Errorf("record: the file's size: %w", err)
	}
	return (pages - free) * size, nil
}

// giveBackPages returns free pages to the file system when they are more
// than half the file (a bound was lowered, a backlog pruned): the file
// shrinks to what it keeps. Fewer are left for new rows to reuse, which
// costs nothing on each write (incremental auto-vacuum would, on every
// one). On PostgreSQL autovacuum keeps the space for new rows; a VACUUM
// FULL would lock the tables a whole team writes to, so none is run.
func (s *Store) giveBackPages(ctx context.Context) error {
	if s.db.d.name == "postgres" {
		return nil
	}
	var pages, free int64
	if err := s.db.QueryRowContext(ctx, `SELECT (SELECT page_count FROM pragma_page_count), (SELECT freelist_count FROM pragma_freelist_count)`).Scan(&pages, &free); err != nil {
		return fmt.Errorf("record: free pages: %w", err)
	}
	if free*2 <= pages || pages < 2048 {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, `VACUUM`); err != nil {
		return fmt.Errorf("record: give back %d free pages of %d: %w", free, pages, err)
	}
	return nil
}
