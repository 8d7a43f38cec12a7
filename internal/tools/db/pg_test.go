package db

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/testsupport/testsrv"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestFamily(t *testing.T) {
	groups := map[string]string{}
	for _, n := range []string{"db_pg_connect", "db_pg_query", "db_pg_schema", "db_pg_seed", "db_pg_transaction", "db_pg_disconnect"} {
		groups[n] = pgGroup
	}
	for _, n := range []string{"db_sqlite_open", "db_sqlite_query", "db_sqlite_schema", "db_sqlite_close"} {
		groups[n] = sqliteGroup
	}
	for _, n := range []string{"db_redis_connect", "db_redis_get", "db_redis_set", "db_redis_del", "db_redis_keys", "db_redis_flush", "db_redis_hash", "db_redis_disconnect"} {
		groups[n] = redisGroup
	}
	var names []string
	for _, tl := range Tools() {
		names = append(names, tl.Name)
	}
	if len(names) != 18 {
		t.Errorf("%d tools, want 18: %v", len(names), names)
	}
	tooltest.CheckFamilyIn(t, Tools(), tool.CategoryDatabase, func(n string) string { return groups[n] }, names...)
}

// pgSession connects a session to a database of the test's own.
func pgSession(t *testing.T, db string) *tooltest.Session {
	t.Helper()
	s := tooltest.NewSession(t, Tools())
	s.MustRun("db_pg_connect", fmt.Sprintf(`{"connectionString":%q,"alias":"admin"}`, pg.URL))
	s.Run("db_pg_query", `{"alias":"admin","query":"DROP DATABASE IF EXISTS `+db+`"}`)
	s.MustRun("db_pg_query", `{"alias":"admin","query":"CREATE DATABASE `+db+`"}`)
	s.MustRun("db_pg_disconnect", `{"alias":"admin"}`)
	s.MustRun("db_pg_connect", fmt.Sprintf(`{"host":"127.0.0.1","port":%d,"user":"postgres","password":%q,"database":%q,"sslmode":"disable","alias":"prod"}`,
		pg.Port(), testsrv.Password, db))
	return s
}

