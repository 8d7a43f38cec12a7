package record

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// MaxHistoryPoints bounds the results one Histories call returns, over all
// its tests.
const MaxHistoryPoints = 100_000

// Histories returns the history of each test whose name matches pattern
// (a GLOB: * any text, ? one character, [abc] a class; case matters; on
// PostgreSQL too), from its results since since: the latest perTest of them
// (1 to HistoryLimit; 0 or less gives HistoryLimit), oldest first, the
// tests ordered by name. Past MaxHistoryPoints results it fails, asking
// for a narrower pattern or a later since.
func (s *Store) Histories(ctx context.Context, namePattern string, since time.Time, perTest int) ([]History, error) {
	if namePattern == "" {
		namePattern = "*"
	}
	hs, err := s.histories(ctx, s.db.d.glob("t.name"), s.db.d.globArg(namePattern), since, perTest)
	if err != nil {
		return nil, fmt.Errorf("record: histories of %q: %w", namePattern, err)
	}
	return hs, nil
}

// histories is the history of each test whose name meets cond (with its
// argument arg), as Histories says.
func (s *Store) histories(ctx context.Context, cond string, arg any, since time.Time, perTest int) ([]History, error) {
	if perTest <= 0 || perTest > HistoryLimit {
		perTest = HistoryLimit
	}
	rows, err := s.db.QueryContext(ctx, `SELECT h.name, h.time, h.run_id, h.id, h.status, h.duration_ms, h.run_name, h.host, h.ci, h.branch, h.commit_sha, h.build_url FROM (
		SELECT t.name, t.time, t.run_id, t.id, t.status, t.duration_ms, r.name AS run_name, r.host, r.ci, r.branch, r.commit_sha, r.build_url,
			row_number() OVER (PARTITION BY t.name ORDER BY t.time DESC, t.id DESC) AS n
		FROM tests t JOIN runs r ON r.id = t.run_id WHERE `+cond+` AND t.time >= ?) AS h
	WHERE h.n <= ? ORDER BY h.name, h.time, h.id`, arg, micros(since), perTest)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []History{}
	points := 0
	for rows.Next() {
		var name string
		var p Point
		var tm int64
		o := &p.Origin
		if err := rows.Scan(&name, &tm, &p.RunID, &p.TestID, &p.Status, &p.DurationMs, &p.RunName, &o.Host, &o.CI, &o.Branch, &o.Commit, &o.BuildURL); err != nil {
			return nil, err
		}
		if points++; points > MaxHistoryPoints {
			return nil, fmt.Errorf("more than %d results since %s; give a narrower name or a later since", MaxHistoryPoints, since.Format(time.RFC3339))
		}
		p.Time = fromMicros(tm)
		if len(out) == 0 || out[len(out)-1].Name != name {
			out = append(out, History{Name: name, Points: []Point{}})
		}
		h := &out[len(out)-1]
		h.Points = append(h.Points, p)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		out[i].count()
	}
	return out, nil
}

// RunInfo returns one run without its tests.
func (s *Store) RunInfo(ctx context.Context, id int64) (*Run, error) {
	r, err := scanRun(s.db.QueryRowContext(ctx, `SELECT `+runCols+` FROM runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("run %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("record: run %d: %w", id, err)
	}
	return &r, nil
}

// LatestRunWith returns the latest run (by start, then id) holding a test
// whose name matches pattern (a GLOB): of all runs when before is 0, else
// of those before the run before in that order. ErrNotFound when there is
// none.
func (s *Store) LatestRunWith(ctx context.Context, pattern string, before int64) (*Run, error) {
	q := `SELECT ` + runCols + ` FROM runs r WHERE EXISTS (SELECT 1 FROM tests t WHERE t.run_id = r.id AND ` + s.db.d.glob("t.name") + `)`
	args := []any{s.db.d.globArg(pattern)}
	if before != 0 {
		b, err := s.RunInfo(ctx, before)
		if err != nil {
			return nil, err
		}
		q += ` AND (r.started < ? OR r.started = ? AND r.id < ?)`
		args = append(args, micros(b.Started), micros(b.Started), b.ID)
	}
	q += ` ORDER BY r.started DESC, r.id DESC LIMIT 1`
	r, err := scanRun(s.db.QueryRowContext(ctx, q, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("a run with a test named like %q: %w", pattern, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("record: runs with %q: %w", pattern, err)
	}
	return &r, nil
}

// RunTests returns the tests of run id whose names match pattern (a
// GLOB), in the order they were recorded.
func (s *Store) RunTests(ctx context.Context, id int64, pattern string) ([]Test, error) {
	tests, err := s.tests(ctx, `WHERE run_id = ? AND `+s.db.d.glob("name")+` ORDER BY id`, id, s.db.d.globArg(pattern))
	if err != nil {
		return nil, fmt.Errorf("record: tests of run %d: %w", id, err)
	}
	return tests, nil
}

// ToolStore is Shared for a tool whose argument arg reads the record: its
// errors are tool errors naming arg, INVALID_ARGS when the record is off.
func ToolStore(arg string) (*Store, error) {
	s, err := Shared()
	switch {
	case errors.Is(err, ErrOff):
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument %q: %v; set dashboard.record to true (the default) to keep one", arg, err)
	case err != nil:
		return nil, tool.Errorf(tool.CodeToolError, "argument %q: %v", arg, err)
	}
	return s, nil
}

// DefaultSince is how far back a history read from the record goes when
// no since is given.
const DefaultSince = 30 * 24 * time.Hour

// ParseSince reads a since argument: an RFC 3339 time, or a duration back
// from now such as 168h, 90m or 7d (days); "" gives DefaultSince.
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return now.Add(-DefaultSince), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	var d time.Duration
	var err error
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n float64
		n, err = strconv.ParseFloat(days, 64)
		switch {
		case err != nil:
		case !(n >= 0 && n <= 100_000): // NaN too
			err = errors.New("days out of range")
		default:
			d = time.Duration(n * float64(24*time.Hour))
		}
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d < 0 {
		return time.Time{}, fmt.Errorf("%q is neither an RFC 3339 time (2026-05-01T00:00:00Z) nor a duration back from now (168h, 7d)", s)
	}
	return now.Add(-d), nil
}
