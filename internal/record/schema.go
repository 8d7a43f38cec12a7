package record

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// ErrNotReady is what the record's reads and writes return while its
// database cannot be reached (or its tables made): on PostgreSQL a server
// starts without it and records once it answers.
var ErrNotReady = errors.New("the record's database is not reachable yet")

// migrations are the record's schema versions, in order: migrations[i]
// takes the schema from version i to i+1. Version 1 is the schema of the
// record before it was versioned (its statements are IF NOT EXISTS, so a
// file made then is taken as it is); add a version at the end, never
// change one. {{id}}, {{bigint}} and {{float}} are the dialect's types.
var migrations = []string{
	// 1: calls, runs, tests and evidence.
	`CREATE TABLE IF NOT EXISTS calls (
	id {{id}},
	time {{bigint}} NOT NULL,
	session TEXT NOT NULL DEFAULT '',
	tool TEXT NOT NULL,
	args TEXT NOT NULL DEFAULT '',
	duration_us {{bigint}} NOT NULL,
	ok INTEGER NOT NULL,
	code TEXT NOT NULL DEFAULT '',
	message TEXT NOT NULL DEFAULT '',
	igor TEXT NOT NULL DEFAULT '',
	result_bytes {{bigint}} NOT NULL DEFAULT 0,
	full_args TEXT NOT NULL DEFAULT '',
	result TEXT NOT NULL DEFAULT '',
	truncated INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS calls_tool ON calls (tool, id);
CREATE TABLE IF NOT EXISTS runs (
	id {{id}},
	key TEXT NOT NULL UNIQUE,
	kind TEXT NOT NULL,
	name TEXT NOT NULL,
	session TEXT NOT NULL DEFAULT '',
	started {{bigint}} NOT NULL,
	ended {{bigint}} NOT NULL,
	passed INTEGER NOT NULL DEFAULT 0,
	failed INTEGER NOT NULL DEFAULT 0,
	skipped INTEGER NOT NULL DEFAULT 0,
	source TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS runs_kind ON runs (kind, id);
CREATE INDEX IF NOT EXISTS runs_ended ON runs (ended);
CREATE TABLE IF NOT EXISTS tests (
	id {{id}},
	run_id {{bigint}} NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	name TEXT NOT NULL,
	suite TEXT NOT NULL DEFAULT '',
	kind TEXT NOT NULL,
	tool TEXT NOT NULL DEFAULT '',
	time {{bigint}} NOT NULL,
	session TEXT NOT NULL DEFAULT '',
	status TEXT NOT NULL,
	duration_ms {{float}} NOT NULL DEFAULT 0,
	message TEXT NOT NULL DEFAULT '',
	expected TEXT NOT NULL DEFAULT '',
	actual TEXT NOT NULL DEFAULT '',
	output TEXT NOT NULL DEFAULT '',
	call_id {{bigint}} NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS tests_run ON tests (run_id, id);
CREATE INDEX IF NOT EXISTS tests_name ON tests (name, time);
CREATE TABLE IF NOT EXISTS evidence (
	id {{id}},
	test_id {{bigint}} NOT NULL REFERENCES tests (id) ON DELETE CASCADE,
	kind TEXT NOT NULL,
	name TEXT NOT NULL DEFAULT '',
	path TEXT NOT NULL,
	mime TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS evidence_test ON evidence (test_id);`,
	// 2: where each run came from (issue 34).
	`ALTER TABLE runs ADD COLUMN host TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN dir TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN ci TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN branch TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN commit_sha TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN build_url TEXT NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS runs_branch ON runs (branch, id);
CREATE INDEX IF NOT EXISTS runs_commit ON runs (commit_sha, id);
CREATE INDEX IF NOT EXISTS runs_host ON runs (host, id);`,
}

// SchemaVersion is the version of the record's schema this build makes.
var SchemaVersion = len(migrations)

// migrateLock is the PostgreSQL advisory lock key the servers migrating
// one record at once take in turn ("barrhawk record" in 8 bytes).
const migrateLock = 0x62617272_7265636f

// tables makes or migrates a store's tables once, on first use: until it
// succeeds, each use tries again (a database that was down answers later).
type tables struct {
	mu   sync.Mutex
	done atomic.Bool
	run  func(context.Context) error
}

// ready makes the tables if that is not done yet.
func (s *tables) ready(ctx context.Context) error {
	if s.done.Load() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done.Load() {
		return nil
	}
	if err := s.run(ctx); err != nil {
		return fmt.Errorf("%w: %w", ErrNotReady, err)
	}
	s.done.Store(true)
	return nil
}

// migrate brings the schema of sdb to SchemaVersion in one transaction:
// on PostgreSQL under an advisory lock, on SQLite under the write lock
// its immediate transactions take at BEGIN, so that servers starting
// together migrate one after the other and the later ones find it done.
func migrate(ctx context.Context, sdb *sql.DB, d *dialect) error {
	x := db{DB: sdb, d: d}
	t, err := x.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer t.Rollback()
	if d.name == "postgres" {
		if _, err := t.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(migrateLock)); err != nil {
			return fmt.Errorf("take the migration lock: %w", err)
		}
	}
	if _, err := t.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("make schema_version: %w", err)
	}
	var have sql.NullInt64
	if err := t.QueryRowContext(ctx, `SELECT max(version) FROM schema_version`).Scan(&have); err != nil {
		return fmt.Errorf("read schema_version: %w", err)
	}
	if int(have.Int64) > len(migrations) {
		return fmt.Errorf("the record's schema is version %d, newer than this build's %d: use a newer barrhawk, or another dashboard.db", have.Int64, len(migrations))
	}
	for v := int(have.Int64); v < len(migrations); v++ {
		for _, stmt := range splitSQL(d.schema(migrations[v])) {
			if _, err := t.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("schema version %d: %w", v+1, err)
			}
		}
	}
	if int(have.Int64) < len(migrations) {
		if _, err := t.ExecContext(ctx, `DELETE FROM schema_version`); err != nil {
			return err
		}
		if _, err := t.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (?)`, len(migrations)); err != nil {
			return fmt.Errorf("write schema_version: %w", err)
		}
	}
	return t.Commit()
}

// splitSQL splits DDL text at its semicolons (none is inside a literal).
func splitSQL(ddl string) []string {
	var out []string
	for _, s := range strings.Split(ddl, ";") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