func TestPostgresQuerySchemaSeedTransaction(t *testing.T) {
	t.Parallel()
	s := pgSession(t, "t_query")
	s.MustRun("db_pg_query", `{"alias":"prod","query":"CREATE TABLE users (id serial PRIMARY KEY, name text NOT NULL, email text UNIQUE, meta jsonb, born date, score numeric(10,2))"}`)
	s.MustRun("db_pg_query", `{"alias":"prod","query":"CREATE TABLE posts (id serial PRIMARY KEY, user_id int REFERENCES users(id), title text)"}`)

	got := tooltest.Object(t, s.MustRun("db_pg_seed", `{"alias":"prod","table":"users","data":[{"name":"Ada","email":"ada@x.io","meta":{"admin":true},"born":"1815-12-10","score":99.5},{"name":"Alan","email":"alan@x.io"}]}`))
	if got["inserted"] != float64(2) {
		t.Errorf("seed: %v", got)
	}
	got = tooltest.Object(t, s.MustRun("db_pg_query", `{"alias":"prod","query":"SELECT id, name, meta, born, score FROM users WHERE name = $1","params":["Ada"]}`))
	tooltest.WantJSON(t, "query", got, `{"columns":[{"name":"id","type":"int4"},{"name":"name","type":"text"},{"name":"meta","type":"jsonb"},{"name":"born","type":"date"},{"name":"score","type":"numeric"}],
		"rows":[{"id":1,"name":"Ada","meta":{"admin":true},"born":"1815-12-10T00:00:00Z","score":99.5}],"rowCount":1,"commandTag":"SELECT 1","rowsAffected":1}`)
	got = tooltest.Object(t, s.MustRun("db_pg_query", `{"alias":"prod","query":"UPDATE users SET score = $1 WHERE id > $2","params":[1, 0]}`))
	if got["commandTag"] != "UPDATE 2" || got["rowsAffected"] != float64(2) || got["rows"] != nil {
		t.Errorf("update: %v", got)
	}
	// Duplicate column names keep every value.
	got = tooltest.Object(t, s.MustRun("db_pg_query", `{"alias":"prod","query":"SELECT 1 AS a, 2 AS a"}`))
	tooltest.WantJSON(t, "duplicate names", got["rows"], `[{"a":1,"a_2":2}]`)
	// A row limit with a note.
	got = tooltest.Object(t, s.MustRun("db_pg_query", `{"alias":"prod","query":"SELECT g FROM generate_series(1, 50) g","maxRows":10}`))
	if got["rowCount"] != float64(10) || got["truncated"] != true || !strings.Contains(fmt.Sprint(got["note"]), "maxRows") {
		t.Errorf("maxRows: %v", got)
	}

	// Syntax error: the position as line and column, with a caret.
	e := s.MustFail("db_pg_query", `{"alias":"prod","query":"SELECT id,\nname FROM users WHERE"}`, tool.CodeQueryError)
	if !strings.Contains(e.Message, "syntax error") || !strings.Contains(e.Message, "42601") || !strings.Contains(e.Message, "line 2, column 22") || !strings.Contains(e.Message, "^") {
		t.Errorf("syntax error: %s", e.Message)
	}
	s.MustFail("db_pg_query", `{"alias":"prod","query":"SELECT * FROM nope"}`, tool.CodeQueryError)
	e = s.MustFail("db_pg_query", `{"alias":"prod","query":"SELECT 1; SELECT 2"}`, tool.CodeQueryError)
	if !strings.Contains(e.Message, "multiple commands") || !strings.Contains(e.Message, "db_pg_transaction") {
		t.Errorf("two statements: %s", e.Message)
	}

	// Unknown alias: the open ones are listed.
	e = s.MustFail("db_pg_query", `{"alias":"staging","query":"SELECT 1"}`, tool.CodeNotFound)
	if !strings.Contains(e.Message, `"staging"`) || !strings.Contains(e.Message, "open: prod") {
		t.Errorf("unknown alias: %s", e.Message)
	}

	// Schema.
	got = tooltest.Object(t, s.MustRun("db_pg_schema", `{"alias":"prod"}`))
	if got["count"] != float64(2) {
		t.Errorf("schema: %v", got)
	}
	got = tooltest.Object(t, s.MustRun("db_pg_schema", `{"alias":"prod","table":"posts"}`))
	js := tooltest.Marshal(got)
	for _, want := range []string{`"primaryKey":["id"]`, `"name":"user_id"`, `"type":"integer"`, `REFERENCES users(id)`, `posts_pkey`, `"nullable":true`, `nextval(`} {
		if !strings.Contains(js, want) {
			t.Errorf("schema of posts lacks %s: %s", want, js)
		}
	}
	e = s.MustFail("db_pg_schema", `{"alias":"prod","table":"userz"}`, tool.CodeNotFound)
	if !strings.Contains(e.Message, "public.users") {
		t.Errorf("unknown table: %s", e.Message)
	}
	// A name that needs quotes is listed quoted, as the table argument
	// takes it back.
	s.MustRun("db_pg_query", `{"alias":"prod","query":"CREATE TABLE \"my.Table\" (id int)"}`)
	e = s.MustFail("db_pg_schema", `{"alias":"prod","table":"my.Table"}`, tool.CodeNotFound)
	if !strings.Contains(e.Message, `public."my.Table"`) {
		t.Errorf("unknown table, a quoted one listed: %s", e.Message)
	}
	s.MustRun("db_pg_schema", `{"alias":"prod","table":"public.\"my.Table\""}`)
	s.MustRun("db_pg_query", `{"alias":"prod","query":"DROP TABLE \"my.Table\""}`)

	// A transaction: all or nothing, the failing statement named.
	e = s.MustFail("db_pg_transaction", `{"alias":"prod","queries":[{"query":"INSERT INTO posts (user_id, title) VALUES (1, 'a')"},{"query":"INSERT INTO posts (user_id, title) VALUES (999, 'b')"}]}`, tool.CodeQueryError)
	if !strings.Contains(e.Message, "statement 2 of 2") || !strings.Contains(e.Message, "VALUES (999") || !strings.Contains(e.Message, "foreign key") || !strings.Contains(e.Message, "rolled back") {
		t.Errorf("transaction error: %s", e.Message)
	}
	got = tooltest.Object(t, s.MustRun("db_pg_query", `{"alias":"prod","query":"SELECT count(*) AS n FROM posts"}`))
	tooltest.WantJSON(t, "after the rollback", got["rows"], `[{"n":0}]`)
	got = tooltest.Object(t, s.MustRun("db_pg_transaction", `{"alias":"prod","queries":[{"query":"INSERT INTO posts (user_id, title) VALUES ($1, $2) RETURNING id","params":[1,"x"]},{"query":"DELETE FROM posts WHERE title = 'nothing'"}]}`))
	if got["committed"] != true || !strings.Contains(tooltest.Marshal(got), `"rows":[{"id":`) || !strings.Contains(tooltest.Marshal(got), `"DELETE 0"`) {
		t.Errorf("transaction: %v", got)
	}
	s.MustRun("db_pg_disconnect", `{"alias":"prod"}`)
	e = s.MustFail("db_pg_disconnect", `{"alias":"prod"}`, tool.CodeNotFound)
	if !strings.Contains(e.Message, "none is open") {
		t.Errorf("disconnect twice: %s", e.Message)
	}
}

