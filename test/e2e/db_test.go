package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/testsupport/testsrv"
	"github.com/jackc/pgx/v5"
)

// TestDatabases: the database tools through the real server and its Igors,
// against real PostgreSQL, SQLite and Redis; the password appears in no
// result, error or log line; the connections close when the server ends.
func TestDatabases(t *testing.T) {
	t.Parallel()
	pg, err := testsrv.StartPostgres()
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	rd, err := testsrv.StartRedis()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	s := start(t, "BARRHAWK_LOG_LEVEL=debug")
	var seen strings.Builder // every answer, to look for the password in
	call := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		out, isErr := s.call(name, args)
		seen.WriteString(out + "\n")
		return out, isErr
	}
	must := func(name string, args map[string]any) string {
		t.Helper()
		out, isErr := call(name, args)
		if isErr {
			t.Fatalf("%s: %s", name, out)
		}
		return out
	}
	must("db_pg_connect", map[string]any{"connectionString": pg.URL, "alias": "prod"})
	must("db_pg_query", map[string]any{"alias": "prod", "query": "CREATE TABLE users (id serial PRIMARY KEY, name text NOT NULL, email text)"})
	if out := must("db_pg_seed", map[string]any{"alias": "prod", "table": "users", "data": []any{map[string]any{"name": "Ada", "email": "a@x"}, map[string]any{"name": "Alan"}}}); !strings.Contains(out, `"inserted":2`) {
		t.Errorf("seed: %s", out)
	}
	if out := must("db_pg_query", map[string]any{"alias": "prod", "query": "SELECT name FROM users WHERE email IS NULL"}); !strings.Contains(out, `"rows":[{"name":"Alan"}]`) {
		t.Errorf("query: %s", out)
	}
	if out := must("db_pg_schema", map[string]any{"alias": "prod", "table": "users"}); !strings.Contains(out, `"primaryKey":["id"]`) {
		t.Errorf("schema: %s", out)
	}
	if out, isErr := call("db_pg_transaction", map[string]any{"alias": "prod", "queries": []any{
		map[string]any{"query": "DELETE FROM users"}, map[string]any{"query": "INSERT INTO users (name) VALUES (NULL)"}}}); !isErr ||
		!strings.Contains(out, "QUERY_ERROR") || !strings.Contains(out, "statement 2 of 2") {
		t.Errorf("failing transaction: %s", out)
	}
	if out := must("db_pg_query", map[string]any{"alias": "prod", "query": "SELECT count(*) AS n FROM users"}); !strings.Contains(out, `[{"n":2}]`) {
		t.Errorf("after the rollback: %s", out)
	}
	if out, isErr := call("db_pg_query", map[string]any{"alias": "prod", "query": "SELEC 1"}); !isErr || !strings.Contains(out, "line 1, column 1") {
		t.Errorf("syntax error: %s", out)
	}
	if out, isErr := call("db_pg_query", map[string]any{"alias": "nope", "query": "SELECT 1"}); !isErr || !strings.Contains(out, "open: prod") {
		t.Errorf("unknown alias: %s", out)
	}
	if out, isErr := call("db_pg_connect", map[string]any{"host": "127.0.0.1", "port": pg.Port(), "user": "postgres", "password": "not-" + testsrv.Password, "sslmode": "disable"}); !isErr || !strings.Contains(out, "CONNECTION_FAILED") {
		t.Errorf("wrong password: %s", out)
	}

	must("db_sqlite_open", map[string]any{"path": "local.db"})
	must("db_sqlite_query", map[string]any{"query": "CREATE TABLE t (x INTEGER)"})
	must("db_sqlite_query", map[string]any{"query": "INSERT INTO t VALUES (?), (?)", "params": []any{1, 2}})
	if out := must("db_sqlite_query", map[string]any{"query": "SELECT sum(x) AS s FROM t"}); !strings.Contains(out, `[{"s":3}]`) {
		t.Errorf("sqlite: %s", out)
	}

	must("db_redis_connect", map[string]any{"url": rd.URL})
	must("db_redis_set", map[string]any{"key": "k", "value": "v", "ttl": 60})
	if out := must("db_redis_get", map[string]any{"key": "k"}); !strings.Contains(out, `"value":"v"`) {
		t.Errorf("redis: %s", out)
	}
	if out, isErr := call("db_redis_flush", map[string]any{}); !isErr || !strings.Contains(out, "confirm") {
		t.Errorf("flush without confirm: %s", out)
	}

	// The events (task:failed carries the error) show no password either.
	if out := must("events_recent", map[string]any{}); !strings.Contains(out, "CONNECTION_FAILED") {
		t.Errorf("events_recent lacks the failed connect: %s", out)
	}

	// Connections close with the server: PostgreSQL sees them go.
	s.stop()
	conn, err := pgx.Connect(context.Background(), pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	for range 100 {
		if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n != 0 {
		t.Errorf("%d connections left after the server ended", n)
	}
	for where, text := range map[string]string{"results": seen.String(), "log": s.stderr.String()} {
		if strings.Contains(text, testsrv.Password) {
			i := strings.Index(text, testsrv.Password)
			t.Errorf("the password shows in the %s: ...%s...", where, text[max(0, i-200):min(len(text), i+50)])
		}
	}
	fmt.Fprint(&seen, "")
}

// TestDatabasesAcrossIgors: with several Igors under round-robin, the calls
// after db_pg_connect {alias} and fs_watch start find the connection and the
// watcher (they run on the Igor holding them); SIGTERM to the server closes
// the connections.
func TestDatabasesAcrossIgors(t *testing.T) {
	t.Parallel()
	pg, err := testsrv.StartPostgres()
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	s := startWith(t, []string{"--max-igors", "3"}, "")
	// Every Igor busy, twice: the pool starts all three.
	for range 2 {
		var wg sync.WaitGroup
		for range 6 {
			wg.Go(func() { s.call("wait_ms", map[string]any{"ms": 300}) })
		}
		wg.Wait()
	}
	st := s.mustCall("worker_status", map[string]any{})
	if b, _ := json.Marshal(st); strings.Count(string(b), `"igor-`) < 2 {
		t.Fatalf("want several Igors before the test: %s", b)
	}
	s.mustCall("db_pg_connect", map[string]any{"connectionString": pg.URL + "&application_name=e2e-igors", "alias": "prod"})
	for i := range 6 {
		if out, isErr := s.call("db_pg_query", map[string]any{"alias": "prod", "query": "SELECT 1 AS one"}); isErr {
			t.Fatalf("query %d after the connect: %s", i, out)
		}
	}
	dir := filepath.Join(s.home, "watched")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	id := s.mustCall("fs_watch", map[string]any{"action": "start", "path": "watched"})["id"]
	if err := os.WriteFile(filepath.Join(dir, "new.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var events string
	for range 100 {
		out, isErr := s.call("fs_watch", map[string]any{"action": "events", "id": id})
		if isErr {
			t.Fatalf("fs_watch events: %s", out)
		}
		if events = out; strings.Contains(out, "new.txt") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(events, `"op":"create","path":"new.txt"`) {
		t.Errorf("fs_watch events: %s", events)
	}

	// SIGTERM: the server ends, and its Igors close their connections.
	conn, err := pgx.Connect(context.Background(), pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	count := func() int {
		var n int
		if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'e2e-igors'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n < 1 {
		t.Fatalf("%d connections before SIGTERM", n)
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	n := count()
	for deadline := time.Now().Add(10 * time.Second); n > 0 && time.Now().Before(deadline); n = count() {
		time.Sleep(20 * time.Millisecond)
	}
	if n != 0 {
		t.Errorf("%d connections left after SIGTERM", n)
	}
}

// A connection dies with the Igor that opened it: the next call naming its
// alias says so, with the Igor, when and why, and how to open it again
// (it said only that no connection was open); once opened again, it works.
func TestConnectionDiedWithItsIgor(t *testing.T) {
	t.Parallel()
	s := startWith(t, []string{"--max-igors", "1"}, "")
	s.mustCall("db_sqlite_open", map[string]any{"path": "app.db", "alias": "app"})
	s.mustCall("db_sqlite_query", map[string]any{"alias": "app", "query": "CREATE TABLE t (x)"})
	st := s.mustCall("worker_status", map[string]any{})
	igors, _ := st["pool"].(map[string]any)["igors"].([]any)
	if len(igors) != 1 {
		t.Fatalf("igors: %v", igors)
	}
	victim := igors[0].(map[string]any)
	if err := syscall.Kill(int(victim["pid"].(float64)), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var out string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var isErr bool
		if out, isErr = s.call("db_sqlite_query", map[string]any{"alias": "app", "query": "SELECT count(*) AS n FROM t"}); isErr && strings.Contains(out, "NOT_FOUND") {
			break
		}
	}
	for _, want := range []string{`connection "app" died with its Igor (` + victim["id"].(string), "crashed", "db_sqlite_open (alias \"app\")"} {
		if !strings.Contains(out, want) {
			t.Errorf("after the Igor died: %s\nwant it to say %q", out, want)
		}
	}
	// Another alias, never opened, is only not open.
	if out, _ := s.call("db_sqlite_query", map[string]any{"alias": "other", "query": "SELECT 1"}); strings.Contains(out, "died") {
		t.Errorf("an alias never opened: %s", out)
	}
	s.mustCall("db_sqlite_open", map[string]any{"path": "app.db", "alias": "app"})
	if got := s.mustCall("db_sqlite_query", map[string]any{"alias": "app", "query": "SELECT count(*) AS n FROM t"}); got["rowCount"] != float64(1) {
		t.Errorf("after opening it again: %v", got)
	}
}
