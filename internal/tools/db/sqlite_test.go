package db

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestSQLite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := tooltest.NewSession(t, Tools())
	s.Ctx = tool.WithRoots(context.Background(), []string{dir})
	got := tooltest.Object(t, s.MustRun("db_sqlite_open", `{"path":"app.db","alias":"app"}`))
	if got["path"] != filepath.Join(dir, "app.db") || got["tables"] != float64(0) {
		t.Errorf("open: %v", got)
	}
	s.MustRun("db_sqlite_query", `{"alias":"app","query":"CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL, data BLOB)"}`)
	s.MustRun("db_sqlite_query", `{"alias":"app","query":"CREATE INDEX items_name ON items(name)"}`)
	got = tooltest.Object(t, s.MustRun("db_sqlite_query", `{"alias":"app","query":"INSERT INTO items (name, price) VALUES (?, ?), (?, ?)","params":["pen",1.5,"ink",2]}`))
	tooltest.WantJSON(t, "insert", got, `{"rowsAffected":2,"lastInsertId":2}`)
	// Rows for any statement that returns them, not only SELECT (in this
	// order: the INSERT changes what the SELECT sees).
	for _, c := range []struct{ q, want string }{
		{`SELECT name, price FROM items ORDER BY id`, `[{"name":"pen","price":1.5},{"name":"ink","price":2}]`},
		{`WITH c AS (SELECT count(*) AS n FROM items) SELECT n FROM c`, `[{"n":2}]`},
		{`INSERT INTO items (name) VALUES ('cap') RETURNING id, name`, `[{"id":3,"name":"cap"}]`},
		{"  -- a comment first\n select 'x' as v", `[{"v":"x"}]`},
	} {
		got = tooltest.Object(t, s.MustRun("db_sqlite_query", `{"alias":"app","query":`+tooltest.Marshal(c.q)+`}`))
		tooltest.WantJSON(t, c.q, got["rows"], c.want)
	}
	got = tooltest.Object(t, s.MustRun("db_sqlite_query", `{"alias":"app","query":"PRAGMA table_info(items)"}`))
	if got["rowCount"] != float64(4) {
		t.Errorf("pragma: %v", got)
	}
	got = tooltest.Object(t, s.MustRun("db_sqlite_query", `{"alias":"app","query":"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 30) SELECT x FROM c","maxRows":5}`))
	if got["rowCount"] != float64(5) || got["truncated"] != true || !strings.Contains(tooltest.Marshal(got["note"]), "maxRows") {
		t.Errorf("maxRows: %v", got)
	}
	e := s.MustFail("db_sqlite_query", `{"alias":"app","query":"SELEC 1"}`, tool.CodeQueryError)
	if !strings.Contains(e.Message, "syntax error") {
		t.Errorf("syntax: %s", e.Message)
	}
	got = tooltest.Object(t, s.MustRun("db_sqlite_schema", `{"alias":"app","table":"items"}`))
	js := tooltest.Marshal(got)
	for _, want := range []string{`"name":"price"`, `"type":"REAL"`, `"items_name"`, `"pk":1`} {
		if !strings.Contains(js, want) {
			t.Errorf("schema lacks %s: %s", want, js)
		}
	}
	if got = tooltest.Object(t, s.MustRun("db_sqlite_schema", `{"alias":"app"}`)); got["count"] != float64(2) {
		t.Errorf("schema list: %v", got)
	}
	e = s.MustFail("db_sqlite_schema", `{"alias":"app","table":"itemz"}`, tool.CodeNotFound)
	if !strings.Contains(e.Message, "items") {
		t.Errorf("unknown table: %s", e.Message)
	}
	s.MustRun("db_sqlite_close", `{"alias":"app"}`)

	// Read-only: reads work, writes fail saying why; a missing file is NOT_FOUND.
	s.MustRun("db_sqlite_open", `{"path":"app.db","readonly":true,"alias":"ro"}`)
	got = tooltest.Object(t, s.MustRun("db_sqlite_query", `{"alias":"ro","query":"SELECT count(*) AS n FROM items"}`))
	tooltest.WantJSON(t, "read-only read", got["rows"], `[{"n":3}]`)
	e = s.MustFail("db_sqlite_query", `{"alias":"ro","query":"DELETE FROM items"}`, tool.CodeQueryError)
	if !strings.Contains(e.Message, "readonly") {
		t.Errorf("write to read-only: %s", e.Message)
	}
	s.MustFail("db_sqlite_open", `{"path":"missing.db","readonly":true}`, tool.CodeNotFound)
	s.MustFail("db_sqlite_open", `{"path":"no/such/dir/x.db"}`, tool.CodeNotFound)
	e = s.MustFail("db_sqlite_query", `{"alias":"app","query":"SELECT 1"}`, tool.CodeNotFound)
	if !strings.Contains(e.Message, "open: ro") {
		t.Errorf("closed alias: %s", e.Message)
	}

	// :memory: keeps its tables across calls (one connection).
	s.MustRun("db_sqlite_open", `{"path":":memory:","alias":"mem"}`)
	s.MustRun("db_sqlite_query", `{"alias":"mem","query":"CREATE TABLE t (x)"}`)
	s.MustRun("db_sqlite_query", `{"alias":"mem","query":"INSERT INTO t VALUES (42)"}`)
	got = tooltest.Object(t, s.MustRun("db_sqlite_query", `{"alias":"mem","query":"SELECT x FROM t"}`))
	tooltest.WantJSON(t, "memory", got["rows"], `[{"x":42}]`)
	// A database file outside the allowed roots, directly, by .. or through
	// a symbolic link, is refused naming the roots.
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(outside, "x.db"), "../" + filepath.Base(outside) + "/x.db", "out/x.db"} {
		e := s.MustFail("db_sqlite_open", fmt.Sprintf(`{"path":%q,"alias":"out"}`, p), tool.CodeForbidden)
		if !strings.Contains(e.Message, "outside the allowed roots ("+dir+")") {
			t.Errorf("open %s: %s", p, e.Message)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("files were made outside the roots: %v", entries)
	}
	// Parameters: arrays and objects as JSON text; a :name parameter,
	// which a list cannot fill, says what to write instead.
	got = tooltest.Object(t, s.MustRun("db_sqlite_query", `{"alias":"mem","query":"SELECT ? AS a, ?2 AS o","params":[[1,2],{"k":1}]}`))
	tooltest.WantJSON(t, "params", got["rows"], `[{"a":"[1,2]","o":"{\"k\":1}"}]`)
	e = s.MustFail("db_sqlite_query", `{"alias":"mem","query":"SELECT :a","params":[1]}`, tool.CodeQueryError)
	if !strings.Contains(e.Message, "write ? or ?1") {
		t.Errorf(":name: %s", e.Message)
	}
	// Rows past 16 MiB of JSON are cut, however many maxRows allows.
	got = tooltest.Object(t, s.MustRun("db_sqlite_query", `{"alias":"mem","query":"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT x, printf('%.4000c', 'x') AS t FROM c","maxRows":100000}`))
	if n := got["rowCount"].(float64); n < 1000 || n > 5000 || got["truncated"] != true || !strings.Contains(fmt.Sprint(got["note"]), "16 MiB") {
		t.Errorf("wide rows: %v rows, note %v", got["rowCount"], got["note"])
	}
	// Opening an alias again replaces (and closes) its connection, and says so.
	got = tooltest.Object(t, s.MustRun("db_sqlite_open", `{"path":":memory:","alias":"mem"}`))
	if got["replaced"] != true {
		t.Errorf("open over an open alias: %v", got)
	}
	s.MustFail("db_sqlite_query", `{"alias":"mem","query":"SELECT x FROM t"}`, tool.CodeQueryError)
	// A read-only open refuses writes even through a statement returning rows.
	e = s.MustFail("db_sqlite_query", `{"alias":"ro","query":"INSERT INTO items (name, price) VALUES ('x', 1) RETURNING id"}`, tool.CodeQueryError)
	if !strings.Contains(e.Message, "readonly") {
		t.Errorf("RETURNING on read-only: %s", e.Message)
	}
}