// Table and column names go through identifier quoting: a name built to
// inject SQL is a (strange) name, nothing more.
func TestPostgresSeedCannotInject(t *testing.T) {
	t.Parallel()
	s := pgSession(t, "t_inject")
	s.MustRun("db_pg_query", `{"alias":"prod","query":"CREATE TABLE victim (id int)"}`)
	s.MustRun("db_pg_query", `{"alias":"prod","query":"INSERT INTO victim VALUES (1)"}`)
	e := s.MustFail("db_pg_seed", `{"alias":"prod","table":"x\"; DROP TABLE victim; --","data":[{"a":1}]}`, tool.CodeInvalidArgs)
	_ = e
	s.MustFail("db_pg_seed", `{"alias":"prod","table":"victim","data":[{"id\") VALUES (1); DROP TABLE victim; --":1}]}`, tool.CodeQueryError)
	s.MustFail("db_pg_seed", `{"alias":"prod","table":"victim; DROP TABLE victim","data":[{"id":1}]}`, tool.CodeQueryError)
	got := tooltest.Object(t, s.MustRun("db_pg_query", `{"alias":"prod","query":"SELECT count(*) AS n FROM victim"}`))
	tooltest.WantJSON(t, "victim", got["rows"], `[{"n":1}]`)
	// A quoted strange name is a real table, seeded as such.
	s.MustRun("db_pg_query", `{"alias":"prod","query":"CREATE TABLE \"we\"\"ird; t\" (\"col; x\" text)"}`)
	s.MustRun("db_pg_seed", `{"alias":"prod","table":"\"we\"\"ird; t\"","data":[{"col; x":"ok"}],"truncateFirst":true}`)
	got = tooltest.Object(t, s.MustRun("db_pg_query", `{"alias":"prod","query":"SELECT \"col; x\" AS v FROM \"we\"\"ird; t\""}`))
	tooltest.WantJSON(t, "weird table", got["rows"], `[{"v":"ok"}]`)
}

// A wrong password fails with CONNECTION_FAILED that never shows it.
func TestPostgresCredentialsNeverShow(t *testing.T) {
	t.Parallel()
	s := tooltest.NewSession(t, Tools())
	const wrong = "Wr0ng-Secret-Value"
	for _, args := range []string{
		fmt.Sprintf(`{"connectionString":"postgres://postgres:%s@127.0.0.1:%d/postgres?sslmode=disable"}`, wrong, pg.Port()),
		fmt.Sprintf(`{"host":"127.0.0.1","port":%d,"user":"postgres","password":%q,"sslmode":"disable"}`, pg.Port(), wrong),
	} {
		e := s.MustFail("db_pg_connect", args, tool.CodeConnectionFailed)
		if strings.Contains(e.Message, wrong) || !strings.Contains(e.Message, "password") {
			t.Errorf("wrong password: %s", e.Message)
		}
	}
	e := s.MustFail("db_pg_connect", `{"connectionString":"postgres://u:`+wrong+`@127.0.0.1:1/x?sslmode=disable"}`, tool.CodeConnectionFailed)
	if strings.Contains(e.Message, wrong) || !strings.Contains(e.Message, "refused") {
		t.Errorf("refused: %s", e.Message)
	}
	// sslmode prefer (the default) tries twice, with TLS and without: one
	// refusal is reported once.
	e = s.MustFail("db_pg_connect", `{"connectionString":"postgres://u:`+wrong+`@127.0.0.1:1/x"}`, tool.CodeConnectionFailed)
	if strings.Count(e.Message, "connection refused") != 1 || strings.Contains(e.Message, "\n") {
		t.Errorf("refused with sslmode prefer: %s", e.Message)
	}
	e = s.MustFail("db_pg_connect", `{"connectionString":"postgres://u:`+wrong+`@h:notaport/x"}`, tool.CodeInvalidArgs)
	if strings.Contains(e.Message, wrong) {
		t.Errorf("bad string: %s", e.Message)
	}
}

// A server stopped mid-session: the call fails with CONNECTION_FAILED, and
// once the server is back the same alias works again, without a new connect.
func TestPostgresReconnectsAfterARestart(t *testing.T) {
	t.Parallel()
	own, err := testsrv.StartPostgres()
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	s := tooltest.NewSession(t, Tools())
	s.MustRun("db_pg_connect", fmt.Sprintf(`{"connectionString":%q}`, own.URL))
	s.MustRun("db_pg_query", `{"query":"SELECT 1"}`)
	if err := own.Stop(); err != nil {
		t.Fatal(err)
	}
	e := s.MustFail("db_pg_query", `{"query":"SELECT 1"}`, tool.CodeConnectionFailed)
	if strings.Contains(e.Message, testsrv.Password) || !strings.Contains(e.Message, "PostgreSQL postgres@127.0.0.1") || !strings.Contains(e.Message, "reconnects") {
		t.Errorf("server stopped: %s", e.Message)
	}
	if err := own.Start(); err != nil {
		t.Fatal(err)
	}
	got := tooltest.Object(t, s.MustRun("db_pg_query", `{"query":"SELECT 2 AS two"}`))
	tooltest.WantJSON(t, "after the restart", got["rows"], `[{"two":2}]`)
}

// The pools close with the Igor's resources: the server sees the
// connections go.
func TestPostgresConnectionsCloseWithTheResources(t *testing.T) {
	t.Parallel()
	s := pgSession(t, "t_close")
	s.MustRun("db_pg_connect", fmt.Sprintf(`{"connectionString":%q,"alias":"watch"}`, pg.URL))
	count := func() float64 {
		got := tooltest.Object(t, s.MustRun("db_pg_query", `{"alias":"watch","query":"SELECT count(*) AS n FROM pg_stat_activity WHERE datname = 't_close'"}`))
		return got["rows"].([]any)[0].(map[string]any)["n"].(float64)
	}
	s.MustRun("db_pg_query", `{"alias":"prod","query":"SELECT 1"}`)
	if n := count(); n < 1 {
		t.Fatalf("connections to t_close before: %v", n)
	}
	kinds, err := s.Res.Close(tool.KindPostgres, "prod")
	if !kinds || err != nil {
		t.Fatalf("close: %v %v", kinds, err)
	}
	for range 100 {
		if count() == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("the server still sees %v connections after the pool closed", count())
}

// The connection options a user gives are the ones used: sslmode (require
// refuses a server without TLS, with a hint) and connect_timeout (a server
// that never answers fails after it, not after the default 10 s).
func TestPostgresConnectOptions(t *testing.T) {
	t.Parallel()
	s := tooltest.NewSession(t, Tools())
	e := s.MustFail("db_pg_connect", fmt.Sprintf(`{"connectionString":%q,"sslmode":"require"}`, pg.URL), tool.CodeConnectionFailed)
	if !strings.Contains(e.Message, "TLS") || !strings.Contains(e.Message, "sslmode disable") {
		t.Errorf("sslmode require against a server without TLS: %s", e.Message)
	}
	kv := fmt.Sprintf(`host=127.0.0.1 port=%d user=postgres password=%s dbname=postgres`, pg.Port(), testsrv.Password)
	s.MustFail("db_pg_connect", fmt.Sprintf(`{"connectionString":%q,"sslmode":"verify-full"}`, kv), tool.CodeConnectionFailed)
	s.MustRun("db_pg_connect", fmt.Sprintf(`{"connectionString":%q,"sslmode":"disable","alias":"kv"}`, kv))

	// A listener that accepts and never answers.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	began := time.Now()
	e = s.MustFail("db_pg_connect", fmt.Sprintf(`{"connectionString":"postgres://u:%s@%s/x?sslmode=disable&connect_timeout=1"}`, testsrv.Password, l.Addr()), tool.CodeConnectionFailed)
	if took := time.Since(began); took > 8*time.Second || !strings.Contains(e.Message, "did not answer in time") || strings.Contains(e.Message, testsrv.Password) {
		t.Errorf("connect_timeout=1 against a silent server: after %s: %s", took, e.Message)
	}
}

// A result cut at maxRows stops a reading statement on the server (the
// rest is not produced, and the connection serves the next call), while a
// statement that writes runs to its end.
func TestPostgresCutResultStopsTheStatement(t *testing.T) {
	t.Parallel()
	s := pgSession(t, "t_cut")
	got := tooltest.Object(t, s.MustRun("db_pg_query", `{"alias":"prod","query":"SELECT g FROM generate_series(1, 200000000) g","maxRows":2}`))
	if got["rowCount"] != float64(2) || got["truncated"] != true || !strings.Contains(fmt.Sprint(got["note"]), "cancelled on the server") {
		t.Errorf("cut: %v", got)
	}
	got = tooltest.Object(t, s.MustRun("db_pg_query", `{"alias":"prod","query":"SELECT count(*) AS n FROM pg_stat_activity WHERE query LIKE '%generate_series(1, 200000000)%' AND state = 'active' AND pid <> pg_backend_pid()"}`))
	tooltest.WantJSON(t, "statements still running", got["rows"], `[{"n":0}]`)
	// A write that returns more rows than maxRows is not cancelled.
	s.MustRun("db_pg_query", `{"alias":"prod","query":"CREATE TABLE w (id int)"}`)
	got = tooltest.Object(t, s.MustRun("db_pg_query", `{"alias":"prod","query":"INSERT INTO w SELECT g FROM generate_series(1, 5000) g RETURNING id","maxRows":10}`))
	if got["rowCount"] != float64(10) || got["truncated"] != true || strings.Contains(fmt.Sprint(got["note"]), "cancelled") {
		t.Errorf("cut write: %v", got)
	}
	got = tooltest.Object(t, s.MustRun("db_pg_query", `{"alias":"prod","query":"SELECT count(*) AS n FROM w"}`))
	tooltest.WantJSON(t, "rows written", got["rows"], `[{"n":5000}]`)

	// Rows past 16 MiB of JSON are cut too, however many maxRows allows:
	// the worker keeps its memory, and its connections.
	got = tooltest.Object(t, s.MustRun("db_pg_query", `{"alias":"prod","query":"SELECT g, repeat('x', 4000) AS t FROM generate_series(1, 100000) g","maxRows":100000}`))
	if n := got["rowCount"].(float64); n < 1000 || n > 5000 || got["truncated"] != true || !strings.Contains(fmt.Sprint(got["note"]), "16 MiB") {
		t.Errorf("wide rows: %v rows, note %v", got["rowCount"], got["note"])
	}
	s.MustRun("db_pg_query", `{"alias":"prod","query":"SELECT 1"}`)

	for q, want := range map[string]bool{
		"SELECT 1": true, " -- c\n/* d */ (select 1)": true, "values (1)": true, "WITH a AS (SELECT 1) SELECT * FROM a": true,
		"WITH a AS (DELETE FROM t RETURNING *) SELECT * FROM a": false, "INSERT INTO t VALUES (1) RETURNING *": false,
		"SELECT * INTO t2 FROM t": false, "UPDATE t SET a = 1 RETURNING a": false, "": false,
	} {
		if readOnly(q) != want {
			t.Errorf("readOnly(%q) = %v", q, !want)
		}
	}
}

// Parameters: arrays go as arrays (int[], text[], jsonb), objects as JSON,
// an array for a text parameter as JSON text; a count that does not match
// the statement's says so.
func TestPostgresParams(t *testing.T) {
	t.Parallel()
	s := tooltest.NewSession(t, Tools())
	s.MustRun("db_pg_connect", fmt.Sprintf(`{"connectionString":%q}`, pg.URL))
	got := tooltest.Object(t, s.MustRun("db_pg_query", `{"query":"SELECT $1::int[] AS i, $2::text[] AS t, $3::jsonb AS j, $4::jsonb AS o, $5::text AS s","params":[[1,2],["a","b"],[1,{"x":2}],{"k":[true]},[3]]}`))
	tooltest.WantJSON(t, "params", got["rows"], `[{"i":[1,2],"t":["a","b"],"j":[1,{"x":2}],"o":{"k":[true]},"s":"[3]"}]`)
	// Array columns are typed as SQL writes them (int4[], not pgx's _int4).
	tooltest.WantJSON(t, "param column types", got["columns"], `[{"name":"i","type":"int4[]"},{"name":"t","type":"text[]"},{"name":"j","type":"jsonb"},{"name":"o","type":"jsonb"},{"name":"s","type":"text"}]`)
	e := s.MustFail("db_pg_query", `{"query":"SELECT $1::int + $2::int","params":[1]}`, tool.CodeInvalidArgs)
	if !strings.Contains(e.Message, "2 parameter") || !strings.Contains(e.Message, "gives 1") {
		t.Errorf("param count: %s", e.Message)
	}
	// A plain string for jsonb is JSON text: the error says how to give a JSON string.
	e = s.MustFail("db_pg_query", `{"query":"SELECT $1::jsonb","params":["hello"]}`, tool.CodeQueryError)
	if !strings.Contains(e.Message, "taken as JSON text") || !strings.Contains(e.Message, `"\"hello\""`) {
		t.Errorf("a string for jsonb: %s", e.Message)
	}
	got = tooltest.Object(t, s.MustRun("db_pg_query", `{"query":"SELECT $1::jsonb AS j","params":["\"hello\""]}`))
	tooltest.WantJSON(t, "a JSON string for jsonb", got["rows"], `[{"j":"hello"}]`)
	// A literal in the SQL is the user's own text: no word about params.
	e = s.MustFail("db_pg_query", `{"query":"SELECT 'hello'::jsonb"}`, tool.CodeQueryError)
	if strings.Contains(e.Message, "taken as JSON text") {
		t.Errorf("a literal for jsonb: %s", e.Message)
	}
	got = tooltest.Object(t, s.MustRun("db_pg_seed", `{"table":"pg_temp.nothing","data":[]}`))
	tooltest.WantJSON(t, "seed of no rows", got["columns"], `[]`)
}

// A statement that commits or rolls back inside db_pg_transaction would
// make "nothing was applied" untrue: it is refused before anything runs,
// while savepoints, which stay inside the transaction, work.
func TestPostgresTransactionRefusesTransactionControl(t *testing.T) {
	t.Parallel()
	s := pgSession(t, "t_txctl")
	s.MustRun("db_pg_query", `{"alias":"prod","query":"CREATE TABLE t (n int UNIQUE)"}`)
	for _, q := range []string{"COMMIT", "/* done */ commit", "END", "ROLLBACK", "rollback and chain", "BEGIN", "START TRANSACTION", "ABORT", "PREPARE TRANSACTION 'x'"} {
		e := s.MustFail("db_pg_transaction", fmt.Sprintf(`{"alias":"prod","queries":[{"query":"INSERT INTO t VALUES (1)"},{"query":%q},{"query":"INSERT INTO t VALUES (1)"}]}`, q), tool.CodeInvalidArgs)
		if !strings.Contains(e.Message, "statement 2 of 3") || !strings.Contains(e.Message, "nothing was run") {
			t.Errorf("%s: %s", q, e.Message)
		}
	}
	got := tooltest.Object(t, s.MustRun("db_pg_query", `{"alias":"prod","query":"SELECT count(*) AS n FROM t"}`))
	tooltest.WantJSON(t, "rows after refused transactions", got["rows"], `[{"n":0}]`)

	s.MustRun("db_pg_transaction", `{"alias":"prod","queries":[{"query":"SAVEPOINT a"},{"query":"INSERT INTO t VALUES (1)"},{"query":"ROLLBACK TO SAVEPOINT a"},
		{"query":"INSERT INTO t VALUES (2)"},{"query":"SAVEPOINT b"},{"query":"INSERT INTO t VALUES (3)"},{"query":"ROLLBACK WORK TO b"},{"query":"RELEASE SAVEPOINT a"}]}`)
	got = tooltest.Object(t, s.MustRun("db_pg_query", `{"alias":"prod","query":"SELECT n FROM t ORDER BY n"}`))
	tooltest.WantJSON(t, "rows after savepoints", got["rows"], `[{"n":2}]`)
}

// A server of another protocol (an HTTP server, a proxy) on the port is
// named as such, not taken for one without TLS.
func TestConnectToAnHTTPServer(t *testing.T) {
	t.Parallel()
	// As a web server or proxy does to bytes it cannot parse: a 400 at once.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
			_ = c.Close()
		}
	}()
	addr := l.Addr().String()
	s := tooltest.NewSession(t, Tools())
	for _, c := range []struct{ tool, args string }{
		{"db_pg_connect", fmt.Sprintf(`{"connectionString":"postgres://u:%s@%s/x"}`, testsrv.Password, addr)},
		{"db_redis_connect", fmt.Sprintf(`{"url":"redis://:%s@%s/0"}`, testsrv.Password, addr)},
	} {
		e := s.MustFail(c.tool, c.args, tool.CodeConnectionFailed)
		if !strings.Contains(e.Message, "does not speak this database's protocol") || strings.Contains(e.Message, "sslmode disable") || strings.Contains(e.Message, testsrv.Password) {
			t.Errorf("%s to an HTTP server: %s", c.tool, e.Message)
		}
	}
}