// SQLite reports no position, only the token: the error shows where it is
// when the token occurs once; a parameter count that does not match says
// so, as for PostgreSQL.
func TestSQLiteErrorsSayWhere(t *testing.T) {
	t.Parallel()
	s := tooltest.NewSession(t, Tools())
	s.Ctx = tool.WithRoots(context.Background(), []string{t.TempDir()})
	s.MustRun("db_sqlite_open", `{"path":":memory:"}`)
	s.MustRun("db_sqlite_query", `{"query":"CREATE TABLE t (id INTEGER, name TEXT)"}`)
	for _, c := range []struct{ q, want string }{
		{"SELEC 1", "at line 1, column 1:\n  SELEC 1\n  ^"},
		{"SELECT id,\n  nme FROM t", "at line 2, column 3:\n    nme FROM t\n    ^"},
		{"SELECT id FROM tt", "at line 1, column 16:"},
		{"SELECT id FROM t WHERE id = (1", "at line 1, column 31:"},
	} {
		e := s.MustFail("db_sqlite_query", `{"query":`+tooltest.Marshal(c.q)+`}`, tool.CodeQueryError)
		if !strings.Contains(e.Message, c.want) {
			t.Errorf("%q: %s\nwant it to contain %q", c.q, e.Message, c.want)
		}
	}
	// A token that occurs twice could be either: no caret rather than a wrong one.
	e := s.MustFail("db_sqlite_query", `{"query":"SELECT nme, nme FROM t"}`, tool.CodeQueryError)
	if strings.Contains(e.Message, "^") || !strings.Contains(e.Message, "no such column: nme") {
		t.Errorf("ambiguous token: %s", e.Message)
	}
	for _, c := range []struct{ args, want string }{
		{`{"query":"SELECT ?, ?","params":[1]}`, "parameter 2 (the 2nd ?, or ?2) and params gives 1 value(s)"},
		{`{"query":"SELECT ?1, ?2","params":[1]}`, "parameter 2 (the 2nd ?, or ?2) and params gives 1 value(s)"},
		// More values than parameters: SQLite would drop the rest.
		{`{"query":"SELECT ?","params":[1,2]}`, "the statement has 1 parameter(s) and params gives 2 value(s)"},
		{`{"query":"SELECT '?', \"?\", [?] -- ?\n /* ? */","params":[1]}`, "the statement has 0 parameter(s) and params gives 1 value(s)"},
		{`{"query":"SELECT ?3","params":[1,2,3,4]}`, "the statement has 3 parameter(s) and params gives 4 value(s)"},
	} {
		e := s.MustFail("db_sqlite_query", c.args, tool.CodeInvalidArgs)
		if !strings.Contains(e.Message, c.want) || strings.Contains(e.Message, ":name") {
			t.Errorf("%s: %s", c.args, e.Message)
		}
	}
	// As many values as parameters, numbered or not, run.
	for _, args := range []string{`{"query":"SELECT ?3, ?, 'it''s ?'","params":[1,2,3,4]}`, `{"query":"SELECT ?2, ?1","params":[1,2]}`} {
		s.MustRun("db_sqlite_query", args)
	}
	e = s.MustFail("db_sqlite_query", `{"query":"SELECT :a","params":[1]}`, tool.CodeQueryError)
	if !strings.Contains(e.Message, "instead of :name") {
		t.Errorf("named parameter: %s", e.Message)
	}
}

// A column without a declared type (an expression, a pragma's) is typed by
// its first value's storage class rather than left "".
func TestSQLiteExpressionColumnTypes(t *testing.T) {
	t.Parallel()
	s := tooltest.NewSession(t, Tools())
	s.Ctx = tool.WithRoots(context.Background(), []string{t.TempDir()})
	s.MustRun("db_sqlite_open", `{"path":":memory:"}`)
	got := tooltest.Object(t, s.MustRun("db_sqlite_query", `{"query":"SELECT 1 AS i, 1.5 AS r, 'x' AS t, x'00ff' AS b, NULL AS n, count(*) AS c FROM (SELECT 1)"}`))
	tooltest.WantJSON(t, "columns", got["columns"], `[{"name":"i","type":"integer"},{"name":"r","type":"real"},{"name":"t","type":"text"},{"name":"b","type":"blob"},{"name":"n","type":""},{"name":"c","type":"integer"}]`)
}
